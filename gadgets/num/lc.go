package num

import (
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-project/cuzk/gadgets/boolean"
	"github.com/cuzk-project/cuzk/r1cs"
)

// Num is a linear combination with its value (bellpepper-core's Num): sums
// of bits and numbers built without constraints, to be constrained once.
// The zero value is the number zero.
type Num struct {
	Value fr.Element
	LC    r1cs.LinearCombination
}

// FromAllocated is 1 · n.
func FromAllocated(n AllocatedNum) Num {
	return Num{Value: n.Value, LC: lc1(n.Var)}
}

// AddBoolWithCoeff adds coeff · bit (bit as bellpepper's Boolean::lc).
func (n *Num) AddBoolWithCoeff(bit boolean.Boolean, coeff fr.Element) *Num {
	if bit.Value() {
		n.Value.Add(&n.Value, &coeff)
	}
	bit.AddTo(&n.LC, &coeff)
	return n
}

// Add adds other.
func (n *Num) Add(other Num) *Num {
	n.Value.Add(&n.Value, &other.Value)
	n.LC.AddLCOne(other.LC)
	return n
}

// Scale multiplies n by s.
func (n *Num) Scale(s fr.Element) *Num {
	for i := range n.LC {
		n.LC[i].Coeff.Mul(&n.LC[i].Coeff, &s)
	}
	n.Value.Mul(&n.Value, &s)
	return n
}

// ScaledLC is coeff · n as a fresh combination (bellpepper's Num::lc).
func (n Num) ScaledLC(coeff fr.Element) r1cs.LinearCombination {
	var lc r1cs.LinearCombination
	lc.AddLC(coeff, n.LC)
	return lc
}

// NumFromBits is Σ 2^i·bits[i] (no truncation, no constraint).
func NumFromBits(bits []boolean.Boolean) Num {
	n := Num{LC: make(r1cs.LinearCombination, 0, len(bits)+1)}
	coeff := one
	for _, b := range bits {
		n.AddBoolWithCoeff(b, coeff)
		coeff.Double(&coeff)
	}
	return n
}

// ValueFromBits is NumFromBits(bits).Value without the combination: bits
// are packed into integer limbs (up to 256 bits) and reduced once.
func ValueFromBits(bits []boolean.Boolean) fr.Element {
	if len(bits) > 256 {
		return NumFromBits(bits).Value
	}
	var be [32]byte
	for i, b := range bits {
		if b.Value() {
			be[31-i/8] |= 1 << (uint(i) % 8)
		}
	}
	var v fr.Element
	v.SetBytes(be[:])
	return v
}
