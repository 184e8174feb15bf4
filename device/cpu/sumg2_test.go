package cpu

import (
	"context"
	"errors"
	"math/rand/v2"
	"testing"

	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/cuzk-project/cuzk/groth16"
)

func TestSumG2(t *testing.T) {
	defer func(g2, m int) { tailChunkG2, msmMaxPoints = g2, m }(tailChunkG2, msmMaxPoints)
	tailChunkG2, msmMaxPoints = 5, 3 // several chunks and MultiExp calls
	r := rand.New(rand.NewPCG(21, 22))
	bases := randG2(r, 400)
	bitmap := func(set ...int) []uint32 {
		w := make([]uint32, (len(bases)+31)/32)
		for _, i := range set {
			w[i/32] |= 1 << (i % 32)
		}
		return w
	}
	var many []int // past the batched tree's threshold
	for i := range bases {
		if r.IntN(4) != 0 {
			many = append(many, i)
		}
	}
	for _, tc := range []struct {
		name string
		ones []int
		tail []uint32
	}{
		{"many ones", many, []uint32{1, 7, 9, 30, 31, 32, 33, 100, 101, 102, 103, 104, 200, 300, 399, 5, 6}},
		{"nothing", nil, nil},
		{"ones only", []int{0, 3, 4, 39, 399}, nil},
		{"tail only", nil, []uint32{1, 2, 7}},
		{"both, one repeated base", []int{5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18}, []uint32{0, 1, 2, 3, 4, 19, 20, 21, 22, 23, 24, 25, 39, 39}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			scalars := make([]fr.Element, len(tc.tail))
			for i := range scalars {
				scalars[i] = randElement(r)
			}
			got, err := SumG2(context.Background(), bases, bitmap(tc.ones...), tc.tail, scalars, 3)
			if err != nil {
				t.Fatal(err)
			}
			var oneBases, tailBases []bls12381.G2Affine
			ones := make([]fr.Element, len(tc.ones))
			for i, j := range tc.ones {
				oneBases = append(oneBases, bases[j])
				ones[i].SetOne()
			}
			for _, j := range tc.tail {
				tailBases = append(tailBases, bases[j])
			}
			want := naiveG2(oneBases, ones)
			tw := naiveG2(tailBases, scalars)
			want.AddAssign(&tw)
			if !got.Equal(&want) {
				t.Fatal("SumG2 differs from the naive sum")
			}
		})
	}
	for _, tc := range []struct {
		name     string
		ones     []uint32
		tail     []uint32
		nscalars int
	}{
		{"scalars short", bitmap(), []uint32{1, 2}, 1},
		{"bitmap short", bitmap()[1:], nil, 0},
		{"one beyond the bases", append(bitmap()[:12], 1<<16), nil, 0},
		{"tail out of range", bitmap(), []uint32{1 << 30}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := SumG2(context.Background(), bases, tc.ones, tc.tail, make([]fr.Element, tc.nscalars), 2)
			if !errors.Is(err, groth16.ErrAssignmentMismatch) {
				t.Fatalf("err = %v, want groth16.ErrAssignmentMismatch", err)
			}
		})
	}
}
