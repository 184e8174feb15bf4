package uint32

import (
	"fmt"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-project/cuzk/gadgets/boolean"
	"github.com/cuzk-project/cuzk/r1cs"
)

// UInt32 is 32 Booleans, least significant first, and the value they hold.
type UInt32 struct {
	Bits  [32]boolean.Boolean
	Value uint32
}

// Constant is v as constant bits (no variables).
func Constant(v uint32) UInt32 {
	u := UInt32{Value: v}
	for i := range u.Bits {
		u.Bits[i] = boolean.Constant(v>>uint(i)&1 == 1)
	}
	return u
}

// Alloc allocates the 32 bits of v, least significant first, each with its
// booleanity constraint.
func Alloc(cs r1cs.ConstraintSystem, v uint32) UInt32 {
	u := UInt32{Value: v}
	for i := range u.Bits {
		u.Bits[i] = boolean.AllocBoolean(cs, v>>uint(i)&1 == 1)
	}
	return u
}

// BitsBE returns the bits most significant first (bellpepper into_bits_be).
func (u UInt32) BitsBE() []boolean.Boolean {
	out := make([]boolean.Boolean, 32)
	for i := range out {
		out[i] = u.Bits[31-i]
	}
	return out
}

// BitsLE returns the bits least significant first (into_bits).
func (u UInt32) BitsLE() []boolean.Boolean {
	out := make([]boolean.Boolean, 32)
	copy(out, u.Bits[:])
	return out
}

// FromBitsBE builds a UInt32 from 32 bits, most significant first. It
// panics on another length, a circuit-construction error.
func FromBitsBE(bits []boolean.Boolean) UInt32 {
	if len(bits) != 32 {
		panic(fmt.Sprintf("uint32: FromBitsBE of %d bits, want 32", len(bits)))
	}
	var u UInt32
	for i, b := range bits {
		u.Bits[31-i] = b
		u.Value <<= 1
		if b.Value() {
			u.Value |= 1
		}
	}
	return u
}

// FromBits builds a UInt32 from 32 bits, least significant first.
func FromBits(bits []boolean.Boolean) UInt32 {
	if len(bits) != 32 {
		panic(fmt.Sprintf("uint32: FromBits of %d bits, want 32", len(bits)))
	}
	var u UInt32
	for i, b := range bits {
		u.Bits[i] = b
		if b.Value() {
			u.Value |= 1 << uint(i)
		}
	}
	return u
}

// Rotr rotates right by `by` bits (mod 32); no constraints.
func (u UInt32) Rotr(by int) UInt32 {
	by %= 32
	out := UInt32{Value: u.Value>>uint(by) | u.Value<<uint(32-by)}
	for i := range out.Bits {
		out.Bits[i] = u.Bits[(i+by)%32]
	}
	return out
}

// Shr shifts right by `by` bits (mod 32), filling with constant zeros.
func (u UInt32) Shr(by int) UInt32 {
	by %= 32
	out := UInt32{Value: u.Value >> uint(by)}
	for i := range out.Bits {
		if i+by < 32 {
			out.Bits[i] = u.Bits[i+by]
		} else {
			out.Bits[i] = boolean.Constant(false)
		}
	}
	return out
}

// Xor is the bitwise xor, bit 0 first.
func (u UInt32) Xor(cs r1cs.ConstraintSystem, other UInt32) UInt32 {
	out := UInt32{Value: u.Value ^ other.Value}
	for i := range out.Bits {
		out.Bits[i] = boolean.Xor(cs, u.Bits[i], other.Bits[i])
	}
	return out
}

// Sha256Maj is (a ∧ b) ⊕ (a ∧ c) ⊕ (b ∧ c), bit 0 first.
func Sha256Maj(cs r1cs.ConstraintSystem, a, b, c UInt32) UInt32 {
	out := UInt32{Value: (a.Value & b.Value) ^ (a.Value & c.Value) ^ (b.Value & c.Value)}
	for i := range out.Bits {
		out.Bits[i] = boolean.Sha256Maj(cs, a.Bits[i], b.Bits[i], c.Bits[i])
	}
	return out
}

// Sha256Ch is (a ∧ b) ⊕ (¬a ∧ c), bit 0 first.
func Sha256Ch(cs r1cs.ConstraintSystem, a, b, c UInt32) UInt32 {
	out := UInt32{Value: (a.Value & b.Value) ^ (^a.Value & c.Value)}
	for i := range out.Bits {
		out.Bits[i] = boolean.Sha256Ch(cs, a.Bits[i], b.Bits[i], c.Bits[i])
	}
	return out
}

// AddMany returns the sum of 2 to 10 operands modulo 2^32. Unless every
// bit is constant, it allocates the bits of the full sum (⌈log2(n·(2^32−1))⌉
// of them, carries included) and records Σ operands = Σ 2^i·result_i in m.
// It panics on fewer than 2 or more than 10 operands, as bellpepper asserts.
func AddMany(m *MultiEq, operands ...UInt32) UInt32 {
	if len(operands) < 2 || len(operands) > 10 {
		panic(fmt.Sprintf("uint32: AddMany of %d operands, want 2..10", len(operands)))
	}
	maxValue := uint64(len(operands)) * uint64(^uint32(0))
	var sum uint64
	// The operands' combination is collected unsorted; MultiEq sorts and
	// merges when it emits the row (the merged result is the same).
	skip := m.SkipsConstraints()
	var lc []r1cs.Term
	if !skip {
		lc = make([]r1cs.Term, 0, 33*len(operands))
	}
	allConstants := true
	for i := range operands {
		op := &operands[i]
		sum += uint64(op.Value)
		for j := range op.Bits {
			if !skip {
				lc = appendBool(lc, op.Bits[j], j)
			}
			allConstants = allConstants && op.Bits[j].IsConstant()
		}
	}
	if allConstants {
		return Constant(uint32(sum))
	}
	var out UInt32
	out.Value = uint32(sum)
	var resultLC []r1cs.Term
	if !skip {
		resultLC = make([]r1cs.Term, 0, 35)
	}
	n := 0
	for ; maxValue != 0; maxValue >>= 1 {
		b := boolean.Alloc(m, sum>>uint(n)&1 == 1)
		if !skip {
			resultLC = append(resultLC, r1cs.Term{Var: b.Var, Coeff: pow2[n]})
		}
		if n < 32 {
			out.Bits[n] = boolean.Is(b)
		}
		n++
	}
	m.EnforceEqual(n, lc, resultLC)
	return out
}

// appendBool appends the terms of 2^j · b (bellpepper's Boolean::lc) unmerged.
func appendBool(dst []r1cs.Term, b boolean.Boolean, j int) []r1cs.Term {
	switch b.Kind {
	case boolean.KindIs:
		return append(dst, r1cs.Term{Var: b.Bit.Var, Coeff: pow2[j]})
	case boolean.KindNot:
		return append(dst, r1cs.Term{Var: r1cs.One, Coeff: pow2[j]}, r1cs.Term{Var: b.Bit.Var, Coeff: negPow2[j]})
	}
	if b.Const {
		return append(dst, r1cs.Term{Var: r1cs.One, Coeff: pow2[j]})
	}
	return dst
}

var negPow2 = func() (p [64]fr.Element) {
	for i := range p {
		p[i].Neg(&pow2[i])
	}
	return p
}()
