package cuda

import (
	"context"
	"errors"
	"math/big"
	"math/rand/v2"
	"testing"
	"unsafe"

	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-project/cuzk/groth16"
)

// goPinned stands in for a pinned buffer with Go memory (Finish only reads it).
func goPinned[T any](s []T) pinned {
	if len(s) == 0 {
		return pinned{}
	}
	return pinned{unsafe.Pointer(&s[0]), uint64(len(s)) * uint64(unsafe.Sizeof(s[0]))}
}

// TestFinishB2 runs Finish on a hand-made Partial (no GPU needed): B_G2 must
// be the ones' sum plus the tail's MSM over b_g2, and the G1 sums pass through.
func TestFinishB2(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	const n = 70
	_, _, _, g2 := bls12381.Generators()
	bg2 := make([]bls12381.G2Affine, n)
	for i := range bg2 {
		var k big.Int
		bg2[i].ScalarMultiplication(&g2, k.SetUint64(r.Uint64()|1))
	}
	words := make([]uint32, (n+31)/32)
	var idx []uint32
	var scal []fr.Element
	want := bls12381.G2Jac{}
	want.X.SetOne()
	want.Y.SetOne()
	for i := 0; i < n; i++ {
		switch r.IntN(3) {
		case 1:
			words[i/32] |= 1 << (i % 32)
			want.AddMixed(&bg2[i])
		case 2:
			var s fr.Element
			s.SetUint64(r.Uint64())
			idx = append(idx, uint32(i))
			scal = append(scal, s)
			var p bls12381.G2Jac
			var k big.Int
			p.FromAffine(&bg2[i])
			p.ScalarMultiplication(&p, s.BigInt(&k))
			want.AddAssign(&p)
		}
	}
	var h bls12381.G1Jac
	_, _, g1, _ := bls12381.Generators()
	h.FromAffine(&g1)
	w := &prepared{p: &groth16.Params{BG2: bg2}}
	w.st[2] = stage{nbases: n, bits: goPinned(words), scal: goPinned(scal), idx: goPinned(idx), ntail: len(idx)}
	// never closed: its pool holds Go memory now, which hostFree must not see
	d := &Device{Tasks: 2, srs: map[*groth16.Params]*resident{}}
	part := &Partial{w: w, h: h}
	sums, err := d.Finish(context.Background(), part)
	if err != nil {
		t.Fatal(err)
	}
	if !sums.B2.Equal(&want) {
		t.Fatal("B_G2 differs from the naive sum")
	}
	if !sums.H.Equal(&h) {
		t.Fatal("H did not pass through")
	}
	if _, err := d.Finish(context.Background(), part); !errors.Is(err, ErrReused) {
		t.Fatalf("second Finish: err = %v, want ErrReused", err)
	}
}
