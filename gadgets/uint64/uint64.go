package uint64

import (
	"fmt"

	"github.com/cuzk-project/cuzk/gadgets/boolean"
	"github.com/cuzk-project/cuzk/gadgets/multipack"
	"github.com/cuzk-project/cuzk/r1cs"
)

// UInt64 is 64 Booleans, least significant first, and their value.
type UInt64 struct {
	Bits  [64]boolean.Boolean
	Value uint64
}

// Constant is v as constant bits.
func Constant(v uint64) UInt64 {
	u := UInt64{Value: v}
	for i := range u.Bits {
		u.Bits[i] = boolean.Constant(v>>uint(i)&1 == 1)
	}
	return u
}

// Alloc allocates the 64 bits of v, least significant first.
func Alloc(cs r1cs.ConstraintSystem, v uint64) UInt64 {
	u := UInt64{Value: v}
	for i := range u.Bits {
		u.Bits[i] = boolean.AllocBoolean(cs, v>>uint(i)&1 == 1)
	}
	return u
}

// BitsBE returns the bits most significant first (to_bits_be).
func (u UInt64) BitsBE() []boolean.Boolean {
	out := make([]boolean.Boolean, 64)
	for i := range out {
		out[i] = u.Bits[63-i]
	}
	return out
}

// BitsLE returns the bits least significant first (to_bits_le).
func (u UInt64) BitsLE() []boolean.Boolean {
	out := make([]boolean.Boolean, 64)
	copy(out, u.Bits[:])
	return out
}

// FromBitsBE builds a UInt64 from 64 bits, most significant first.
func FromBitsBE(bits []boolean.Boolean) UInt64 {
	if len(bits) != 64 {
		panic(fmt.Sprintf("uint64: FromBitsBE of %d bits, want 64", len(bits)))
	}
	var u UInt64
	for i, b := range bits {
		u.Bits[63-i] = b
		u.Value <<= 1
		if b.Value() {
			u.Value |= 1
		}
	}
	return u
}

// FromBits builds a UInt64 from 64 bits, least significant first.
func FromBits(bits []boolean.Boolean) UInt64 {
	if len(bits) != 64 {
		panic(fmt.Sprintf("uint64: FromBits of %d bits, want 64", len(bits)))
	}
	var u UInt64
	for i, b := range bits {
		u.Bits[i] = b
		if b.Value() {
			u.Value |= 1 << uint(i)
		}
	}
	return u
}

// PackIntoInput exposes the value as one public input (multipack of the
// little-endian bits) and returns that input.
func (u UInt64) PackIntoInput(cs r1cs.ConstraintSystem) r1cs.Variable {
	return multipack.PackIntoInputs(cs, u.Bits[:])[0]
}
