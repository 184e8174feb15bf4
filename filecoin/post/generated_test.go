package post_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-project/cuzk/filecoin"
	"github.com/cuzk-project/cuzk/filecoin/gen"
	"github.com/cuzk-project/cuzk/filecoin/post"
)

func sameInputs(t *testing.T, what string, got, want []fr.Element) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d inputs, the public data gives %d", what, len(got), len(want))
	}
	for i := range got {
		if !got[i].Equal(&want[i]) {
			t.Fatalf("%s: input %d differs from the public data's", what, i)
		}
	}
}

// TestGeneratedWinning verifies filecoin/gen's WinningPoSt of every size:
// the challenged sector is the one the randomness picks, the partition
// verifies, its 132 inputs are those of the public data, and a sector
// proven for other randomness is refused.
func TestGeneratedWinning(t *testing.T) {
	for _, p := range []post.Proof{post.StackedDrgWinning2KiBV1, post.StackedDrgWinning8MiBV1,
		post.StackedDrgWinning512MiBV1, post.StackedDrgWinning32GiBV1, post.StackedDrgWinning64GiBV1} {
		t.Run(p.String(), func(t *testing.T) {
			w, err := gen.GenerateWinningPoSt(context.Background(), gen.WinningOptions{Proof: p, Seed: 11, Miner: 1234,
				Sectors: []uint64{9, 3, 100, 42, 7}})
			if err != nil {
				t.Fatal(err)
			}
			idx := post.WinningSectorChallenges(w.Randomness, filecoin.ProverID(1234), 5, 1)[0]
			if w.Challenged != w.Sectors[idx] || w.Proof.SectorID != w.Challenged {
				t.Fatalf("challenged %d, the randomness picks %d of %v", w.Challenged, w.Sectors[idx], w.Sectors)
			}
			if w.Request.ProofKind != "WINNING_POST" || w.Request.RegisteredProof != uint64(p) || len(w.Request.VanillaProofs) != 1 {
				t.Fatalf("request %+v", w.Request)
			}
			s, err := post.DecodeSectorProof(w.Request.VanillaProofs[0])
			if err != nil {
				t.Fatal(err)
			}
			part, err := post.NewWinning(w.Info, w.Randomness, s)
			if err != nil {
				t.Fatal(err)
			}
			if err := part.Verify(); err != nil {
				t.Fatal(err)
			}
			info, want, err := w.Public.PublicInputs()
			if err != nil || info.Proof != p {
				t.Fatalf("%s: %v", info.Name, err)
			}
			if len(want) != 132 {
				t.Fatalf("%d inputs, want 132 (133 with ONE)", len(want))
			}
			sameInputs(t, "winning", part.PublicInputs(), want)

			other := w.Randomness
			other[0] ^= 1
			part, _ = post.NewWinning(w.Info, other, s)
			if err := part.Verify(); !errors.Is(err, post.ErrBadVanillaProof) || !strings.Contains(err.Error(), "challenge 0: inclusion_proofs[0]: opens leaf") {
				t.Fatalf("other randomness: %v", err)
			}
		})
	}
}

