package c1

import (
	"errors"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cuzk-project/cuzk/filecoin"
	"github.com/cuzk-project/cuzk/hash"
)

var (
	sealed2KiBOnce sync.Once
	sealed2KiB     *sealed
)

func sealed2KiBV1_1(t testing.TB) *sealed {
	sealed2KiBOnce.Do(func() { sealed2KiB = seal(t, filecoin.StackedDrg2KiBV1_1, rand.New(rand.NewPCG(21, 1))) })
	return sealed2KiB
}

// TestVerify: C1 outputs of sectors sealed in memory verify, for every
// feature and both graph versions, and survive a JSON round trip.
func TestVerify(t *testing.T) {
	for _, p := range []filecoin.SealProof{filecoin.StackedDrg2KiBV1, filecoin.StackedDrg2KiBV1_1,
		filecoin.StackedDrg2KiBV1_1_Feat_SyntheticPoRep, filecoin.StackedDrg2KiBV1_2_Feat_NonInteractivePoRep} {
		t.Run(p.String(), func(t *testing.T) {
			s := seal(t, p, rand.New(rand.NewPCG(uint64(p), 2)))
			o := s.output(t, hash.Domain{9, 8, 7, 6, 5})
			if err := Verify(o); err != nil {
				t.Fatal(err)
			}
			d, err := Decode(mustMarshal(t, o))
			if err != nil {
				t.Fatal(err)
			}
			if err := Verify(d); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestVerifyRejects: each tampering is caught, named by partition,
// challenge and field, and wraps ErrBadVanillaProof.
func TestVerifyRejects(t *testing.T) {
	s := sealed2KiBV1_1(t)
	good := mustMarshal(t, s.output(t, hash.Domain{1, 1, 2, 3, 5, 8}))
	fresh := func() *Output {
		o, err := Decode(good)
		if err != nil {
			t.Fatal(err)
		}
		return o
	}
	if err := Verify(fresh()); err != nil {
		t.Fatal(err)
	}
	var nonCanonical hash.Domain
	for i := range nonCanonical {
		nonCanonical[i] = 0xff
	}
	flip := func(d *hash.Domain) { d[0] ^= 1 }
	for _, c := range []struct {
		name   string
		tamper func(o *Output)
		want   string
	}{
		{"flipped label row", func(o *Output) { flip(&o.Partitions[0][1].ReplicaColumnProofs.CX.Rows[0]) },
			"partition 0 challenge 1: replica_column_proofs.c_x.inclusion_proof.leaf"},
		{"flipped parent row", func(o *Output) { flip(&o.Partitions[0][0].ReplicaColumnProofs.DRGParents[3].Rows[1]) },
			"partition 0 challenge 0: replica_column_proofs.drg_parents[3].inclusion_proof.leaf"},
		{"wrong sibling", func(o *Output) { flip(&o.Partitions[0][0].CommRLastProof.Base[1].Siblings[2]) },
			"partition 0 challenge 0: comm_r_last_proof: the path hashes to"},
		{"wrong sibling near the root in a later proof", func(o *Output) {
			b := o.Partitions[0][1].ReplicaColumnProofs.ExpParents[6].Inclusion.Base
			flip(&b[len(b)-1].Siblings[6])
		}, "partition 0 challenge 1: replica_column_proofs.exp_parents[6].inclusion_proof: the path hashes to"},
		{"wrong comm_d sibling", func(o *Output) { flip(&o.Partitions[0][1].CommDProofs.Base[4].Siblings[0]) },
			"partition 0 challenge 1: comm_d_proofs: the path hashes to"},
		{"wrong column index", func(o *Output) { o.Partitions[0][0].ReplicaColumnProofs.ExpParents[5].Index ^= 1 },
			"partition 0 challenge 0: replica_column_proofs.exp_parents[5].column.index"},
		{"columns swapped", func(o *Output) {
			r := &o.Partitions[0][1].ReplicaColumnProofs
			r.ExpParents[0], r.ExpParents[7] = r.ExpParents[7], r.ExpParents[0]
		}, "partition 0 challenge 1: replica_column_proofs.exp_parents[0].column.index"},
		{"challenge not from the seed", func(o *Output) { o.Seed[5] ^= 1 }, "partition 0 challenge 0: comm_d_proofs: opens node"},
		{"proofs swapped", func(o *Output) { p := o.Partitions[0]; p[0], p[1] = p[1], p[0] }, "partition 0 challenge 0: comm_d_proofs: opens node"},
		{"wrong comm_r", func(o *Output) { flip(&o.CommR) }, "comm_r: "},
		{"wrong comm_d", func(o *Output) { flip(&o.CommD) }, "partition 0 challenge 0: comm_d_proofs.root"},
		{"wrong comm_r_last in a later proof", func(o *Output) { flip(&o.Partitions[0][1].CommRLastProof.Root) },
			"partition 0 challenge 1: comm_r_last_proof.root"},
		{"wrong comm_c in a later column", func(o *Output) {
			flip(&o.Partitions[0][1].ReplicaColumnProofs.DRGParents[0].Inclusion.Root)
		}, "partition 0 challenge 1: replica_column_proofs.drg_parents[0].inclusion_proof.root"},
		{"labeling parent", func(o *Output) { flip(&o.Partitions[0][0].LabelingProofs[1].Parents[20]) },
			"partition 0 challenge 0: labeling_proofs[1].parents[20]"},
		{"labeling node", func(o *Output) { o.Partitions[0][1].LabelingProofs[0].Node++ },
			"partition 0 challenge 1: labeling_proofs[0].node"},
		{"labeling layer", func(o *Output) { o.Partitions[0][1].LabelingProofs[1].LayerIndex = 1 },
			"partition 0 challenge 1: labeling_proofs[1].layer_index: 1, want 2"},
		{"encoding parent", func(o *Output) { flip(&o.Partitions[0][0].EncodingProof.Parents[36]) },
			"partition 0 challenge 0: encoding_proof.parents[36]"},
		{"encoding node", func(o *Output) { o.Partitions[0][0].EncodingProof.Node = 0 },
			"partition 0 challenge 0: encoding_proof.node"},
		{"replica leaf", func(o *Output) { flip(&o.Partitions[0][1].CommRLastProof.Leaf) },
			"partition 0 challenge 1: comm_r_last_proof"},
		{"data leaf", func(o *Output) { flip(&o.Partitions[0][1].CommDProofs.Leaf) },
			"partition 0 challenge 1: comm_d_proofs: the path hashes to"},
		{"zero seed", func(o *Output) { o.Seed = hash.Domain{} }, "seed: all zero"},
		{"zero comm_d", func(o *Output) { o.CommD = hash.Domain{} }, "comm_d: all zero"},
		{"non-canonical domain", func(o *Output) { o.Partitions[0][0].ReplicaColumnProofs.CX.Rows[1] = nonCanonical },
			"partition 0 challenge 0: replica_column_proofs.c_x.column.rows[1]: ffff"},
		{"non-canonical comm_r", func(o *Output) { o.CommR = nonCanonical }, "comm_r: ffff"},
		{"truncated partition list", func(o *Output) { o.Partitions = o.Partitions[:0] }, "0 partitions, want 1"},
		{"wrong registered proof", func(o *Output) {
			o.RegisteredProof, o.VanillaKey = "StackedDrg2KiBV1", "StackedDrg2KiBV1"
		}, "partition 0 challenge 0: replica_column_proofs.drg_parents"},
	} {
		t.Run(c.name, func(t *testing.T) {
			o := fresh()
			c.tamper(o)
			err := Verify(o)
			if err == nil {
				t.Fatal("verified")
			}
			if !errors.Is(err, ErrBadVanillaProof) {
				t.Fatalf("%v does not wrap ErrBadVanillaProof", err)
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %q does not contain %q", err, c.want)
			}
		})
	}
}

// TestVerifyLabel: a sector whose tree C commits to a wrong label (the
// openings all hold) is caught by recomputing the label from the parents.
func TestVerifyLabel(t *testing.T) {
	s := *sealed2KiBV1_1(t)
	seed := hash.Domain{4, 4, 4}
	c := s.output(t, seed).Partitions[0][1].Challenge()
	s.rows = append([][]hash.Domain(nil), s.rows...)
	s.rows[c] = append([]hash.Domain(nil), s.rows[c]...)
	s.rows[c][0][3] ^= 0x10
	s.buildTreeC(t)
	err := Verify(s.output(t, seed))
	want := "partition 0 challenge 1: replica_column_proofs.c_x.column.rows[0]: "
	if !errors.Is(err, ErrBadVanillaProof) || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "label of layer 1") {
		t.Fatalf("got %v, want %q", err, want)
	}
}

// TestVerifyRandom32GiB: a 32 GiB-shaped output of random values is
// rejected at comm_r, before any challenge is derived.
func TestVerifyRandom32GiB(t *testing.T) {
	if testing.Short() {
		t.Skip("32 GiB-shaped output")
	}
	o := randomOutput(t, filecoin.StackedDrg32GiBV1_1, 4)
	start := time.Now()
	err := Verify(o)
	if !errors.Is(err, ErrBadVanillaProof) || !strings.Contains(err.Error(), "comm_r") {
		t.Fatalf("got %v", err)
	}
	t.Logf("rejected in %v", time.Since(start))
}
