package update

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/cuzk-project/cuzk/filecoin/gen"
	fupdate "github.com/cuzk-project/cuzk/filecoin/update"
	"github.com/cuzk-project/cuzk/r1cs"
)

// TestConfigFor checks the registered proofs' parameters against the
// configuration's.
func TestConfigFor(t *testing.T) {
	for _, p := range fupdate.Proofs() {
		info, err := p.Info()
		if err != nil {
			t.Fatal(err)
		}
		c := ConfigFor(info)
		if err := c.Validate(); err != nil {
			t.Fatalf("%v: %v", p, err)
		}
		if c.Partitions() != info.Partitions || c.Challenges() != info.Challenges || c.ApexLeaves() != info.ApexLeaves ||
			c.Hs() != info.Hs || c.DefaultH() != info.H || c.HSelect(info.H) != info.HSelect ||
			c.ChallengesPerDigest() != info.ChallengesPerDigest() || c.Digests() != info.DigestsPerPartition() {
			t.Errorf("%v: config %+v disagrees with %+v", p, c, info)
		}
		for k := range info.Partitions {
			if c.KAndHSelect(k, info.H) != info.KAndHSelect(k) {
				t.Errorf("%v partition %d: k_and_h_select %d, want %d", p, k, c.KAndHSelect(k, info.H), info.KAndHSelect(k))
			}
		}
	}
}

func TestGenerated(t *testing.T) {
	for _, tc := range []struct {
		proof      fupdate.Proof
		partitions []int
		large      bool
	}{
		{fupdate.StackedDrg2KiBV1, []int{0}, false},
		{fupdate.StackedDrg8MiBV1, []int{0, 3}, true},
	} {
		t.Run(tc.proof.String(), func(t *testing.T) {
			if tc.large && testing.Short() {
				t.Skip("run without -short")
			}
			s, err := gen.GenerateSnap(context.Background(), gen.SnapOptions{Proof: tc.proof, Seed: 11, Miner: 1000, Sector: 3})
			if err != nil {
				t.Fatal(err)
			}
			for _, k := range tc.partitions {
				v := s.Partition(k)
				if err := v.Verify(); err != nil {
					t.Fatal(err)
				}
				want, err := v.PublicInputs()
				if err != nil {
					t.Fatal(err)
				}
				p, err := NewPartition(v)
				if err != nil {
					t.Fatal(err)
				}
				var c r1cs.Checker
				if err := r1cs.Synthesize(&c, p); err != nil {
					t.Fatal(err)
				}
				if !c.Satisfied() {
					t.Fatalf("partition %d: row %d of %d not satisfied", k, c.FirstUnsatisfied(), c.NumConstraints())
				}
				if len(c.Input) != len(want)+1 {
					t.Fatalf("%d inputs with ONE, want %d", len(c.Input), len(want)+1)
				}
				for i := range want {
					if !c.Input[i+1].Equal(&want[i]) {
						t.Errorf("partition %d input %d = %s, want %s", k, i+1, c.Input[i+1].String(), want[i].String())
					}
				}
				p.Challenges[len(p.Challenges)-1].LeafDNew.SetUint64(7)
				var bad r1cs.Checker
				if err := r1cs.Synthesize(&bad, p); err != nil {
					t.Fatal(err)
				}
				if bad.Satisfied() {
					t.Errorf("partition %d: tampered leaf_d_new satisfies", k)
				}
			}
		})
	}
}

// TestNewPartitionErrors feeds NewPartition vanilla partitions that do not
// fit the circuit.
func TestNewPartitionErrors(t *testing.T) {
	s, err := gen.GenerateSnap(context.Background(), gen.SnapOptions{Proof: fupdate.StackedDrg2KiBV1, Seed: 12})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		f    func(v *fupdate.Partition)
		want string
	}{
		{"no proof", func(v *fupdate.Partition) { v.Proof = nil }, "no challenge proofs"},
		{"partition out of range", func(v *fupdate.Partition) { v.K = 1 }, "partition 1 of 1"},
		{"missing challenge", func(v *fupdate.Partition) { v.Proof.Challenges = v.Proof.Challenges[:9] }, "9 challenges"},
		{"apex leaves", func(v *fupdate.Partition) { v.Proof.ApexLeaves = v.Proof.ApexLeaves[:7] }, "7 apex leaves"},
		{"non-canonical comm_r_new", func(v *fupdate.Partition) { v.CommRNew[31] = 0xff }, "comm_r_new"},
		{"short tree D path", func(v *fupdate.Partition) {
			v.Proof.Challenges[2].DNew.Base = v.Proof.Challenges[2].DNew.Base[:5]
		}, "tree D path of 5 levels"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := s.Partition(0)
			cp := *v.Proof
			cp.Challenges = append([]fupdate.ChallengeProof(nil), cp.Challenges...)
			v.Proof = &cp
			tc.f(v)
			_, err := NewPartition(v)
			if !errors.Is(err, fupdate.ErrBadVanillaProof) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want ErrBadVanillaProof mentioning %q", err, tc.want)
			}
		})
	}
}
