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
