package post_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/cuzk-project/cuzk/filecoin"
	"github.com/cuzk-project/cuzk/filecoin/c1"
	"github.com/cuzk-project/cuzk/filecoin/post"
	"github.com/cuzk-project/cuzk/hash"
	"github.com/cuzk-project/cuzk/hash/merkle"
)

// The real WindowPoSt vanilla proof in testdata (curio
// lib/proof/testgolden): a 32 GiB sector, number 1, of miner 1000, proven
// for StackedDrgWindow32GiBV1 with all-zero randomness.
var goldenLeaves = []uint64{707914199, 439148358, 967788220, 548708700, 1061661429,
	6202012, 1055504637, 389535735, 1000069704, 600088878}

func golden(t testing.TB) ([]byte, *post.SectorProof, post.WindowPoStVerifyInfo) {
	t.Helper()
	b, err := os.ReadFile("testdata/post.vproof")
	if err != nil {
		t.Fatal(err)
	}
	s, err := post.DecodeSectorProof(b)
	if err != nil {
		t.Fatal(err)
	}
	pub, err := os.ReadFile("testdata/postpub.json")
	if err != nil {
		t.Fatal(err)
	}
	var vi post.WindowPoStVerifyInfo
	if err := json.Unmarshal(pub, &vi); err != nil {
		t.Fatal(err)
	}
	return b, s, vi
}

// TestGolden decodes the real vanilla proof, re-encodes it byte for byte,
// re-derives the 10 leaves it opens from the randomness, verifies it and
// checks that its partition's public inputs are those of the public data.
func TestGolden(t *testing.T) {
	b, s, vi := golden(t)
	if len(b) != 24960 {
		t.Fatalf("%d bytes", len(b))
	}
	if again, err := s.MarshalBinary(); err != nil || !bytes.Equal(again, b) {
		t.Fatalf("MarshalBinary differs (%v)", err)
	}
	if s.SectorID != 1 || len(s.Inclusion) != 10 {
		t.Fatalf("sector %d, %d openings", s.SectorID, len(s.Inclusion))
	}
	commR, err := vi.ChallengedSectors[0].SealedCID.CommR()
	if err != nil || hash.Domain(commR) != s.CommR {
		t.Fatalf("comm_r %s, SealedCID %v (%v)", s.CommR, hash.Domain(commR), err)
	}
	for n, m := range s.Inclusion {
		if m.Kind != c1.KindSub || len(m.Base) != 9 || len(m.Sub) != 1 {
			t.Errorf("opening %d: %s, %d+%d levels", n, m.Kind, len(m.Base), len(m.Sub))
		}
		if got := m.LeafIndex(); got != goldenLeaves[n] {
			t.Errorf("opening %d opens %d", n, got)
		}
		if got := post.LeafChallenge([32]byte{}, 1, uint64(n), 1<<30); got != goldenLeaves[n] {
			t.Errorf("LeafChallenge(0, 1, %d) = %d, the proof opens %d", n, got, goldenLeaves[n])
		}
	}

	if vi.Proofs[0].PoStProof != post.StackedDrgWindow32GiBV1 || vi.Prover != 1000 || vi.ChallengedSectors[0].SealProof != filecoin.StackedDrg32GiBV1_1 {
		t.Fatalf("public data %+v", vi)
	}
	info, inputs, err := vi.PublicInputs()
	if err != nil {
		t.Fatal(err)
	}
	if len(inputs) != 1 || len(inputs[0]) != 2349*11 {
		t.Fatalf("%d partitions, %d inputs", len(inputs), len(inputs[0]))
	}
	// Window V1 (ApiVersion 1.0) and V1_1 (1.2) challenge sector 0 of
	// partition 0 alike: challenge index n.
	for _, p := range []post.Proof{post.StackedDrgWindow32GiBV1, post.StackedDrgWindow32GiBV1_1} {
		pi, _ := p.Info()
		part, err := post.NewWindow(pi, [32]byte(vi.Randomness), []*post.SectorProof{s}, 0)
		if err != nil {
			t.Fatal(err)
		}
		if err := part.Verify(); err != nil {
			t.Fatalf("%s: %v", pi.Name, err)
		}
		got := part.PublicInputs()
		if len(got) != len(inputs[0]) {
			t.Fatalf("%d inputs", len(got))
		}
		for i := range got {
			if !got[i].Equal(&inputs[0][i]) {
				t.Fatalf("%s: input %d differs from the public data's", pi.Name, i)
			}
		}
	}
	if info.Proof != post.StackedDrgWindow32GiBV1 {
		t.Errorf("info %s", info.Name)
	}
	// The JSON is go-state-types' encoding/json form, byte for byte.
	pub, _ := os.ReadFile("testdata/postpub.json")
	if again, err := json.Marshal(vi); err != nil || !bytes.Equal(again, bytes.TrimSpace(pub)) {
		t.Errorf("JSON round trip:\n%s\n%s", again, pub)
	}
}

