package groth16

import (
	"math/big"
	"testing"

	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr/fft"
)

// TestLagrangeAt compares the barycentric Lagrange basis with the product
// formula L_k(τ) = Π_{i≠k} (τ − ω^i)/(ω^k − ω^i), and ω with gnark's
// domain generator.
func TestLagrangeAt(t *testing.T) {
	tau := DeriveToxic([]byte("lagrange")).Tau
	for _, m := range []int{1, 2, 4, 8, 32} {
		var z, one fr.Element
		one.SetOne()
		z.Exp(tau, big.NewInt(int64(m)))
		z.Sub(&z, &one)
		got, err := lagrangeAt(&tau, &z, m)
		if err != nil {
			t.Fatal(err)
		}
		omega := fft.NewDomain(uint64(m)).Generator
		w := make([]fr.Element, m)
		w[0].SetOne()
		for i := 1; i < m; i++ {
			w[i].Mul(&w[i-1], &omega)
		}
		var sum fr.Element
		for k := 0; k < m; k++ {
			var l fr.Element
			l.SetOne()
			for i := 0; i < m; i++ {
				if i == k {
					continue
				}
				var num, den fr.Element
				num.Sub(&tau, &w[i])
				den.Sub(&w[k], &w[i])
				den.Inverse(&den)
				l.Mul(&l, &num).Mul(&l, &den)
			}
			if !l.Equal(&got[k]) {
				t.Fatalf("m=%d: L_%d(τ) differs", m, k)
			}
			sum.Add(&sum, &l)
		}
		if !sum.IsOne() { // Σ L_k = 1
			t.Fatalf("m=%d: Σ L_k(τ) ≠ 1", m)
		}
	}
}

// TestSetupAgainstToxic recomputes the fixed points and h from the trapdoor.
func TestSetupAgainstToxic(t *testing.T) {
	c := randCircuit{Seed: 21, Inputs: 3, Rows: 30}
	p, tx, err := SetupWithToxic(&c, []byte("toxic"))
	if err != nil {
		t.Fatal(err)
	}
	_, _, g1, g2 := bls12381.Generators()
	mul1 := func(s fr.Element) bls12381.G1Affine {
		var r bls12381.G1Affine
		var k big.Int
		r.ScalarMultiplication(&g1, s.BigInt(&k))
		return r
	}
	mul2 := func(s fr.Element) bls12381.G2Affine {
		var r bls12381.G2Affine
		var k big.Int
		r.ScalarMultiplication(&g2, s.BigInt(&k))
		return r
	}
	for name, pair := range map[string][2]bls12381.G1Affine{
		"alpha_g1": {p.VK.AlphaG1, mul1(tx.Alpha)},
		"beta_g1":  {p.VK.BetaG1, mul1(tx.Beta)},
		"delta_g1": {p.VK.DeltaG1, mul1(tx.Delta)},
	} {
		if !pair[0].Equal(&pair[1]) {
			t.Errorf("%s differs", name)
		}
	}
	for name, pair := range map[string][2]bls12381.G2Affine{
		"beta_g2":  {p.VK.BetaG2, mul2(tx.Beta)},
		"gamma_g2": {p.VK.GammaG2, mul2(tx.Gamma)},
		"delta_g2": {p.VK.DeltaG2, mul2(tx.Delta)},
	} {
		if !pair[0].Equal(&pair[1]) {
			t.Errorf("%s differs", name)
		}
	}
	// h_i = τ^i·(τ^m − 1)/δ
	m := len(p.H) + 1
	var tm, one, dinv, x fr.Element
	one.SetOne()
	tm.Exp(tx.Tau, big.NewInt(int64(m)))
	tm.Sub(&tm, &one)
	dinv.Inverse(&tx.Delta)
	x.Mul(&tm, &dinv)
	for i := range p.H {
		if want := mul1(x); !p.H[i].Equal(&want) {
			t.Fatalf("h[%d] differs", i)
		}
		x.Mul(&x, &tx.Tau)
	}
	if m != 32 {
		t.Fatalf("|h| = %d, want 31 for 30 rows", len(p.H))
	}
}
