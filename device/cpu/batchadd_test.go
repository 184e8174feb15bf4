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
	// Through sumOnes with several goroutines and blocks.
	pts := randG2(r, 9000)
	ones, want := randomOnes(r, pts, infinityG2(), 0.7)
	if got := sumOnes(pts, ones, 3, infinityG2(), &g2Scratches); !got.Equal(&want) {
		t.Error("sumOnes in G2 differs from the Jacobian sum")
	}
}

// randomOnes sets each bit of a bitmap over pts with probability p and
// returns it with the Jacobian sum of the points it selects.
func randomOnes[P, J any, PJ interface {
	*J
	AddMixed(*P) *J
}](r *rand.Rand, pts []P, identity J, p float64) ([]uint32, J) {
	ones := make([]uint32, (len(pts)+31)/32)
	want := identity
	for i := range pts {
		if r.Float64() < p {
			ones[i/32] |= 1 << (i % 32)
			PJ(&want).AddMixed(&pts[i])
		}
	}
	return ones, want
}

func TestSumOnesBlocks(t *testing.T) {
	r := rand.New(rand.NewPCG(17, 18))
	pts := progression(3*onesBlock + 2077)
	for _, p := range []float64{0, 0.01, 0.9, 1} {
		ones, want := randomOnes(r, pts, infinityG1(), p)
		for _, tasks := range []int{1, 2, 5} {
			if got := sumOnes(pts, ones, tasks, infinityG1(), &g1Scratches); !got.Equal(&want) {
				t.Errorf("p=%.2f tasks=%d: sumOnes differs from the Jacobian sum", p, tasks)
			}
		}
	}
	// The ones clustered in one corner: the ranges follow the bits.
	ones := make([]uint32, (len(pts)+31)/32)
	want := infinityG1()
	for i := len(pts) - 3000; i < len(pts); i++ {
		ones[i/32] |= 1 << (i % 32)
		want.AddMixed(&pts[i])
	}
	if cuts := onesRanges(ones, 3); len(cuts) != 3 || cuts[1] == cuts[2] {
		t.Errorf("ranges %v do not split 3000 clustered bits in two", cuts)
	}
	if got := sumOnes(pts, ones, 3, infinityG1(), &g1Scratches); !got.Equal(&want) {
		t.Error("clustered ones: sumOnes differs from the Jacobian sum")
	}
}
