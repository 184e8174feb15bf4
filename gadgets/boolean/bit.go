package boolean

import (
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-project/cuzk/r1cs"
)

// AllocatedBit is an aux variable constrained to be 0 or 1, with its value.
type AllocatedBit struct {
	Var   r1cs.Variable
	Value bool
}

var (
	one    = func() fr.Element { var e fr.Element; e.SetOne(); return e }()
	minus1 = func() fr.Element { var e fr.Element; e.SetOne(); e.Neg(&e); return e }()
)

// field returns 1 or 0.
func field(b bool) fr.Element {
	if b {
		return one
	}
	return fr.Element{}
}

// lc1 is the combination 1·v.
func lc1(v r1cs.Variable) r1cs.LinearCombination {
	return r1cs.LinearCombination{{Var: v, Coeff: one}}
}

// oneMinus is the combination ONE − v (bellpepper writes lc + ONE − v).
func oneMinus(v r1cs.Variable) r1cs.LinearCombination {
	var lc r1cs.LinearCombination
	lc.Add(r1cs.One)
	lc.Sub(v)
	return lc
}

// Alloc allocates a bit holding value and enforces (1 − a) · a = 0.
func Alloc(cs r1cs.ConstraintSystem, value bool) AllocatedBit {
	v := cs.Alloc(field(value))
	cs.Enforce(oneMinus(v), lc1(v), nil)
	return AllocatedBit{Var: v, Value: value}
}

// AllocConditionally allocates a bit that must be 0 when mustBeFalse is 1:
// (1 − mustBeFalse − a) · a = 0.
func AllocConditionally(cs r1cs.ConstraintSystem, value bool, mustBeFalse AllocatedBit) AllocatedBit {
	v := cs.Alloc(field(value))
	var a r1cs.LinearCombination
	a.Add(r1cs.One)
	a.Sub(mustBeFalse.Var)
	a.Sub(v)
	cs.Enforce(a, lc1(v), nil)
	return AllocatedBit{Var: v, Value: value}
}

// XorBits allocates c = a ⊕ b with (a + a) · b = a + b − c.
func XorBits(cs r1cs.ConstraintSystem, a, b AllocatedBit) AllocatedBit {
	val := a.Value != b.Value
	c := cs.Alloc(field(val))
	var la, lc r1cs.LinearCombination
	la.Add(a.Var)
	la.Add(a.Var)
	lc.Add(a.Var)
	lc.Add(b.Var)
	lc.Sub(c)
	cs.Enforce(la, lc1(b.Var), lc)
	return AllocatedBit{Var: c, Value: val}
}

// AndBits allocates c = a ∧ b with a · b = c.
func AndBits(cs r1cs.ConstraintSystem, a, b AllocatedBit) AllocatedBit {
	val := a.Value && b.Value
	c := cs.Alloc(field(val))
	cs.Enforce(lc1(a.Var), lc1(b.Var), lc1(c))
	return AllocatedBit{Var: c, Value: val}
}

// AndNotBits allocates c = a ∧ ¬b with a · (1 − b) = c.
func AndNotBits(cs r1cs.ConstraintSystem, a, b AllocatedBit) AllocatedBit {
	val := a.Value && !b.Value
	c := cs.Alloc(field(val))
	cs.Enforce(lc1(a.Var), oneMinus(b.Var), lc1(c))
	return AllocatedBit{Var: c, Value: val}
}

// NorBits allocates c = ¬a ∧ ¬b with (1 − a) · (1 − b) = c.
func NorBits(cs r1cs.ConstraintSystem, a, b AllocatedBit) AllocatedBit {
	val := !a.Value && !b.Value
	c := cs.Alloc(field(val))
	cs.Enforce(oneMinus(a.Var), oneMinus(b.Var), lc1(c))
	return AllocatedBit{Var: c, Value: val}
}
