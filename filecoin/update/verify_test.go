package update_test

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-project/cuzk/filecoin/update"
	"github.com/cuzk-project/cuzk/hash"
)

// TestGenerated: filecoin/gen's updates verify partition by partition,
// their bincode decodes to the same proofs and re-encodes to the same
// bytes, and the public inputs are k_and_h_select and the comms.
func TestGenerated(t *testing.T) {
	for _, p := range update.Proofs() {
		t.Run(p.String(), func(t *testing.T) {
			t0 := time.Now()
			s := generated(t, p)
			t1 := time.Now()
			info := s.Info
			for k := range info.Partitions {
				if err := s.Partition(k).Verify(); err != nil {
					t.Fatal(err)
				}
				d, err := update.DecodePartitionProof(s.VanillaProofs[k], info)
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(d, s.Partitions[k]) {
					t.Fatalf("partition %d: decoded proof differs", k)
				}
				b, err := d.MarshalBinary()
				if err != nil || !bytes.Equal(b, s.VanillaProofs[k]) {
					t.Fatalf("partition %d: re-encoding differs (%v)", k, err)
				}
				in, err := s.Partition(k).PublicInputs()
				if err != nil {
					t.Fatal(err)
				}
				var want [4]fr.Element
				want[0].SetUint64(info.KAndHSelect(k))
				for j, c := range []hash.Domain{s.CommROld, s.CommDNew, s.CommRNew} {
					want[j+1], _ = c.Element()
				}
				if [4]fr.Element(in) != want {
					t.Fatalf("partition %d: public inputs %v", k, in)
				}
			}
			t.Logf("%v: generated in %v (structured %v), %d partitions of %d bytes verified in %v",
				p, t1.Sub(t0), s.Structured, info.Partitions, len(s.VanillaProofs[0]), time.Since(t1))
		})
	}
}

// TestEncodedSize: the bincode length is the layout's (561,768 bytes per
// 32 GiB partition).
func TestEncodedSize(t *testing.T) {
	for _, p := range update.Proofs() {
		info, _ := p.Info()
		rBase, _ := info.TreeR.BaseLevels(int(info.Nodes))
		path := func(levels, arity int) int { return 8 + levels*(8+32*(arity-1)+8) }
		r := 4 + 64 + path(rBase, info.TreeR.Base)
		if info.TreeR.Sub > 0 {
			r += path(1, info.TreeR.Sub)
		}
		if info.TreeR.Top > 0 {
			r += path(1, info.TreeR.Top)
		}
		d := 4 + 64 + path(info.TreeDLevels, 2)
		want := 32 + 8 + 32*info.ApexLeaves + 8 + info.Challenges*(2*r+d)
		if p == update.StackedDrg32GiBV1 && want != 561768 {
			t.Errorf("32 GiB layout: %d bytes", want)
		}
		if testing.Short() && p != update.StackedDrg2KiBV1 {
			continue
		}
		if got := len(generated(t, p).VanillaProofs[0]); got != want {
			t.Errorf("%v: %d bytes, want %d", p, got, want)
		}
	}
}

// clone deep-copies a partition proof through its encoding.
func clone(t *testing.T, p *update.PartitionProof, info update.Info) *update.PartitionProof {
	t.Helper()
	b, err := p.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	q, err := update.DecodePartitionProof(b, info)
	if err != nil {
		t.Fatal(err)
	}
	return q
}

func flip(d *hash.Domain) { d[0] ^= 1 }

