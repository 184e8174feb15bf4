// Package gadgettest holds test helpers for the gadget packages: a
// constraint system that records every constraint so a test can re-check it
// after changing a witness value, and helpers to build systems with ONE
// already allocated.
package gadgettest

import (
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-project/cuzk/r1cs"
)

// Constraint is one recorded row a · b = c.
type Constraint struct{ A, B, C r1cs.LinearCombination }

// Recorder is a ConstraintSystem that keeps the values and the constraints.
// NewRecorder allocates ONE as input 0, as r1cs.Synthesize does.
type Recorder struct {
	Input, Aux  []fr.Element
	Constraints []Constraint
	// Retain keeps the combinations as passed instead of copying them, to
	// check that gadgets never reuse memory they handed to Enforce.
	Retain bool
}

// NewRecorder returns a recorder holding ONE.
func NewRecorder() *Recorder {
	r := &Recorder{}
	var one fr.Element
	one.SetOne()
	r.AllocInput(one)
	return r
}

func (r *Recorder) Alloc(v fr.Element) r1cs.Variable {
	r.Aux = append(r.Aux, v)
	return r1cs.AuxVariable(len(r.Aux) - 1)
}

func (r *Recorder) AllocInput(v fr.Element) r1cs.Variable {
	r.Input = append(r.Input, v)
	return r1cs.InputVariable(len(r.Input) - 1)
}

func (r *Recorder) Enforce(a, b, c r1cs.LinearCombination) {
	if r.Retain {
		r.Constraints = append(r.Constraints, Constraint{a, b, c})
		return
	}
	r.Constraints = append(r.Constraints, Constraint{a.Clone(), b.Clone(), c.Clone()})
}

func (r *Recorder) NumInputs() int      { return len(r.Input) }
func (r *Recorder) NumAux() int         { return len(r.Aux) }
func (r *Recorder) NumConstraints() int { return len(r.Constraints) }

// Unsatisfied returns the first row whose a·b ≠ c under the current values,
// or -1.
func (r *Recorder) Unsatisfied() int {
	for i, c := range r.Constraints {
		a := c.A.Eval(r.Input, r.Aux)
		b := c.B.Eval(r.Input, r.Aux)
		cc := c.C.Eval(r.Input, r.Aux)
		a.Mul(&a, &b)
		if !a.Equal(&cc) {
			return i
		}
	}
	return -1
}

// Value returns the value of v.
func (r *Recorder) Value(v r1cs.Variable) fr.Element {
	if v.IsInput() {
		return r.Input[v.Index()]
	}
	return r.Aux[v.Index()]
}

// Set overwrites the value of v (to tamper with a witness).
func (r *Recorder) Set(v r1cs.Variable, x fr.Element) {
	if v.IsInput() {
		r.Input[v.Index()] = x
		return
	}
	r.Aux[v.Index()] = x
}

// Flip changes the value of v to another one: 0 ↔ 1 for bits, v + 1
// otherwise.
func (r *Recorder) Flip(v r1cs.Variable) {
	x := r.Value(v)
	var one fr.Element
	one.SetOne()
	switch {
	case x.IsZero():
		x.SetOne()
	case x.IsOne():
		x.SetZero()
	default:
		x.Add(&x, &one)
	}
	r.Set(v, x)
}

// NewProver returns a ProvingAssignment holding ONE.
func NewProver() *r1cs.ProvingAssignment {
	p := r1cs.NewProvingAssignment(r1cs.Shape{})
	var one fr.Element
	one.SetOne()
	p.AllocInput(one)
	return p
}

// Tamper wraps a system and replaces the value of the aux allocation number
// Index (0-based, counted in this wrapper) with Value, so a ProvingAssignment
// sees a wrong witness while the gadget computes with the right one.
type Tamper struct {
	r1cs.ConstraintSystem
	Index int
	Value fr.Element
	n     int
}

func (t *Tamper) Alloc(v fr.Element) r1cs.Variable {
	if t.n == t.Index {
		v = t.Value
	}
	t.n++
	return t.ConstraintSystem.Alloc(v)
}

// Fr returns x as a field element.
func Fr(x uint64) fr.Element {
	var e fr.Element
	e.SetUint64(x)
	return e
}
