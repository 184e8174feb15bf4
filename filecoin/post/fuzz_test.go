package post_test

import (
	"bytes"
	"context"
	"errors"
	"testing"

	"github.com/cuzk-project/cuzk/filecoin/gen"
	"github.com/cuzk-project/cuzk/filecoin/post"
)

// FuzzDecodeSectorProof feeds DecodeSectorProof arbitrary bytes, seeded
// with the real 32 GiB proof and generated ones of each variant. Whatever
// decodes re-encodes to the same bytes and goes through every proof's
// shape check and, where it fits, partition building and verification,
// none of which may panic or accept without ErrBadVanillaProof.
func FuzzDecodeSectorProof(f *testing.F) {
	b, _, _ := golden(f)
	f.Add(b)
	ctx := context.Background()
	for _, p := range []post.Proof{post.StackedDrgWindow2KiBV1_1, post.StackedDrgWindow64GiBV1} {
		w, err := gen.GenerateWindowPoSt(ctx, gen.WindowOptions{Proof: p, Seed: 1, Sectors: []uint64{3}})
		if err != nil {
			f.Fatal(err)
		}
		f.Add(w.Request.VanillaProofs[0])
	}
	win, err := gen.GenerateWinningPoSt(ctx, gen.WinningOptions{Proof: post.StackedDrgWinning2KiBV1, Seed: 1})
	if err != nil {
		f.Fatal(err)
	}
	f.Add(win.Request.VanillaProofs[0])
	infos := make([]post.Info, 0, 15)
	for _, p := range post.Proofs() {
		info, _ := p.Info()
		infos = append(infos, info)
	}

	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := post.DecodeSectorProof(b)
		if err != nil {
			if !errors.Is(err, post.ErrBadVanillaProof) {
				t.Fatalf("error without ErrBadVanillaProof: %v", err)
			}
			return
		}
		again, err := s.MarshalBinary()
		if err != nil || !bytes.Equal(again, b) {
			t.Fatalf("re-encoding differs (%v)", err)
		}
		for _, info := range infos {
			if err := s.CheckShape(info); err != nil {
				if !errors.Is(err, post.ErrBadVanillaProof) {
					t.Fatalf("%s: %v", info.Name, err)
				}
				continue
			}
			var p *post.Partition
			if info.Winning {
				p, err = post.NewWinning(info, [32]byte{}, s)
			} else {
				p, err = post.NewWindow(info, [32]byte{}, []*post.SectorProof{s}, 0)
			}
			if err == nil {
				err = p.Verify()
				_ = p.PublicInputs()
			}
			if err != nil && !errors.Is(err, post.ErrBadVanillaProof) {
				t.Fatalf("%s: %v", info.Name, err)
			}
		}
	})
}
