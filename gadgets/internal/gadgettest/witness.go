package gadgettest

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-project/cuzk/r1cs"
)

// SkippingSystem is a WitnessAssignment seen only as a constraint-skipping
// ConstraintSystem: gadgets take their generic skip path (Enforce(nil, nil,
// nil), one Alloc per value), not the batched witness-only one.
type SkippingSystem struct{ W *r1cs.WitnessAssignment }

func (s SkippingSystem) Alloc(v fr.Element) r1cs.Variable       { return s.W.Alloc(v) }
func (s SkippingSystem) AllocInput(v fr.Element) r1cs.Variable  { return s.W.AllocInput(v) }
func (s SkippingSystem) Enforce(a, b, c r1cs.LinearCombination) { s.W.Enforce(a, b, c) }
func (s SkippingSystem) SkipsConstraints() bool                 { return true }

// SameWitness runs build on three systems, each holding ONE: a
// ProvingAssignment (the generic gadgets, linear combinations built), a
// WitnessAssignment behind SkippingSystem (the generic skip path) and a
// plain WitnessAssignment (the witness-only paths). The inputs, the aux
// values, the row counts and what build returns (variables, values and
// kinds) must be equal bit for bit. It returns the prover assignment.
func SameWitness(t testing.TB, build func(cs r1cs.ConstraintSystem) any) *r1cs.ProvingAssignment {
	t.Helper()
	p := NewProver()
	want := build(p)

	var skip, fast r1cs.WitnessAssignment
	skip.AllocInput(fr.One())
	fast.AllocInput(fr.One())
	systems := []struct {
		name string
		cs   r1cs.ConstraintSystem
		w    *r1cs.WitnessAssignment
	}{{"generic skip path", SkippingSystem{&skip}, &skip}, {"witness-only path", &fast, &fast}}
	for _, s := range systems {
		got := build(s.cs)
		if err := sameValues("input", p.Input, s.w.Input); err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		if err := sameValues("aux", p.Aux, s.w.Aux); err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		if s.w.Constraints != p.NumConstraints() {
			t.Fatalf("%s: %d rows, prover %d", s.name, s.w.Constraints, p.NumConstraints())
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%s: returned %v\nprover returned %v", s.name, got, want)
		}
	}
	return p
}

func sameValues(what string, want, got []fr.Element) error {
	if len(got) != len(want) {
		return fmt.Errorf("%d %s values, prover %d", len(got), what, len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			return fmt.Errorf("%s[%d] = %s, prover %s", what, i, got[i].String(), want[i].String())
		}
	}
	return nil
}
