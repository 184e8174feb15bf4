package porep

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-project/cuzk/circuits/internal/circuittest"
	"github.com/cuzk-project/cuzk/filecoin"
	"github.com/cuzk-project/cuzk/filecoin/gen"
	hmerkle "github.com/cuzk-project/cuzk/hash/merkle"
	"github.com/cuzk-project/cuzk/r1cs"
)

// The witness of whole partitions (the gadgets' witness-only paths, and
// Witness with its concurrent challenges) against bellperson's prover
// assignment (the generic gadgets): inputs and aux bit for bit, and the
// same row count.
func TestWitness(t *testing.T) {
	five := config2KiB
	five.Challenges = 5
	tests := []struct {
		name  string
		part  func(t *testing.T) *Partition
		short bool
	}{
		{"2KiB", func(t *testing.T) *Partition { return newInstance(t, config2KiB, 4).part }, true},
		{"fixture-8-4-2 (one challenge)", func(t *testing.T) *Partition {
			return newInstance(t, fixture(hmerkle.Shape{Base: 8, Sub: 4, Top: 2}, 6), 5).part
		}, false},
		{"2KiB with 5 challenges", func(t *testing.T) *Partition { return newInstance(t, five, 6).part }, false},
		{"generated 2KiB C1, partition 0", func(t *testing.T) *Partition {
			pr, err := gen.GeneratePoRep(context.Background(), gen.PoRepOptions{Proof: filecoin.StackedDrg2KiBV1_1, Seed: 13, Miner: 1000, Sector: 9}, nil)
			if err != nil {
				t.Fatal(err)
			}
			p, err := NewPartition(pr.Output, 0)
			if err != nil {
				t.Fatal(err)
			}
			return p
		}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if !tc.short && testing.Short() {
				t.Skip("run without -short")
			}
			part := tc.part(t)
			pa := r1cs.NewProvingAssignment(r1cs.Shape{})
			if err := r1cs.Synthesize(pa, part); err != nil {
				t.Fatal(err)
			}
			seq := &r1cs.WitnessAssignment{}
			if err := r1cs.Synthesize(seq, part); err != nil {
				t.Fatal(err)
			}
			circuittest.SameWitness(t, "r1cs.Synthesize", pa, seq)
			for _, workers := range []int{1, 2, 3, 16} {
				w, err := part.Witness(workers)
				if err != nil {
					t.Fatalf("%d workers: %v", workers, err)
				}
				circuittest.SameWitness(t, fmt.Sprintf("Witness(%d)", workers), pa, w)
			}
			// A reused witness with stale values and room to spare.
			junk := &r1cs.WitnessAssignment{
				Input: make([]fr.Element, 3, len(pa.Input)+5), Aux: make([]fr.Element, 7, len(pa.Aux)+9),
				Constraints: 11, AuxBase: 13,
			}
			full := junk.Aux[:cap(junk.Aux)]
			for i := range full {
				full[i].SetUint64(uint64(i) + 2)
			}
			if err := part.WitnessInto(junk, 2); err != nil {
				t.Fatal(err)
			}
			circuittest.SameWitness(t, "WitnessInto(reused, 2)", pa, junk)
			if &junk.Aux[0] != &full[0] {
				t.Fatal("WitnessInto did not reuse the aux vector")
			}
		})
	}
}

func TestWitnessErrors(t *testing.T) {
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	tests := []struct {
		name string
		f    func(p *Partition)
		want error
	}{
		{"cancelled", func(p *Partition) { p.Ctx = cancelled }, context.Canceled},
		{"missing challenge", func(p *Partition) { p.Challenges = p.Challenges[:1] }, ErrShape},
		{"short column", func(p *Partition) { p.Challenges[1].DRG[2].Rows = p.Challenges[1].DRG[2].Rows[:1] }, ErrShape},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := BlankConfig(config2KiB)
			p.Challenges = append([]Challenge(nil), p.Challenges...)
			tc.f(p)
			for _, workers := range []int{1, 4} {
				if _, err := p.Witness(workers); !errors.Is(err, tc.want) {
					t.Fatalf("%d workers: err = %v, want %v", workers, err, tc.want)
				}
				w := &r1cs.WitnessAssignment{Aux: make([]fr.Element, 5)}
				if err := p.WitnessInto(w, workers); !errors.Is(err, tc.want) || len(w.Aux) != 0 || len(w.Input) != 0 || w.Constraints != 0 {
					t.Fatalf("%d workers, WitnessInto: err = %v (want %v), %d aux and %d rows left", workers, err, tc.want, len(w.Aux), w.Constraints)
				}
			}
		})
	}
}
