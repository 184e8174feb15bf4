package post_test

import (
	"context"
	"testing"

	"github.com/cuzk-project/cuzk/filecoin/gen"
	"github.com/cuzk-project/cuzk/filecoin/post"
)

// BenchmarkDecodeSectorProof decodes the real 32 GiB WindowPoSt sector
// proof (24,960 bytes; a full partition is 2349 of them).
func BenchmarkDecodeSectorProof(b *testing.B) {
	v, _, _ := golden(b)
	b.SetBytes(int64(len(v)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := post.DecodeSectorProof(v); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkVerifyWinning32GiB is the vanilla check in front of a 32 GiB
// WinningPoSt: build the partition and verify its 66 openings.
func BenchmarkVerifyWinning32GiB(b *testing.B) {
	w, err := gen.GenerateWinningPoSt(context.Background(), gen.WinningOptions{Proof: post.StackedDrgWinning32GiBV1, Seed: 1})
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		s, err := post.DecodeSectorProof(w.Request.VanillaProofs[0])
		if err != nil {
			b.Fatal(err)
		}
		p, err := post.NewWinning(w.Info, w.Randomness, s)
		if err != nil {
			b.Fatal(err)
		}
		if err := p.Verify(); err != nil {
			b.Fatal(err)
		}
	}
}
