package post

import (
	"fmt"
	"slices"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	hmerkle "github.com/cuzk-project/cuzk/hash/merkle"
	"github.com/cuzk-project/cuzk/r1cs"
)

// TestAssign checks the parallel synthesis against the sequential one,
// value for value, for chunkings that divide the sectors evenly, unevenly
// and one sector per chunk, with repeated sectors, and on a blank partition.
func TestAssign(t *testing.T) {
	seven := fixture(hmerkle.Shape{Base: 8, Sub: 4}, 7)
	parts := []struct {
		name string
		part *Partition
	}{
		{"7-sectors", newInstance(t, seven, 7, 3).part},
		{"7-sectors-4-given", newInstance(t, seven, 4, 4).part},
		{"winning-2KiB", newInstance(t, WinningConfig(1<<6, hmerkle.Shape{Base: 8}), 66, 5).part},
		{"window-512MiB-blank", BlankConfig(WindowConfig(1<<24, hmerkle.Shape{Base: 8}))},
	}
	for _, pc := range parts {
		shape, err := pc.part.Config.Shape()
		if err != nil {
			t.Fatal(err)
		}
		want := r1cs.NewProvingAssignment(shape)
		if err := r1cs.Synthesize(want, pc.part); err != nil {
			t.Fatal(err)
		}
		for _, workers := range []int{1, 2, 3, 7, 100} {
			t.Run(fmt.Sprintf("%s/%d", pc.name, workers), func(t *testing.T) {
				got, err := pc.part.Assign(workers)
				if err != nil {
					t.Fatal(err)
				}
				for _, v := range []struct {
					name      string
					got, want []fr.Element
				}{{"a", got.A, want.A}, {"b", got.B, want.B}, {"c", got.C, want.C},
					{"input", got.Input, want.Input}, {"aux", got.Aux, want.Aux}} {
					if !slices.Equal(v.got, v.want) {
						t.Errorf("%s differs (%d vs %d values)", v.name, len(v.got), len(v.want))
					}
				}
				for _, d := range []struct {
					name      string
					got, want r1cs.Bitmap
				}{{"a_aux", got.ADensityAux, want.ADensityAux}, {"b_aux", got.BDensityAux, want.BDensityAux},
					{"b_input", got.BDensityInput, want.BDensityInput}} {
					if d.got.N != d.want.N || !slices.Equal(d.got.Words, d.want.Words) {
						t.Errorf("%s density differs (%d vs %d bits, %d vs %d set)", d.name, d.got.N, d.want.N,
							d.got.PopCount(), d.want.PopCount())
					}
				}
				if got.IsSatisfied() != want.IsSatisfied() {
					t.Errorf("satisfied at %d, sequential %d", got.IsSatisfied(), want.IsSatisfied())
				}
			})
		}
	}
}