// TestGoldenTampered changes one thing in the real proof or its public
// data at a time; each must be refused with the sector, challenge and
// field named, by Verify and, but for what only hashing a given sector's
// path finds (left to the circuit: CheckRoot), by VerifyUnhashed.
func TestGoldenTampered(t *testing.T) {
	_, orig, _ := golden(t)
	info, _ := post.StackedDrgWindow32GiBV1.Info()
	clone := func() *post.SectorProof {
		b, _ := orig.MarshalBinary()
		s, _ := post.DecodeSectorProof(b)
		return s
	}
	flip := func(d *hash.Domain) { d[0] ^= 1 }
	for _, tc := range []struct {
		name string
		edit func(s *post.SectorProof, rand *[32]byte, k *int)
		want string
	}{
		{"sibling", func(s *post.SectorProof, _ *[32]byte, _ *int) { flip(&s.Inclusion[3].Base[2].Siblings[1]) },
			"sector 0 (number 1) challenge 3: inclusion_proofs[3]: the path hashes to"},
		{"sub sibling", func(s *post.SectorProof, _ *[32]byte, _ *int) { flip(&s.Inclusion[9].Sub[0].Siblings[6]) },
			"sector 0 (number 1) challenge 9: inclusion_proofs[9]: the path hashes to"},
		{"leaf", func(s *post.SectorProof, _ *[32]byte, _ *int) { flip(&s.Inclusion[0].Leaf) },
			"challenge 0: inclusion_proofs[0]: the path hashes to"},
		{"root", func(s *post.SectorProof, _ *[32]byte, _ *int) { flip(&s.Inclusion[5].Root) },
			"challenge 5: inclusion_proofs[5].root:"},
		{"comm_r", func(s *post.SectorProof, _ *[32]byte, _ *int) { flip(&s.CommR) },
			"sector 0 (number 1): comm_r: "},
		{"comm_c", func(s *post.SectorProof, _ *[32]byte, _ *int) { flip(&s.CommC) },
			"sector 0 (number 1): comm_r: "},
		{"comm_r_last", func(s *post.SectorProof, _ *[32]byte, _ *int) { flip(&s.CommRLast) },
			"sector 0 (number 1): comm_r: "},
		{"swapped openings", func(s *post.SectorProof, _ *[32]byte, _ *int) {
			s.Inclusion[0], s.Inclusion[1] = s.Inclusion[1], s.Inclusion[0]
		}, "challenge 0: inclusion_proofs[0]: opens leaf 439148358, but the randomness challenges leaf 707914199"},
		{"path index", func(s *post.SectorProof, _ *[32]byte, _ *int) {
			e := &s.Inclusion[2].Base[0]
			e.Index = (e.Index + 1) % 8
		}, "challenge 2: inclusion_proofs[2]: opens leaf"},
		{"randomness", func(_ *post.SectorProof, r *[32]byte, _ *int) { r[0] = 1 },
			"challenge 0: inclusion_proofs[0]: opens leaf 707914199, but the randomness challenges leaf"},
		{"sector number", func(s *post.SectorProof, _ *[32]byte, _ *int) { s.SectorID = 2 },
			"sector 0 (number 2) challenge 0: inclusion_proofs[0]: opens leaf"},
		// ApiVersion 1.0: partition 1's first sector has sector index 2349.
		{"partition index", func(_ *post.SectorProof, _ *[32]byte, k *int) { *k = 1 },
			"challenge index 23490, partition 1"},
		{"non-canonical randomness", func(_ *post.SectorProof, r *[32]byte, _ *int) { r[31] = 0xff },
			"randomness"},
		{"non-canonical sibling", func(s *post.SectorProof, _ *[32]byte, _ *int) {
			s.Inclusion[4].Sub[0].Siblings[2] = hash.Domain{31: 0xff}
		}, "sector 1: inclusion_proofs[4].sub_proof[0].hashes[2]: "},
		{"non-canonical comm_c", func(s *post.SectorProof, _ *[32]byte, _ *int) { s.CommC[31] = 0x80 },
			"sector 1: comm_c: "},
		{"missing opening", func(s *post.SectorProof, _ *[32]byte, _ *int) { s.Inclusion = s.Inclusion[:9] },
			"sector 1: inclusion_proofs: 9, want 10"},
		{"variant", func(s *post.SectorProof, _ *[32]byte, _ *int) { s.Inclusion[1].Kind = c1.KindTop },
			"sector 1: inclusion_proofs[1]: a Top proof, want Sub"},
		{"levels", func(s *post.SectorProof, _ *[32]byte, _ *int) { s.Inclusion[7].Base = s.Inclusion[7].Base[:8] },
			"sector 1: inclusion_proofs[7].base_proof: 8 levels, want 9"},
		{"arity", func(s *post.SectorProof, _ *[32]byte, _ *int) {
			s.Inclusion[6].Base[3].Siblings = s.Inclusion[6].Base[3].Siblings[:3]
		}, "sector 1: inclusion_proofs[6].base_proof[3].hashes: 3 siblings, want 7"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := clone()
			var rand [32]byte
			k := 0
			tc.edit(s, &rand, &k)
			p, err := post.NewWindow(info, rand, []*post.SectorProof{s}, k)
			if err != nil {
				if !errors.Is(err, post.ErrBadVanillaProof) || !strings.Contains(err.Error(), tc.want) {
					t.Fatalf("got %v\nwant ErrBadVanillaProof with %q", err, tc.want)
				}
				return
			}
			err = p.Verify()
			if !errors.Is(err, post.ErrBadVanillaProof) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v\nwant ErrBadVanillaProof with %q", err, tc.want)
			}
			unhashed := p.VerifyUnhashed()
			if pathOnly := strings.Contains(tc.want, "the path hashes to"); pathOnly {
				if unhashed != nil {
					t.Fatalf("VerifyUnhashed: %v, want nil (the circuit hashes the path)", unhashed)
				}
			} else if unhashed == nil || unhashed.Error() != err.Error() {
				t.Fatalf("VerifyUnhashed: %v, want Verify's %v", unhashed, err)
			}
		})
	}
}

