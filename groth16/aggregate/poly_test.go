package aggregate

import (
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

func horner(c []fr.Element, z *fr.Element) fr.Element {
	var acc fr.Element
	for i := len(c) - 1; i >= 0; i-- {
		acc.Mul(&acc, z)
		acc.Add(&acc, &c[i])
	}
	return acc
}

func randElems(n int) []fr.Element {
	v := make([]fr.Element, n)
	for i := range v {
		v[i].SetRandom()
	}
	return v
}

// The expanded product form evaluates like the product form, for l = 0…5
// challenges and a shift.
func TestProductCoeffsMatchEval(t *testing.T) {
	for l := 0; l <= 5; l++ {
		xs := randElems(l)
		s, z := randElems(1)[0], randElems(1)[0]
		c := productCoeffs(xs, &s)
		if len(c) != 1<<l {
			t.Fatalf("l = %d: %d coefficients, want %d", l, len(c), 1<<l)
		}
		got, want := horner(c, &z), productEval(xs, &z, &s)
		if !got.Equal(&want) {
			t.Fatalf("l = %d: coefficients evaluate to %s, product form to %s", l, got.String(), want.String())
		}
	}
}

// q(X)·(X − z) + f(z) = f(X), checked at a random point.
func TestKZGQuotient(t *testing.T) {
	for _, n := range []int{2, 3, 8, 33} {
		f := randElems(n)
		z, x := randElems(1)[0], randElems(1)[0]
		q := kzgQuotient(f, &z)
		fz, fx, qx := horner(f, &z), horner(f, &x), horner(q, &x)
		var xz, lhs fr.Element
		xz.Sub(&x, &z)
		lhs.Mul(&qx, &xz)
		lhs.Add(&lhs, &fz)
		if !lhs.Equal(&fx) {
			t.Fatalf("n = %d: q(x)(x − z) + f(z) ≠ f(x)", n)
		}
	}
}
