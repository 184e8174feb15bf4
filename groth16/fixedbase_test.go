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
