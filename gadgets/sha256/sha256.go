package sha256

import (
	"fmt"

	"github.com/cuzk-project/cuzk/gadgets/boolean"
	"github.com/cuzk-project/cuzk/gadgets/uint32"
	"github.com/cuzk-project/cuzk/r1cs"
)

// IVConstants is the IV as constant UInt32s.
func IVConstants() []uint32.UInt32 {
	out := make([]uint32.UInt32, 8)
	for i, v := range IV {
		out[i] = uint32.Constant(v)
	}
	return out
}

// maybe is bellpepper's Maybe: a word whose final addition is deferred so
// that it can absorb later operands into one addmany.
type maybe struct {
	deferred []uint32.UInt32
	concrete uint32.UInt32
	isDefer  bool
}

func (m maybe) compute(meq *uint32.MultiEq, others ...uint32.UInt32) uint32.UInt32 {
	if !m.isDefer {
		return m.concrete
	}
	ops := append(append(make([]uint32.UInt32, 0, len(m.deferred)+len(others)), m.deferred...), others...)
	return uint32.AddMany(meq, ops...)
}

// Compression is the SHA-256 compression function on 512 input bits (most
// significant bit of each big-endian word first) and the current state. It
// panics on wrong lengths, which are circuit-construction errors. On an
// r1cs.AuxBatcher (a witness-only system) it computes the same aux values
// with uint32 operations (see compressionWitness).
func Compression(cs r1cs.ConstraintSystem, input []boolean.Boolean, current []uint32.UInt32) []uint32.UInt32 {
	if len(input) != 512 || len(current) != 8 {
		panic(fmt.Sprintf("sha256: compression of %d bits and %d words, want 512 and 8", len(input), len(current)))
	}
	if wb, ok := r1cs.AsAuxBatcher(cs); ok {
		return compressionWitness(wb, input, current)
	}
	w := make([]uint32.UInt32, 64)
	for i := 0; i < 16; i++ {
		w[i] = uint32.FromBitsBE(input[32*i : 32*i+32])
	}
	meq := uint32.NewMultiEq(cs)
	for i := 16; i < 64; i++ {
		s0 := w[i-15].Rotr(7)
		s0 = s0.Xor(meq, w[i-15].Rotr(18))
		s0 = s0.Xor(meq, w[i-15].Shr(3))
		s1 := w[i-2].Rotr(17)
		s1 = s1.Xor(meq, w[i-2].Rotr(19))
		s1 = s1.Xor(meq, w[i-2].Shr(10))
		w[i] = uint32.AddMany(meq, w[i-16], s0, w[i-7], s1)
	}

	a := maybe{concrete: current[0]}
	b, c, d := current[1], current[2], current[3]
	e := maybe{concrete: current[4]}
	f, g, h := current[5], current[6], current[7]
	for i := 0; i < 64; i++ {
		newE := e.compute(meq)
		s1 := newE.Rotr(6)
		s1 = s1.Xor(meq, newE.Rotr(11))
		s1 = s1.Xor(meq, newE.Rotr(25))
		ch := uint32.Sha256Ch(meq, newE, f, g)
		temp1 := []uint32.UInt32{h, s1, ch, uint32.Constant(RoundConstants[i]), w[i]}

		newA := a.compute(meq)
		s0 := newA.Rotr(2)
		s0 = s0.Xor(meq, newA.Rotr(13))
		s0 = s0.Xor(meq, newA.Rotr(22))
		maj := uint32.Sha256Maj(meq, newA, b, c)

		h = g
		g = f
		f = newE
		e = maybe{deferred: append(append([]uint32.UInt32(nil), temp1...), d), isDefer: true}
		d = c
		c = b
		b = newA
		a = maybe{deferred: append(append([]uint32.UInt32(nil), temp1...), s0, maj), isDefer: true}
	}
	out := []uint32.UInt32{
		a.compute(meq, current[0]),
		uint32.AddMany(meq, current[1], b),
		uint32.AddMany(meq, current[2], c),
		uint32.AddMany(meq, current[3], d),
		e.compute(meq, current[4]),
		uint32.AddMany(meq, current[5], f),
		uint32.AddMany(meq, current[6], g),
		uint32.AddMany(meq, current[7], h),
	}
	meq.Flush()
	return out
}

func wordsBE(words []uint32.UInt32) []boolean.Boolean {
	out := make([]boolean.Boolean, 0, 32*len(words))
	for _, w := range words {
		out = append(out, w.BitsBE()...)
	}
	return out
}

// BlockNoPadding compresses exactly one 512-bit block from the IV and returns
// the 256 state bits (bellpepper sha256_block_no_padding).
func BlockNoPadding(cs r1cs.ConstraintSystem, input []boolean.Boolean) []boolean.Boolean {
	return wordsBE(Compression(cs, input, IVConstants()))
}

// Hash is SHA-256 of input (a whole number of bytes, most significant bit of
// each byte first), padded with constant bits; it returns the 256 digest
// bits, most significant bit of each byte first. It panics when the input
// is not a whole number of bytes.
func Hash(cs r1cs.ConstraintSystem, input []boolean.Boolean) []boolean.Boolean {
	if len(input)%8 != 0 {
		panic(fmt.Sprintf("sha256: input of %d bits is not whole bytes", len(input)))
	}
	padded := make([]boolean.Boolean, len(input), len(input)+512+64)
	copy(padded, input)
	plen := uint64(len(input))
	padded = append(padded, boolean.Constant(true))
	for (len(padded)+64)%512 != 0 {
		padded = append(padded, boolean.Constant(false))
	}
	for i := 63; i >= 0; i-- {
		padded = append(padded, boolean.Constant(plen>>uint(i)&1 == 1))
	}
	cur := IVConstants()
	for i := 0; i < len(padded); i += 512 {
		cur = Compression(cs, padded[i:i+512], cur)
	}
	return wordsBE(cur)
}
