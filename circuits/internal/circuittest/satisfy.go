package circuittest

import (
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-project/cuzk/r1cs"
)

// Prove synthesizes c into a prover assignment, fails t unless every row
// holds, and returns the inputs it allocated (ONE first).
func Prove(t testing.TB, c r1cs.Circuit) []fr.Element {
	t.Helper()
	pa := r1cs.NewProvingAssignment(r1cs.Shape{})
	if err := r1cs.Synthesize(pa, c); err != nil {
		t.Fatal(err)
	}
	if row := pa.IsSatisfied(); row >= 0 {
		t.Fatalf("row %d of %d not satisfied", row, pa.NumConstraints())
	}
	return pa.Input
}

// Check is Prove through an r1cs.Checker, which keeps the witness alone.
func Check(t testing.TB, c r1cs.Circuit) []fr.Element {
	t.Helper()
	var ch r1cs.Checker
	if err := r1cs.Synthesize(&ch, c); err != nil {
		t.Fatal(err)
	}
	if !ch.Satisfied() {
		t.Fatalf("row %d of %d not satisfied (%d unsatisfied)", ch.FirstUnsatisfied(), ch.NumConstraints(), ch.Unsatisfied())
	}
	return ch.Input
}

// Tampered fails t when every row of c holds: a partition with one value
// changed must break some row.
func Tampered(t testing.TB, c r1cs.Circuit) {
	t.Helper()
	var ch r1cs.Checker
	if err := r1cs.Synthesize(&ch, c); err != nil {
		t.Fatal(err)
	}
	if ch.Satisfied() {
		t.Fatal("tampered partition is satisfied")
	}
}

// Inputs checks that a synthesis allocated ONE and then want.
func Inputs(t testing.TB, got, want []fr.Element) {
	t.Helper()
	if len(got) != len(want)+1 {
		t.Fatalf("%d inputs with ONE, want %d", len(got), len(want)+1)
	}
	if !got[0].IsOne() {
		t.Errorf("input 0 = %v, want ONE", got[0].String())
	}
	for i := range want {
		if !got[i+1].Equal(&want[i]) {
			t.Errorf("input %d = %s, want %s", i+1, got[i+1].String(), want[i].String())
		}
	}
}
