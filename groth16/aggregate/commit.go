package aggregate

import (
	"fmt"
	"math/big"
	"runtime"
	"sync"

	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// commitKeyG2 is the key v = (v₁, v₂) = (h^(αⁱ), h^(βⁱ)) that commits to a
// vector of G1 points; commitKeyG1 is w = (g^(α^(n+i)), g^(β^(n+i))), which
// commits to a vector of G2 points.
type (
	commitKeyG2 struct{ A, B []bls12381.G2Affine }
	commitKeyG1 struct{ A, B []bls12381.G1Affine }
)

// commitment is the pair (T, U) of GT elements that both schemes output.
type commitment [2]bls12381.GT

// commitPair is the pair commitment of (a, b) under (v, w):
// T = ∏ e(aᵢ, v₁ᵢ)·e(w₁ᵢ, bᵢ), U = ∏ e(aᵢ, v₂ᵢ)·e(w₂ᵢ, bᵢ).
func commitPair(v commitKeyG2, w commitKeyG1, a []bls12381.G1Affine, b []bls12381.G2Affine) (commitment, error) {
	var c commitment
	var err error
	if c[0], err = pairProduct(concat(a, w.A), concat(v.A, b)); err != nil {
		return c, err
	}
	c[1], err = pairProduct(concat(a, w.B), concat(v.B, b))
	return c, err
}

// commitSingle is the commitment of a under v:
// T = ∏ e(aᵢ, v₁ᵢ), U = ∏ e(aᵢ, v₂ᵢ).
func commitSingle(v commitKeyG2, a []bls12381.G1Affine) (commitment, error) {
	var c commitment
	var err error
	if c[0], err = pairProduct(a, v.A); err != nil {
		return c, err
	}
	c[1], err = pairProduct(a, v.B)
	return c, err
}

func concat[P any](x, y []P) []P {
	out := make([]P, 0, len(x)+len(y))
	return append(append(out, x...), y...)
}

// pairProduct is ∏ e(pᵢ, qᵢ): Miller loops split across the CPUs, one
// final exponentiation.
func pairProduct(p []bls12381.G1Affine, q []bls12381.G2Affine) (bls12381.GT, error) {
	f, err := millerProduct(p, q)
	if err != nil {
		return f, err
	}
	return bls12381.FinalExponentiation(&f), nil
}

// millerProduct is ∏ MillerLoop(pᵢ, qᵢ), without the final exponentiation.
func millerProduct(p []bls12381.G1Affine, q []bls12381.G2Affine) (bls12381.GT, error) {
	var one bls12381.GT
	one.SetOne()
	if len(p) != len(q) {
		return one, fmt.Errorf("aggregate: pairing %d G1 with %d G2 points", len(p), len(q))
	}
	const minChunk = 8
	w := min(runtime.GOMAXPROCS(0), (len(p)+minChunk-1)/minChunk)
	parts := make([]bls12381.GT, w)
	errs := make([]error, w)
	var wg sync.WaitGroup
	for k := 0; k < w; k++ {
		lo, hi := k*len(p)/w, (k+1)*len(p)/w
		wg.Add(1)
		go func() {
			defer wg.Done()
			parts[k], errs[k] = bls12381.MillerLoop(p[lo:hi], q[lo:hi])
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return one, err
		}
	}
	acc := one
	for i := range parts {
		acc.Mul(&acc, &parts[i])
	}
	return acc, nil
}

// foldG1 sets v[i] = v[i] + v[i+m]·x for i < m = len(v)/2 and returns v[:m].
func foldG1(v []bls12381.G1Affine, x *fr.Element) []bls12381.G1Affine {
	m := len(v) / 2
	var xb big.Int
	x.BigInt(&xb)
	jac := make([]bls12381.G1Jac, m)
	parallel(m, func(lo, hi int) error {
		for i := lo; i < hi; i++ {
			var r bls12381.G1Jac
			r.FromAffine(&v[i+m])
			jac[i].ScalarMultiplication(&r, &xb)
			jac[i].AddMixed(&v[i])
		}
		return nil
	})
	copy(v, bls12381.BatchJacobianToAffineG1(jac))
	return v[:m]
}

// foldG2 is foldG1 in G2.
func foldG2(v []bls12381.G2Affine, x *fr.Element) []bls12381.G2Affine {
	m := len(v) / 2
	var xb big.Int
	x.BigInt(&xb)
	jac := make([]bls12381.G2Jac, m)
	parallel(m, func(lo, hi int) error {
		for i := lo; i < hi; i++ {
			var r bls12381.G2Jac
			r.FromAffine(&v[i+m])
			jac[i].ScalarMultiplication(&r, &xb)
			jac[i].AddMixed(&v[i])
		}
		return nil
	})
	toAffineG2(v[:m], jac)
	return v[:m]
}

// scaleG1 returns v[i]·s[i].
func scaleG1(v []bls12381.G1Affine, s []fr.Element) []bls12381.G1Affine {
	jac := make([]bls12381.G1Jac, len(v))
	parallel(len(v), func(lo, hi int) error {
		var sb big.Int
		for i := lo; i < hi; i++ {
			s[i].BigInt(&sb)
			var r bls12381.G1Jac
			r.FromAffine(&v[i])
			jac[i].ScalarMultiplication(&r, &sb)
		}
		return nil
	})
	return bls12381.BatchJacobianToAffineG1(jac)
}

// scaleG2 is scaleG1 in G2.
func scaleG2(v []bls12381.G2Affine, s []fr.Element) []bls12381.G2Affine {
	jac := make([]bls12381.G2Jac, len(v))
	parallel(len(v), func(lo, hi int) error {
		var sb big.Int
		for i := lo; i < hi; i++ {
			s[i].BigInt(&sb)
			var r bls12381.G2Jac
			r.FromAffine(&v[i])
			jac[i].ScalarMultiplication(&r, &sb)
		}
		return nil
	})
	out := make([]bls12381.G2Affine, len(v))
	toAffineG2(out, jac)
	return out
}

func toAffineG2(out []bls12381.G2Affine, jac []bls12381.G2Jac) {
	parallel(len(jac), func(lo, hi int) error {
		for i := lo; i < hi; i++ {
			out[i].FromJacobian(&jac[i])
		}
		return nil
	})
}
