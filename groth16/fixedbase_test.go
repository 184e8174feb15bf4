package groth16

import (
	"math/big"
	"math/rand/v2"
	"testing"

	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

func TestFixedBase(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{0, 1, 63, 64, 300} {
		s := make([]fr.Element, n)
		for i := range s {
			switch i % 5 {
			case 0:
				s[i].SetUint64(uint64(i)) // small, incl. 0
			case 1:
				s[i].SetInt64(-int64(i)) // r − i
			case 2:
				s[i].SetUint64(1 << (i % 64)) // single-bit digits
			default:
				s[i] = randElement(rng)
			}
		}
		_, _, g1, g2 := bls12381.Generators()
		// A base other than the generator.
		var k big.Int
		k.SetUint64(12345)
		g1.ScalarMultiplication(&g1, &k)
		g2.ScalarMultiplication(&g2, &k)
		got1 := newCombG1(&g1).mul(s)
		got2 := newCombG2(&g2).mul(s)
		for i := range s {
			var w1 bls12381.G1Affine
			var w2 bls12381.G2Affine
			w1.ScalarMultiplication(&g1, s[i].BigInt(&k))
			w2.ScalarMultiplication(&g2, s[i].BigInt(&k))
			if !got1[i].Equal(&w1) {
				t.Fatalf("n=%d: G1 s[%d]·g differs", n, i)
			}
			if !got2[i].Equal(&w2) {
				t.Fatalf("n=%d: G2 s[%d]·g differs", n, i)
			}
		}
	}
}

// BenchmarkFixedBase times the comb per scalar in G1 and G2 (2^14 random
// scalars) and, for the encoding the streamed setup adds, EncodeG1/G2;
// with -cpu 1 it is the per-core cost that sizes a setup.
func BenchmarkFixedBase(b *testing.B) {
	rng := rand.New(rand.NewPCG(5, 6))
	s := make([]fr.Element, 1<<14)
	for i := range s {
		s[i] = randElement(rng)
	}
	_, _, g1, g2 := bls12381.Generators()
	c1, c2 := newCombG1(&g1), newCombG2(&g2)
	out1 := make([]bls12381.G1Affine, len(s))
	out2 := make([]bls12381.G2Affine, len(s))
	b.Run("G1", func(b *testing.B) {
		for b.Loop() {
			c1.mulInto(s, out1)
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(s)), "ns/point")
	})
	b.Run("G2", func(b *testing.B) {
		for b.Loop() {
			c2.mulInto(s, out2)
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(s)), "ns/point")
	})
	b.Run("EncodeG1", func(b *testing.B) {
		var buf [G1Size]byte
		for b.Loop() {
			for i := range out1 {
				EncodeG1(buf[:], &out1[i])
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(s)), "ns/point")
	})
	b.Run("EncodeG2", func(b *testing.B) {
		var buf [G2Size]byte
		for b.Loop() {
			for i := range out2 {
				EncodeG2(buf[:], &out2[i])
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(s)), "ns/point")
	})
}
