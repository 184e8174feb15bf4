package circuittest

import (
	"fmt"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-project/cuzk/r1cs"
)

// Witness checks a circuit's concurrent witness-only synthesis against
// bellperson's prover assignment of c (the generic gadgets): for several
// worker counts the inputs and aux bit for bit, and the same row count.
func Witness(t *testing.T, c r1cs.Circuit, witness func(workers int) (*r1cs.WitnessAssignment, error)) {
	t.Helper()
	pa := r1cs.NewProvingAssignment(r1cs.Shape{})
	if err := r1cs.Synthesize(pa, c); err != nil {
		t.Fatal(err)
	}
	for _, workers := range []int{1, 2, 3, 16} {
		w, err := witness(workers)
		if err != nil {
			t.Fatalf("%d workers: %v", workers, err)
		}
		SameWitness(t, fmt.Sprintf("%d workers", workers), pa, w)
	}
}

// SameWitness fails unless w holds pa's inputs, aux values and row count.
func SameWitness(t *testing.T, what string, pa *r1cs.ProvingAssignment, w *r1cs.WitnessAssignment) {
	t.Helper()
	if w.NumConstraints() != pa.NumConstraints() {
		t.Fatalf("%s: %d rows, prover %d", what, w.NumConstraints(), pa.NumConstraints())
	}
	for _, v := range []struct {
		name      string
		got, want []fr.Element
	}{{"input", w.Input, pa.Input}, {"aux", w.Aux, pa.Aux}} {
		if len(v.got) != len(v.want) {
			t.Fatalf("%s: %d %s values, prover %d", what, len(v.got), v.name, len(v.want))
		}
		for i := range v.want {
			if v.got[i] != v.want[i] {
				t.Fatalf("%s: %s[%d] = %s, prover %s", what, v.name, i, v.got[i].String(), v.want[i].String())
			}
		}
	}
}
