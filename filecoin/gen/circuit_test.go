package gen

import (
	"testing"

	"github.com/cuzk-project/cuzk/circuits/porep"
	"github.com/cuzk-project/cuzk/filecoin"
	"github.com/cuzk-project/cuzk/r1cs"
)

// TestCircuitSatisfied synthesizes every partition of generated C1s with
// the values the vanilla proofs give and requires every row to hold: the
// generator's output is what C2 can prove.
func TestCircuitSatisfied(t *testing.T) {
	if testing.Short() {
		t.Skip("a 2 KiB partition is 2.7 M constraints")
	}
	for _, proof := range []filecoin.SealProof{
		filecoin.StackedDrg2KiBV1_1,
		filecoin.StackedDrg2KiBV1_1_Feat_SyntheticPoRep,
	} {
		p := generateT(t, PoRepOptions{Proof: proof, Seed: 5, Miner: 1000, Sector: 1})
		for k := range p.Output.Partitions {
			part, err := porep.NewPartition(p.Output, k)
			if err != nil {
				t.Fatal(err)
			}
			cs := r1cs.NewChecker(r1cs.Shape{})
			if err := r1cs.Synthesize(cs, part); err != nil {
				t.Fatal(err)
			}
			if !cs.Satisfied() {
				t.Fatalf("%s partition %d: row %d of %d unsatisfied (%d in all)", proof, k, cs.FirstUnsatisfied(), cs.NumConstraints(), cs.Unsatisfied())
			}
			t.Logf("%s partition %d: %d rows hold", proof, k, cs.NumConstraints())
		}
	}

	// The check can fail: one chosen label changed breaks the challenge's
	// label and the column's opening.
	p := generateT(t, PoRepOptions{Proof: filecoin.StackedDrg2KiBV1_1, Seed: 5})
	p.Output.Partitions[0][0].ReplicaColumnProofs.DRGParents[2].Rows[0][0] ^= 1
	part, err := porep.NewPartition(p.Output, 0)
	if err != nil {
		t.Fatal(err)
	}
	cs := r1cs.NewChecker(r1cs.Shape{})
	if err := r1cs.Synthesize(cs, part); err != nil {
		t.Fatal(err)
	}
	if cs.Satisfied() {
		t.Fatal("a changed parent label leaves the circuit satisfied")
	}
}