// TestGeneratedWindow verifies filecoin/gen's WindowPoSt partitions, the
// second of a two-partition proof and a partial last one included: each
// verifies with its own partition index, its inputs are that partition's
// of the public data, and under ApiVersion 1.0 (Window V1) the wrong
// partition index is refused while under 1.2 (Window V1_1) it changes
// nothing.
func TestGeneratedWindow(t *testing.T) {
	type tc struct {
		proof   post.Proof
		sectors []uint64 // nil: the generator's default
		parts   []int
	}
	cases := []tc{
		{post.StackedDrgWindow2KiBV1, []uint64{4, 8, 15}, []int{0, 1}},
		{post.StackedDrgWindow2KiBV1_1, []uint64{4, 8, 15}, []int{0, 1}},
		{post.StackedDrgWindow8MiBV1, nil, []int{1}},
		{post.StackedDrgWindow8MiBV1_1, nil, []int{1}},
		{post.StackedDrgWindow512MiBV1_1, []uint64{1, 2, 3, 4, 5}, []int{2}},
		{post.StackedDrgWindow32GiBV1_1, []uint64{77, 78, 79}, []int{0}},
		{post.StackedDrgWindow64GiBV1, []uint64{77}, []int{0}},
	}
	if !testing.Short() {
		cases = append(cases, tc{post.StackedDrgWindow32GiBV1, nil, []int{0}}, tc{post.StackedDrgWindow64GiBV1_1, nil, []int{0}})
	}
	for _, c := range cases {
		for _, k := range c.parts {
			info, _ := c.proof.Info()
			t.Run(info.Name, func(t *testing.T) {
				w, err := gen.GenerateWindowPoSt(context.Background(), gen.WindowOptions{Proof: c.proof, Seed: 5, Miner: 77,
					Sectors: c.sectors, Partition: k})
				if err != nil {
					t.Fatal(err)
				}
				r := w.Request
				if r.ProofKind != "WINDOW_POST_PARTITION" || r.PartitionIndex != uint32(k) || r.MinerID != 77 ||
					r.SectorSize != info.SectorSize || !bytes.Equal(r.Randomness, w.Randomness[:]) {
					t.Fatalf("request %+v", r)
				}
				var proofs []*post.SectorProof
				for _, b := range r.VanillaProofs {
					s, err := post.DecodeSectorProof(b)
					if err != nil {
						t.Fatal(err)
					}
					proofs = append(proofs, s)
				}
				part, err := post.NewWindow(info, w.Randomness, proofs, k)
				if err != nil {
					t.Fatal(err)
				}
				if err := part.Verify(); err != nil {
					t.Fatal(err)
				}
				// The public data as a verifier reads it from JSON.
				js, err := json.Marshal(w.Public)
				if err != nil {
					t.Fatal(err)
				}
				var pub post.WindowPoStVerifyInfo
				if err := json.Unmarshal(js, &pub); err != nil {
					t.Fatal(err)
				}
				_, inputs, err := pub.PublicInputs()
				if err != nil {
					t.Fatal(err)
				}
				if len(inputs) != w.Partitions {
					t.Fatalf("%d partitions in the public data, the generator made %d", len(inputs), w.Partitions)
				}
				if len(inputs[k]) != info.SectorCount*11 {
					t.Fatalf("%d inputs", len(inputs[k]))
				}
				sameInputs(t, "window", part.PublicInputs(), inputs[k])

				if w.Partitions < 2 {
					return
				}
				wrongK := (k + 1) % w.Partitions
				wrong, err := post.NewWindow(info, w.Randomness, proofs, wrongK)
				if err != nil {
					t.Fatal(err)
				}
				err = wrong.Verify()
				if info.API == filecoin.APIV1_2 {
					if err != nil {
						t.Fatalf("ApiVersion 1.2, partition index %d: %v", wrongK, err)
					}
				} else if !errors.Is(err, post.ErrBadVanillaProof) || !strings.Contains(err.Error(), "partition ") {
					t.Fatalf("ApiVersion 1.0, partition index %d: %v", wrongK, err)
				}
			})
		}
	}
}

