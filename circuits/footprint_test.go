package circuits

import (
	"testing"

	"github.com/cuzk-project/cuzk/r1cs"
)

// TestWitnessFootprint: the witness-only reservation covers both phases of
// a partition on a device that stages its witness: the dense witness
// beside a dense staging (Prepare), and the inputs, the staging and the B
// split read back for Finish (Run), the split bounded by 36 bytes a value
// and its bitmap (device/cuda's bSplitBytes over every value).
func TestWitnessFootprint(t *testing.T) {
	for _, tc := range []struct {
		name        string
		shape       r1cs.Shape
		wantReserve uint64 // 0: not checked
	}{
		{"empty", r1cs.Shape{}, 0},
		{"2 KiB-like", r1cs.Shape{Inputs: 12, Aux: 30000, Constraints: 40000}, 0},
		{"32 GiB PoRep", r1cs.Shape{Inputs: 328, Aux: 130169893, Constraints: 130278869}, 8867860897},
	} {
		t.Run(tc.name, func(t *testing.T) {
			reserve, dense := witnessFootprint(tc.shape)
			n := uint64(tc.shape.Inputs + tc.shape.Aux)
			if dense != 32*n {
				t.Fatalf("dense %d, want %d", dense, 32*n)
			}
			prepare := 2 * dense
			split := n/8 + 4 + 36*n + 36
			run := 32*uint64(tc.shape.Inputs) + dense + split
			if reserve < prepare || reserve < run {
				t.Fatalf("reserve %d below Prepare's %d or Run's %d", reserve, prepare, run)
			}
			if tc.wantReserve != 0 && reserve != tc.wantReserve {
				t.Fatalf("reserve %d, want %d", reserve, tc.wantReserve)
			}
		})
	}
}
