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

// WitnessReused checks a circuit's WitnessInto against bellperson's
// prover assignment of c, into a witness with stale values in every slot
// and room to spare: the same values and rows, in the vector it was given.
func WitnessReused(t *testing.T, c r1cs.Circuit, into func(w *r1cs.WitnessAssignment, workers int) error) {
	t.Helper()
	pa := r1cs.NewProvingAssignment(r1cs.Shape{})
	if err := r1cs.Synthesize(pa, c); err != nil {
		t.Fatal(err)
	}
	junk := &r1cs.WitnessAssignment{
		Input: make([]fr.Element, 3, len(pa.Input)+5), Aux: make([]fr.Element, 7, len(pa.Aux)+9),
		Constraints: 11, InputBase: 2, AuxBase: 13,
	}
	full := junk.Aux[:cap(junk.Aux)]
	for i := range full {
		full[i].SetUint64(uint64(i) + 2)
	}
	if err := into(junk, 2); err != nil {
		t.Fatal(err)
	}
	SameWitness(t, "into a reused witness", pa, junk)
	if &junk.Aux[0] != &full[0] {
		t.Fatal("the aux vector was not reused")
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