// TestNewBad refuses requests that do not fit the proof.
func TestNewBad(t *testing.T) {
	ctx := context.Background()
	w, err := gen.GenerateWindowPoSt(ctx, gen.WindowOptions{Proof: post.StackedDrgWindow2KiBV1_1, Seed: 1, Miner: 5})
	if err != nil {
		t.Fatal(err)
	}
	win, err := gen.GenerateWinningPoSt(ctx, gen.WinningOptions{Proof: post.StackedDrgWinning2KiBV1, Seed: 1, Miner: 5})
	if err != nil {
		t.Fatal(err)
	}
	wi, _ := post.StackedDrgWindow2KiBV1_1.Info()
	wi8, _ := post.StackedDrgWindow8MiBV1_1.Info()
	ni, _ := post.StackedDrgWinning2KiBV1.Info()
	three := []*post.SectorProof{w.Proofs[0], w.Proofs[1], w.Proofs[1]}
	for _, tc := range []struct {
		name string
		f    func() error
		want string
	}{
		{"window as winning", func() error { _, err := post.NewWinning(wi, w.Randomness, w.Proofs[0]); return err }, "is not a WinningPoSt proof"},
		{"winning as window", func() error { _, err := post.NewWindow(ni, w.Randomness, w.Proofs, 0); return err }, "is not a WindowPoSt proof"},
		{"window proof for winning", func() error { _, err := post.NewWinning(ni, win.Randomness, w.Proofs[0]); return err }, "inclusion_proofs: 10, want 66"},
		{"no winning proof", func() error { _, err := post.NewWinning(ni, win.Randomness, nil); return err }, "no vanilla proof"},
		{"no sectors", func() error { _, err := post.NewWindow(wi, w.Randomness, nil, 0); return err }, "0 sector proofs, want 1 to 2"},
		{"too many sectors", func() error { _, err := post.NewWindow(wi, w.Randomness, three, 0); return err }, "3 sector proofs, want 1 to 2"},
		{"nil sector", func() error { _, err := post.NewWindow(wi, w.Randomness, []*post.SectorProof{nil}, 0); return err }, "sector 0: no vanilla proof"},
		{"twice", func() error { _, err := post.NewWindow(wi, w.Randomness, three[1:], 0); return err }, "sector 1: sector number 2 is also sector 0"},
		{"negative partition", func() error { _, err := post.NewWindow(wi, w.Randomness, w.Proofs, -1); return err }, "partition index -1"},
		{"other size", func() error { _, err := post.NewWindow(wi8, w.Randomness, w.Proofs, 0); return err }, "sector 1: inclusion_proofs[0].path: 2 levels, want 6"},
		{"randomness", func() error {
			r := w.Randomness
			r[31] |= 0x80
			_, err := post.NewWindow(wi, r, w.Proofs, 0)
			return err
		}, "is not a canonical field element"},
	} {
		if err := tc.f(); !errors.Is(err, post.ErrBadVanillaProof) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v\nwant %q", tc.name, err, tc.want)
		}
	}
}

// TestFromRequest builds partitions from the request fields as the daemon
// receives them, and refuses requests that do not fit.
func TestFromRequest(t *testing.T) {
	ctx := context.Background()
	w, err := gen.GenerateWindowPoSt(ctx, gen.WindowOptions{Proof: post.StackedDrgWindow2KiBV1, Seed: 2, Sectors: []uint64{1, 2, 3}, Partition: 1})
	if err != nil {
		t.Fatal(err)
	}
	win, err := gen.GenerateWinningPoSt(ctx, gen.WinningOptions{Proof: post.StackedDrgWinning2KiBV1, Seed: 2})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range []gen.PoStRequest{w.Request, win.Request} {
		info, _ := post.Proof(r.RegisteredProof).Info()
		p, err := post.FromRequest(info, r.Randomness, r.VanillaProofs, int(r.PartitionIndex))
		if err != nil {
			t.Fatal(err)
		}
		if err := p.Verify(); err != nil {
			t.Fatal(err)
		}
	}
	wi, ni := w.Info, win.Info
	cut := bytes.Clone(w.Request.VanillaProofs[0][:100])
	for _, tc := range []struct {
		name string
		err  error
		want string
	}{
		{"short randomness", second(post.FromRequest(wi, w.Randomness[:31], w.Request.VanillaProofs, 1)), "randomness: 31 bytes"},
		{"no proofs", second(post.FromRequest(wi, w.Randomness[:], nil, 1)), "vanilla_proofs: 0, want 1 to 2"},
		{"cut proof", second(post.FromRequest(wi, w.Randomness[:], [][]byte{cut}, 1)), "vanilla_proofs[0]: vanilla_proof.sectors[0].inclusion_proofs: offset 48: length 10"},
		{"two winning proofs", second(post.FromRequest(ni, win.Randomness[:], [][]byte{cut, cut}, 0)), "a WinningPoSt carries 1 proof"},
		{"winning partition", second(post.FromRequest(ni, win.Randomness[:], win.Request.VanillaProofs, 1)), "partition_index 1"},
	} {
		if !errors.Is(tc.err, post.ErrBadVanillaProof) || !strings.Contains(tc.err.Error(), tc.want) {
			t.Errorf("%s: got %v\nwant %q", tc.name, tc.err, tc.want)
		}
	}
}

func second[T any](_ T, err error) error { return err }
