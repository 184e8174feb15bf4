package aggregate

import "github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

// The folded commitment keys are KZG commitments to polynomials in product
// form. With the GIPA challenges x₀ … x_{l−1} listed in reverse (t[j] =
// x_{l−1−j}) and a shift s,
//
//	f(X) = ∏_{j<l} (1 + t[j]·(s·X)^(2^j)),
//
// a polynomial of degree 2^l − 1 = n − 1. The final v key is h^(f(α)) with
// t the inverse challenges and s = 1; the final w key is g^(αⁿ·f(α)) with t
// the challenges and s = r⁻¹ (w was rescaled by r⁻ⁱ).

// productEval evaluates f at z in O(l).
func productEval(t []fr.Element, z, s *fr.Element) fr.Element {
	var p, one, res, term fr.Element
	one.SetOne()
	p.Mul(z, s)
	res.SetOne()
	for j := range t {
		if j > 0 {
			p.Square(&p)
		}
		term.Mul(&t[j], &p)
		term.Add(&term, &one)
		res.Mul(&res, &term)
	}
	return res
}

// productCoeffs expands f into its n = 2^l coefficients, lowest first.
func productCoeffs(t []fr.Element, s *fr.Element) []fr.Element {
	c := make([]fr.Element, 1, 1<<len(t))
	c[0].SetOne()
	p := *s
	for j := range t {
		if j > 0 {
			p.Square(&p)
		}
		var k fr.Element
		k.Mul(&t[j], &p)
		m := len(c)
		for i := 0; i < m; i++ {
			var v fr.Element
			v.Mul(&c[i], &k)
			c = append(c, v)
		}
	}
	return c
}

// kzgQuotient returns q = (f(X) − f(z))/(X − z) for f given by its
// coefficients (lowest first); the division is exact, so f(z) is not needed.
func kzgQuotient(f []fr.Element, z *fr.Element) []fr.Element {
	if len(f) < 2 {
		return nil
	}
	q := make([]fr.Element, len(f)-1)
	q[len(q)-1] = f[len(f)-1]
	for i := len(q) - 1; i > 0; i-- {
		var t fr.Element
		t.Mul(&q[i], z)
		q[i-1].Add(&f[i], &t)
	}
	return q
}
