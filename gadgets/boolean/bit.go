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

// Each gadget builds the three combinations of its constraint in one fresh
// array (from the system's term blocks when it has them, see terms); they
// never share capacity, so a system that keeps them cannot see one
// overwrite another. Under a system that skips constraints nothing is built.

// Alloc allocates a bit holding value and enforces (1 − a) · a = 0.
func Alloc(cs r1cs.ConstraintSystem, value bool) AllocatedBit {
	v := cs.Alloc(field(value))
	if r1cs.SkipsConstraints(cs) {
		cs.Enforce(nil, nil, nil)
		return AllocatedBit{Var: v, Value: value}
	}
	t := terms(cs, 3)
	t[0] = r1cs.Term{Var: r1cs.One, Coeff: one}
	t[1] = r1cs.Term{Var: v, Coeff: minus1}
	t[2] = r1cs.Term{Var: v, Coeff: one}
	cs.Enforce(t[0:2:2], t[2:3:3], nil)
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
	cs.Enforce(a, r1cs.LinearCombination{{Var: v, Coeff: one}}, nil)
	return AllocatedBit{Var: v, Value: value}
}

// XorBits allocates c = a ⊕ b with (a + a) · b = a + b − c.
func XorBits(cs r1cs.ConstraintSystem, a, b AllocatedBit) AllocatedBit {
	val := a.Value != b.Value
	c := cs.Alloc(field(val))
	if r1cs.SkipsConstraints(cs) {
		cs.Enforce(nil, nil, nil)
		return AllocatedBit{Var: c, Value: val}
	}
	t := terms(cs, 5)[:2]
	t[0] = r1cs.Term{Var: a.Var}
	t[0].Coeff.Double(&one)
	t[1] = r1cs.Term{Var: b.Var, Coeff: one}
	lc := r1cs.LinearCombination(t[2:2:5])
	lc.Add(a.Var) // a and b are distinct from the new c; Add keeps order
	lc.Add(b.Var)
	lc.Sub(c)
	cs.Enforce(t[0:1:1], t[1:2:2], lc)
	return AllocatedBit{Var: c, Value: val}
}

// AndBits allocates c = a ∧ b with a · b = c.
func AndBits(cs r1cs.ConstraintSystem, a, b AllocatedBit) AllocatedBit {
	val := a.Value && b.Value
	c := cs.Alloc(field(val))
	if r1cs.SkipsConstraints(cs) {
		cs.Enforce(nil, nil, nil)
		return AllocatedBit{Var: c, Value: val}
	}
	t := terms(cs, 3)
	t[0] = r1cs.Term{Var: a.Var, Coeff: one}
	t[1] = r1cs.Term{Var: b.Var, Coeff: one}
	t[2] = r1cs.Term{Var: c, Coeff: one}
	cs.Enforce(t[0:1:1], t[1:2:2], t[2:3:3])
	return AllocatedBit{Var: c, Value: val}
}

// AndNotBits allocates c = a ∧ ¬b with a · (1 − b) = c.
func AndNotBits(cs r1cs.ConstraintSystem, a, b AllocatedBit) AllocatedBit {
	val := a.Value && !b.Value
	c := cs.Alloc(field(val))
	if r1cs.SkipsConstraints(cs) {
		cs.Enforce(nil, nil, nil)
		return AllocatedBit{Var: c, Value: val}
	}
	t := terms(cs, 4)
	t[0] = r1cs.Term{Var: a.Var, Coeff: one}
	t[1] = r1cs.Term{Var: r1cs.One, Coeff: one}
	t[2] = r1cs.Term{Var: b.Var, Coeff: minus1}
	t[3] = r1cs.Term{Var: c, Coeff: one}
	cs.Enforce(t[0:1:1], t[1:3:3], t[3:4:4])
	return AllocatedBit{Var: c, Value: val}
}

// NorBits allocates c = ¬a ∧ ¬b with (1 − a) · (1 − b) = c.
func NorBits(cs r1cs.ConstraintSystem, a, b AllocatedBit) AllocatedBit {
	val := !a.Value && !b.Value
	c := cs.Alloc(field(val))
	if r1cs.SkipsConstraints(cs) {
		cs.Enforce(nil, nil, nil)
		return AllocatedBit{Var: c, Value: val}
	}
	t := terms(cs, 5)
	t[0] = r1cs.Term{Var: r1cs.One, Coeff: one}
	t[1] = r1cs.Term{Var: a.Var, Coeff: minus1}
	t[2] = r1cs.Term{Var: r1cs.One, Coeff: one}
	t[3] = r1cs.Term{Var: b.Var, Coeff: minus1}
	t[4] = r1cs.Term{Var: c, Coeff: one}
	cs.Enforce(t[0:2:2], t[2:4:4], t[4:5:5])
	return AllocatedBit{Var: c, Value: val}
}
