package groth16

import (
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-project/cuzk/r1cs/compiled"
)

// TestReleaseWitness: only a witness-only assignment loses its aux, and
// its inputs stay.
func TestReleaseWitness(t *testing.T) {
	sys := &compiled.System{NumInputs: 1, NumAux: 2, NumConstraints: 1}
	for _, tc := range []struct {
		name    string
		a       *Assignment
		wantAux bool
	}{
		{"witness-only", &Assignment{System: sys}, false},
		{"evaluated", &Assignment{System: sys, A: make([]fr.Element, 1)}, true},
		{"synthesized", &Assignment{A: make([]fr.Element, 1)}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.a.Input, tc.a.Aux = make([]fr.Element, 1), make([]fr.Element, 2)
			tc.a.ReleaseWitness()
			if (tc.a.Aux != nil) != tc.wantAux {
				t.Fatalf("aux kept %v, want %v", tc.a.Aux != nil, tc.wantAux)
			}
			if len(tc.a.Input) != 1 {
				t.Fatal("the inputs went too")
			}
		})
	}
}
