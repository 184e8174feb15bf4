package cpu

import (
	"math/rand/v2"
	"testing"

	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fp"
)

func TestSumAffineG1(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	base := randG1(r, 200)
	var inf bls12381.G1Affine
	inf.SetInfinity()
	cases := map[string]func(i int) bls12381.G1Affine{
		"distinct":   func(i int) bls12381.G1Affine { return base[i%len(base)] },
		"duplicates": func(i int) bls12381.G1Affine { return base[i%3] },
		"negations": func(i int) bls12381.G1Affine {
			p := base[i/2%len(base)]
			if i%2 == 1 {
				p.Neg(&p)
			}
			return p
		},
		"infinities": func(i int) bls12381.G1Affine {
			if r.IntN(3) == 0 {
				return inf
			}
			return base[r.IntN(len(base))]
		},
		"mixed": func(i int) bls12381.G1Affine {
			p := base[r.IntN(8)]
			if r.IntN(2) == 0 {
				p.Neg(&p)
			}
			return p
		},
	}
	for name, gen := range cases {
		for _, n := range []int{0, 1, 33, 64, 65, 257, 1000} {
			pts := make([]bls12381.G1Affine, n)
			want := infinityG1()
			for i := range pts {
				pts[i] = gen(i)
				want.AddMixed(&pts[i])
			}
			den := make([]fp.Element, n/2+1)
			pre := make([]fp.Element, n/2+1)
			got := infinityG1()
			sumAffineG1(&got, pts, den, pre)
			if !got.Equal(&want) {
				t.Errorf("%s, n=%d: batched affine sum differs from the Jacobian sum", name, n)
			}
		}
	}
}

func TestSumAffineG2(t *testing.T) {
	r := rand.New(rand.NewPCG(15, 16))
	base := randG2(r, 20)
	var inf bls12381.G2Affine
	inf.SetInfinity()
	for _, n := range []int{0, 1, 33, 100, 301} {
		pts := make([]bls12381.G2Affine, n)
		want := infinityG2()
		for i := range pts {
			switch r.IntN(5) {
			case 0:
				pts[i] = inf
			case 1:
				pts[i].Neg(&base[r.IntN(4)])
			default:
				pts[i] = base[r.IntN(4)] // many repeats: doublings
			}
			want.AddMixed(&pts[i])
		}
		den := make([]bls12381.E2, n/2+1)
		pre := make([]bls12381.E2, n/2+1)
		got := infinityG2()
		sumAffineG2(&got, pts, den, pre)
		if !got.Equal(&want) {
			t.Errorf("n=%d: batched affine G2 sum differs from the Jacobian sum", n)
		}
	}
	// Through sumG2 with several goroutines and blocks.
	pts := randG2(r, 300)
	idx := make([]uint32, 9000)
	want := infinityG2()
	for i := range idx {
		idx[i] = uint32(r.IntN(len(pts)))
		want.AddMixed(&pts[idx[i]])
	}
	if got := sumG2(pts, idx, 3); !got.Equal(&want) {
		t.Error("sumG2 differs from the Jacobian sum")
	}
}

func TestSumG1Blocks(t *testing.T) {
	r := rand.New(rand.NewPCG(17, 18))
	pts := randG1(r, 500)
	idx := make([]uint32, 3*onesBlock+77)
	want := infinityG1()
	for i := range idx {
		idx[i] = uint32(r.IntN(len(pts)))
		want.AddMixed(&pts[idx[i]])
	}
	for _, tasks := range []int{1, 2, 5} {
		if got := sumG1(pts, idx, tasks); !got.Equal(&want) {
			t.Errorf("tasks=%d: sumG1 differs from the Jacobian sum", tasks)
		}
	}
}