// TestCheckRoot: the root each opening of the real proof hashes to is
// accepted, another refused as Verify refuses it.
func TestCheckRoot(t *testing.T) {
	_, s, _ := golden(t)
	info, _ := post.StackedDrgWindow32GiBV1_1.Info()
	p, err := post.NewWindow(info, [32]byte{}, []*post.SectorProof{s}, 0)
	if err != nil {
		t.Fatal(err)
	}
	root, err := s.Inclusion[2].Native().ComputeRoot(merkle.Poseidon{})
	if err != nil {
		t.Fatal(err)
	}
	if err := p.CheckRoot(0, 2, root); err != nil {
		t.Errorf("the path's own root: %v", err)
	}
	root[0] ^= 1
	err = p.CheckRoot(0, 2, root)
	if !errors.Is(err, post.ErrBadVanillaProof) || !strings.Contains(err.Error(), "sector 0 (number 1) challenge 2: inclusion_proofs[2]: the path hashes to") {
		t.Errorf("another root: %v", err)
	}
	if err := p.CheckRoot(len(p.Sectors), 0, root); !errors.Is(err, post.ErrBadVanillaProof) {
		t.Errorf("a circuit sector past the partition: %v", err)
	}
}

// TestPartitionTampered edits a built partition: its challenges, its
// padding and its bookkeeping must agree with the randomness and the
// request.
func TestPartitionTampered(t *testing.T) {
	_, s, _ := golden(t)
	info, _ := post.StackedDrgWindow32GiBV1_1.Info()
	for _, tc := range []struct {
		name string
		edit func(p *post.Partition)
		want string
	}{
		{"challenge", func(p *post.Partition) { p.Challenges[0] = append([]uint64{1}, p.Challenges[0][1:]...) },
			"sector 0 (number 1): challenges [1 "},
		{"padding sector", func(p *post.Partition) { p.Sectors[2000].SectorID = 7 },
			"sector 2000 (number 7): not a repeat of sector 0 (number 1)"},
		{"padding opening", func(p *post.Partition) {
			o := append([]c1.MerkleProof(nil), p.Sectors[5].Inclusion...)
			o[3].Leaf[0] ^= 1
			p.Sectors[5].Inclusion = o
		}, "sector 5 (number 1) challenge 3: inclusion_proofs[3]: the path hashes to"},
		{"sectors", func(p *post.Partition) { p.Sectors = p.Sectors[:10] }, "10 circuit sectors"},
		{"given", func(p *post.Partition) { p.Given = 0 }, "0 given sectors"},
		{"index", func(p *post.Partition) { p.Index = -1 }, "partition index -1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := post.NewWindow(info, [32]byte{}, []*post.SectorProof{s}, 0)
			if err != nil {
				t.Fatal(err)
			}
			tc.edit(p)
			err = p.Verify()
			if !errors.Is(err, post.ErrBadVanillaProof) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v\nwant ErrBadVanillaProof with %q", err, tc.want)
			}
			// A padding sector is never synthesized: its openings are
			// hashed before, unless they are the last given sector's.
			if unhashed := p.VerifyUnhashed(); unhashed == nil || unhashed.Error() != err.Error() {
				t.Fatalf("VerifyUnhashed: %v, want Verify's %v", unhashed, err)
			}
		})
	}
}
