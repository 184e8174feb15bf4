package cpu

import (
	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fp"
)

// batchTail is the point count below which a reduction level is not worth
// its inversion; the rest is added in Jacobian coordinates.
const batchTail = 32

// sumAffineG1 adds pts (which it overwrites) into acc by a pairwise tree of
// affine additions, one field inversion per level shared by all pairs
// (Montgomery's trick): about 6 multiplications per addition instead of a
// mixed addition's 11. Pairs with equal x (a doubling or a cancellation) or
// an infinity go to acc in Jacobian coordinates, which handles them.
// den and pre are scratch of at least len(pts)/2 elements.
func sumAffineG1(acc *bls12381.G1Jac, pts []bls12381.G1Affine, den, pre []fp.Element) {
	for len(pts) > batchTail {
		half := len(pts) / 2
		// Denominators x2 − x1; special pairs get 1 and are flagged by
		// moving them into acc and zeroing the pair.
		var prod fp.Element
		prod.SetOne()
		for i := 0; i < half; i++ {
			p, q := &pts[2*i], &pts[2*i+1]
			if p.IsInfinity() || q.IsInfinity() || p.X.Equal(&q.X) {
				acc.AddMixed(p)
				acc.AddMixed(q)
				p.SetInfinity()
				q.SetInfinity()
				den[i].SetOne()
			} else {
				den[i].Sub(&q.X, &p.X)
			}
			pre[i] = prod
			prod.Mul(&prod, &den[i])
		}
		// inv = 1 / Π den; walk back to turn each den[i] into 1/den[i].
		var inv fp.Element
		inv.Inverse(&prod)
		for i := half - 1; i >= 0; i-- {
			d := den[i]
			den[i].Mul(&inv, &pre[i])
			inv.Mul(&inv, &d)
		}
		// Results are compacted to the front: slot out ≤ i belongs to a
		// pair at most i, which has been read already.
		out := 0
		for i := 0; i < half; i++ {
			p, q := &pts[2*i], &pts[2*i+1]
			if p.IsInfinity() { // a special pair, already in acc
				continue
			}
			var l, x3, y3 fp.Element
			l.Sub(&q.Y, &p.Y).Mul(&l, &den[i])
			x3.Square(&l).Sub(&x3, &p.X).Sub(&x3, &q.X)
			y3.Sub(&p.X, &x3).Mul(&y3, &l).Sub(&y3, &p.Y)
			pts[out].X, pts[out].Y = x3, y3
			out++
		}
		// An odd last point joins the survivors.
		n := out
		if len(pts)%2 == 1 {
			pts[n] = pts[len(pts)-1]
			n++
		}
		pts = pts[:n]
	}
	for i := range pts {
		acc.AddMixed(&pts[i])
	}
}

// sumAffineG2 is sumAffineG1 in G2 (coordinates in Fp2). The two are twins
// on purpose: written once over the coordinate field with type parameters,
// the G1 loop ran 1.7× slower (its field operations become calls through
// the generic dictionary, never inlined; docs/gpu-notes.md, host-side
// notes). What surrounds them (sumOnes, the MSM drivers) is written once.
func sumAffineG2(acc *bls12381.G2Jac, pts []bls12381.G2Affine, den, pre []bls12381.E2) {
	for len(pts) > batchTail {
		half := len(pts) / 2
		var prod bls12381.E2
		prod.SetOne()
		for i := 0; i < half; i++ {
			p, q := &pts[2*i], &pts[2*i+1]
			if p.IsInfinity() || q.IsInfinity() || p.X.Equal(&q.X) {
				acc.AddMixed(p)
				acc.AddMixed(q)
				p.SetInfinity()
				q.SetInfinity()
				den[i].SetOne()
			} else {
				den[i].Sub(&q.X, &p.X)
			}
			pre[i] = prod
			prod.Mul(&prod, &den[i])
		}
		var inv bls12381.E2
		inv.Inverse(&prod)
		for i := half - 1; i >= 0; i-- {
			d := den[i]
			den[i].Mul(&inv, &pre[i])
			inv.Mul(&inv, &d)
		}
		out := 0
		for i := 0; i < half; i++ {
			p, q := &pts[2*i], &pts[2*i+1]
			if p.IsInfinity() {
				continue
			}
			var l, x3, y3 bls12381.E2
			l.Sub(&q.Y, &p.Y).Mul(&l, &den[i])
			x3.Square(&l).Sub(&x3, &p.X).Sub(&x3, &q.X)
			y3.Sub(&p.X, &x3).Mul(&y3, &l).Sub(&y3, &p.Y)
			pts[out].X, pts[out].Y = x3, y3
			out++
		}
		n := out
		if len(pts)%2 == 1 {
			pts[n] = pts[len(pts)-1]
			n++
		}
		pts = pts[:n]
	}
	for i := range pts {
		acc.AddMixed(&pts[i])
	}
}
