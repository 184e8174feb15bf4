package boolean

import (
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-project/cuzk/r1cs"
)

// FieldBits is the scalar field's NUM_BITS (255): the length of a field
// element's bit decomposition.
const FieldBits = 255

// bit01 holds the aux values of a false and a true bit.
var bit01 = [2]fr.Element{{}, fr.One()}

// FieldCapacity is the scalar field's CAPACITY (254): how many bits always
// fit in a field element.
const FieldCapacity = 254

// U64IntoBooleanVecLE allocates the 64 bits of v, least significant first
// (bellpepper's u64_into_boolean_vec_le).
func U64IntoBooleanVecLE(cs r1cs.ConstraintSystem, v uint64) []Boolean {
	out := make([]Boolean, 64)
	for i := range out {
		out[i] = Is(Alloc(cs, v>>uint(i)&1 == 1))
	}
	return out
}

// FieldIntoAllocatedBitsLE allocates the 255 bits of v, least significant
// first (bellpepper's field_into_allocated_bits_le). No packing constraint
// is added; see num.AllocatedNum.ToBitsLE for that. An r1cs.AuxBatcher gets
// the 255 values in one run.
func FieldIntoAllocatedBitsLE(cs r1cs.ConstraintSystem, v fr.Element) []AllocatedBit {
	limbs := v.Bits()
	out := make([]AllocatedBit, FieldBits)
	if b, ok := r1cs.AsAuxBatcher(cs); ok {
		first, vals := b.AllocAuxBatch(FieldBits)
		for i := range out {
			bit := limbs[i/64] >> (uint(i) % 64) & 1
			vals[i] = bit01[bit]
			out[i] = AllocatedBit{Var: first + r1cs.Variable(i), Value: bit == 1}
		}
		b.EnforceSkipped(FieldBits)
		return out
	}
	for i := range out {
		out[i] = Alloc(cs, limbs[i/64]>>(uint(i)%64)&1 == 1)
	}
	return out
}

// FieldIntoBooleanVecLE is FieldIntoAllocatedBitsLE as Booleans.
func FieldIntoBooleanVecLE(cs r1cs.ConstraintSystem, v fr.Element) []Boolean {
	bits := FieldIntoAllocatedBitsLE(cs, v)
	out := make([]Boolean, len(bits))
	for i, b := range bits {
		out[i] = Is(b)
	}
	return out
}

// BytesIntoBooleanVec allocates the bits of data, bytes in order and each
// byte least significant bit first (storage-proofs-core
// util::bytes_into_boolean_vec).
func BytesIntoBooleanVec(cs r1cs.ConstraintSystem, data []byte) []Boolean {
	out := make([]Boolean, 0, 8*len(data))
	for _, by := range data {
		for i := 0; i < 8; i++ {
			out = append(out, Is(Alloc(cs, by>>uint(i)&1 == 1)))
		}
	}
	return out
}

// BytesIntoBooleanVecBE allocates the bits of data, bytes in order and each
// byte most significant bit first (util::bytes_into_boolean_vec_be).
func BytesIntoBooleanVecBE(cs r1cs.ConstraintSystem, data []byte) []Boolean {
	out := make([]Boolean, 0, 8*len(data))
	for _, by := range data {
		for i := 7; i >= 0; i-- {
			out = append(out, Is(Alloc(cs, by>>uint(i)&1 == 1)))
		}
	}
	return out
}

// ReverseBitNumbering pads bits with constant false to whole bytes and
// reverses the bit order inside each byte, keeping the byte order
// (storage-proofs-core util::reverse_bit_numbering). It returns a new slice.
func ReverseBitNumbering(bits []Boolean) []Boolean {
	n := (len(bits) + 7) &^ 7
	out := make([]Boolean, n)
	for i := 0; i < n; i++ {
		src := i&^7 + 7 - i&7
		if src < len(bits) {
			out[i] = bits[src]
		} else {
			out[i] = Constant(false)
		}
	}
	return out
}

// Values returns the values of bits.
func Values(bits []Boolean) []bool {
	out := make([]bool, len(bits))
	for i, b := range bits {
		out[i] = b.Value()
	}
	return out
}

// Constants returns bits as constant Booleans.
func Constants(bits []bool) []Boolean {
	out := make([]Boolean, len(bits))
	for i, b := range bits {
		out[i] = Constant(b)
	}
	return out
}
