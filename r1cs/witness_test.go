package r1cs

import (
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// A batch names the same variables and holds the same values as Alloc one
// by one, with or without a base, and counts the same rows.
func TestWitnessBatches(t *testing.T) {
	tests := []struct {
		name          string
		inBase, base  int
		batches       []int // negative: that many single Allocs
		capacity      int
		wantVariables int
	}{
		{"empty", 0, 0, nil, 0, 0},
		{"singles", 0, 0, []int{-3}, 0, 3},
		{"batches and singles", 0, 0, []int{5, -2, 0, 7, -1}, 0, 15},
		{"in place within capacity", 0, 0, []int{4, 4, -4}, 12, 12},
		{"window", 3, 100, []int{2, -3, 6}, 11, 11},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			one := &WitnessAssignment{InputBase: tc.inBase, AuxBase: tc.base}
			batch := &WitnessAssignment{InputBase: tc.inBase, AuxBase: tc.base, Aux: make([]fr.Element, 0, tc.capacity)}
			backing := batch.Aux[:cap(batch.Aux)]
			var vOne, vBatch []Variable
			val := uint64(1)
			for _, n := range tc.batches {
				if n < 0 {
					for range -n {
						var v fr.Element
						v.SetUint64(val)
						val++
						vOne = append(vOne, one.Alloc(v))
						one.Enforce(nil, nil, nil)
						vBatch = append(vBatch, batch.Alloc(v))
						batch.Enforce(nil, nil, nil)
					}
					continue
				}
				first, vals := batch.AllocAuxBatch(n)
				if len(vals) != n || cap(vals) != n {
					t.Fatalf("batch of %d: len %d cap %d", n, len(vals), cap(vals))
				}
				for k := range vals {
					vals[k].SetUint64(val)
					vOne = append(vOne, one.Alloc(vals[k]))
					one.Enforce(nil, nil, nil)
					vBatch = append(vBatch, first+Variable(k))
					val++
				}
				batch.EnforceSkipped(n)
			}
			if len(vOne) != tc.wantVariables || batch.NumAux() != tc.base+tc.wantVariables || one.NumAux() != batch.NumAux() {
				t.Fatalf("%d variables, NumAux %d / %d, want %d + %d", len(vOne), one.NumAux(), batch.NumAux(), tc.base, tc.wantVariables)
			}
			for i := range vOne {
				if vOne[i] != vBatch[i] || vOne[i] != AuxVariable(tc.base+i) {
					t.Fatalf("variable %d: %v one by one, %v batched, want %v", i, vOne[i], vBatch[i], AuxVariable(tc.base+i))
				}
				if one.Aux[i] != batch.Aux[i] {
					t.Fatalf("value %d differs", i)
				}
			}
			if one.Constraints != batch.Constraints || batch.Constraints != tc.wantVariables {
				t.Fatalf("rows %d one by one, %d batched, want %d", one.Constraints, batch.Constraints, tc.wantVariables)
			}
			if tc.capacity > 0 && len(batch.Aux) > 0 && &batch.Aux[0] != &backing[0] {
				t.Fatal("batches within capacity moved the values")
			}
			if in := batch.AllocInput(fr.One()); in != InputVariable(tc.inBase) || batch.NumInputs() != tc.inBase+1 {
				t.Fatalf("input %v, NumInputs %d; want %v, %d", in, batch.NumInputs(), InputVariable(tc.inBase), tc.inBase+1)
			}
		})
	}
	if _, ok := AsAuxBatcher(&WitnessAssignment{}); !ok {
		t.Fatal("WitnessAssignment is not an AuxBatcher")
	}
	if _, ok := AsAuxBatcher(NewProvingAssignment(Shape{})); ok {
		t.Fatal("ProvingAssignment is an AuxBatcher")
	}
}