// TestVerifyTamper: every change is rejected with ErrBadVanillaProof naming
// the partition, the challenge and the field.
func TestVerifyTamper(t *testing.T) {
	for _, p := range []update.Proof{update.StackedDrg2KiBV1, update.StackedDrg8MiBV1} {
		if testing.Short() && p != update.StackedDrg2KiBV1 {
			continue
		}
		s := generated(t, p)
		k := s.Info.Partitions - 1
		// j is a challenge of partition k on another node than challenge 0
		// (2 KiB challenges repeat).
		cs, _ := update.Challenges(s.Info, s.CommRNew, k)
		j := 1
		for cs[j] == cs[0] {
			j++
		}
		for _, tc := range []struct {
			name string
			edit func(*update.Partition)
			want string
		}{
			{"partition out of range", func(q *update.Partition) { q.K = s.Info.Partitions }, "k: partition"},
			{"no proof", func(q *update.Partition) { q.Proof = nil }, "no proof"},
			{"comm_r_old", func(q *update.Partition) { flip(&q.CommROld) }, "comm_r_old"},
			{"comm_r_new", func(q *update.Partition) { flip(&q.CommRNew) }, "comm_r_new"},
			{"comm_d_new", func(q *update.Partition) { flip(&q.CommDNew) }, "apex_leafs"},
			{"non-canonical comm_d_new", func(q *update.Partition) { q.CommDNew[31] = 0xff }, "comm_d_new: "},
			{"comm_c", func(q *update.Partition) { flip(&q.Proof.CommC) }, "comm_r_old"},
			{"apex leaf", func(q *update.Partition) { flip(&q.Proof.ApexLeaves[5]) }, "apex_leafs"},
			{"apex leaf count", func(q *update.Partition) { q.Proof.ApexLeaves = q.Proof.ApexLeaves[1:] }, fmt.Sprintf("apex_leafs: %d leaves", s.Info.ApexLeaves-1)},
			{"challenge count", func(q *update.Partition) { q.Proof.Challenges = q.Proof.Challenges[:9] }, "challenge_proofs: 9 proofs"},
			{"old replica leaf", func(q *update.Partition) { flip(&q.Proof.Challenges[3].ROld.Leaf) }, "challenge 3: proof_r_old: node"},
			{"old replica sibling", func(q *update.Partition) { flip(&q.Proof.Challenges[3].ROld.Base[1].Siblings[2]) }, "challenge 3: proof_r_old: node"},
			{"old replica root", func(q *update.Partition) { flip(&q.Proof.Challenges[3].ROld.Root) }, "challenge 3: proof_r_old.root"},
			{"first old replica root", func(q *update.Partition) { flip(&q.Proof.Challenges[0].ROld.Root) }, "comm_r_old"},
			{"data leaf", func(q *update.Partition) { flip(&q.Proof.Challenges[4].DNew.Leaf) }, "challenge 4: proof_d_new: node"},
			{"data sibling", func(q *update.Partition) { flip(&q.Proof.Challenges[4].DNew.Base[0].Siblings[0]) }, "challenge 4: proof_d_new: node"},
			{"data root", func(q *update.Partition) { flip(&q.Proof.Challenges[4].DNew.Root) }, "challenge 4: proof_d_new.root"},
			{"new replica leaf", func(q *update.Partition) { flip(&q.Proof.Challenges[9].RNew.Leaf) }, "challenge 9: proof_r_new: node"},
			{"new replica root", func(q *update.Partition) { flip(&q.Proof.Challenges[9].RNew.Root) }, "challenge 9: proof_r_new.root"},
			{"path index", func(q *update.Partition) {
				e := &q.Proof.Challenges[2].RNew.Base[0]
				e.Index = (e.Index + 1) % 8
			}, "challenge 2: proof_r_new: opens node"},
			{"index out of range", func(q *update.Partition) { q.Proof.Challenges[2].DNew.Base[0].Index = 2 }, "challenge_proofs[2].proof_d_new.path[0].index"},
			{"swapped challenges", func(q *update.Partition) {
				c := q.Proof.Challenges
				c[0], c[j] = c[j], c[0]
			}, "challenge 0: proof_r_old: opens node"},
			{"non-canonical sibling", func(q *update.Partition) { q.Proof.Challenges[6].DNew.Base[2].Siblings[0][31] = 0xff }, "challenge_proofs[6].proof_d_new.path[2].hashes[0]"},
			{"missing level", func(q *update.Partition) { q.Proof.Challenges[6].ROld.Base = q.Proof.Challenges[6].ROld.Base[1:] }, "challenge_proofs[6].proof_r_old.path: "},
		} {
			q := *s.Partition(k)
			q.Proof = clone(t, q.Proof, s.Info)
			tc.edit(&q)
			err := q.Verify()
			if !errors.Is(err, update.ErrBadVanillaProof) {
				t.Errorf("%v %s: %v, want ErrBadVanillaProof", p, tc.name, err)
				continue
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("%v %s: %q does not name %q", p, tc.name, err, tc.want)
			}
			if !strings.Contains(err.Error(), "partition ") {
				t.Errorf("%v %s: %q does not name the partition", p, tc.name, err)
			}
		}
		if s.Info.Partitions > 1 {
			// Another partition's proof under this k.
			q := *s.Partition(0)
			q.Proof = s.Partitions[1]
			if err := q.Verify(); !errors.Is(err, update.ErrBadVanillaProof) {
				t.Errorf("%v: partition 1's proof as partition 0: %v", p, err)
			}
		}
	}
}

func TestPublicInputsErrors(t *testing.T) {
	info, _ := update.StackedDrg32GiBV1.Info()
	big := hash.Domain{}
	for i := range big {
		big[i] = 0xff
	}
	for _, tc := range []struct {
		k       int
		r, d, n hash.Domain
		want    string
	}{
		{16, hash.Domain{}, hash.Domain{}, hash.Domain{}, "partition 16"},
		{-1, hash.Domain{}, hash.Domain{}, hash.Domain{}, "partition -1"},
		{0, big, hash.Domain{}, hash.Domain{}, "comm_r_old"},
		{0, hash.Domain{}, big, hash.Domain{}, "comm_d_new"},
		{0, hash.Domain{}, hash.Domain{}, big, "comm_r_new"},
	} {
		_, err := update.PublicInputs(info, tc.k, tc.r, tc.d, tc.n)
		if !errors.Is(err, update.ErrBadVanillaProof) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v", tc, err)
		}
	}
	in, err := update.PublicInputs(info, 15, hash.Domain{1}, hash.Domain{2}, hash.Domain{3})
	if err != nil {
		t.Fatal(err)
	}
	if !in[0].IsUint64() || in[0].Uint64() != 143 {
		t.Errorf("k_and_h_select = %v, want 15 | 8<<4", in[0].String())
	}
}
