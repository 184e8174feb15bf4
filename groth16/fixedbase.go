package groth16

import (
	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fp"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// Fixed-base scalar multiplication for the setup: a comb of 32 windows of
// 8 bits. table[w][d−1] = d·2^(8w)·g, so s·g = Σ_w table[w][digit_w(s)−1]:
// at most 32 mixed additions and no doublings per scalar. Results are
// converted to affine in batches with one field inversion per batch.

const (
	combBits    = 8
	combWindows = 256 / combBits
	combDigits  = 1<<combBits - 1
	combBatch   = 1 << 12 // points per batch inversion
)

// digit returns the w-th 8-bit digit of the regular (non-Montgomery) limbs.
func digit(limbs *[4]uint64, w int) int {
	return int(limbs[w/8] >> (8 * (w % 8)) & 0xff)
}

// newComb builds the comb table of base g in a group whose Jacobian
// points are J and affine points A: table[w·255 + d − 1] = d·2^(8w)·g,
// converted to affine by toAffine (one inversion for the table). It runs
// once per base, so the type parameters cost nothing that matters.
func newComb[J, A any, PJ interface {
	*J
	FromAffine(*A) *J
	AddAssign(*J) *J
}](g *A, toAffine func([]J) []A) []A {
	jac := make([]J, combWindows*combDigits)
	var base J
	PJ(&base).FromAffine(g)
	for w := 0; w < combWindows; w++ {
		row := jac[w*combDigits : (w+1)*combDigits]
		row[0] = base
		for d := 1; d < combDigits; d++ {
			row[d] = row[d-1]
			PJ(&row[d]).AddAssign(&base)
		}
		base = row[combDigits-1]
		PJ(&base).AddAssign(&row[0]) // 256·base
	}
	return toAffine(jac)
}

// combG1 is the comb table of a G1 base.
type combG1 []bls12381.G1Affine

func newCombG1(g *bls12381.G1Affine) combG1 {
	return newComb[bls12381.G1Jac](g, batchToAffine[fp.Element])
}

// mul returns s_i·g for every scalar, in parallel. It and combG2.mul are
// twins on purpose: written once over the coordinate field with type
// parameters, this loop ran 1.5× slower in G1 and up to 1.4× in G2 (the
// field operations become calls through the generic dictionary, never
// inlined; docs/gpu-notes.md, host-side notes). The accumulators stay
// affine: window by window, every point of a batch adds its table entry
// with one shared inversion (Montgomery's trick). The affine formula never
// meets a doubling or an opposite point: before window w an accumulator is
// k·g with k < 2^(8w), the entry is d·2^(8w)·g, and for a canonical scalar
// (< r) both multipliers and their sum stay below r.
func (table combG1) mul(s []fr.Element) []bls12381.G1Affine {
	out := make([]bls12381.G1Affine, len(s))
	table.mulInto(s, out)
	return out
}

// mulInto is mul into out (len(out) = len(s)).
func (table combG1) mulInto(s []fr.Element, out []bls12381.G1Affine) {
	parallelChunks(len(s), func(lo, hi int) {
		n := min(combBatch, hi-lo)
		limbs := make([][4]uint64, n)
		set := make([]bool, n)
		den := make([]bls12381.G1Affine, n) // X: x_T − x_acc, Y: prefix product
		active := make([]int32, 0, n)
		for b := lo; b < hi; b += combBatch {
			e := min(b+combBatch, hi)
			acc := out[b:e]
			for i := range acc {
				limbs[i] = s[b+i].Bits()
				set[i] = false
			}
			for w := 0; w < combWindows; w++ {
				active = active[:0]
				prod := den[0].Y
				prod.SetOne()
				for i := range acc {
					d := digit(&limbs[i], w)
					if d == 0 {
						continue
					}
					t := &table[w*combDigits+d-1]
					if !set[i] {
						acc[i] = *t
						set[i] = true
						continue
					}
					den[i].X.Sub(&t.X, &acc[i].X)
					den[i].Y = prod
					prod.Mul(&prod, &den[i].X)
					active = append(active, int32(i))
				}
				if len(active) == 0 {
					continue
				}
				inv := prod
				inv.Inverse(&inv)
				for k := len(active) - 1; k >= 0; k-- {
					i := active[k]
					t := &table[w*combDigits+digit(&limbs[i], w)-1]
					a := &acc[i]
					var dinv, lambda, x3, y3 = den[i].Y, den[i].Y, den[i].Y, den[i].Y
					dinv.Mul(&den[i].Y, &inv) // 1/(x_T − x_acc)
					inv.Mul(&inv, &den[i].X)
					lambda.Sub(&t.Y, &a.Y).Mul(&lambda, &dinv)
					x3.Square(&lambda).Sub(&x3, &a.X).Sub(&x3, &t.X)
					y3.Sub(&a.X, &x3).Mul(&y3, &lambda).Sub(&y3, &a.Y)
					a.X, a.Y = x3, y3
				}
			}
		}
	})
}

// combG2 is the comb table of a G2 base.
type combG2 []bls12381.G2Affine

func newCombG2(g *bls12381.G2Affine) combG2 {
	return newComb[bls12381.G2Jac](g, batchToAffine[bls12381.E2])
}

// mul is combG1.mul for G2.
func (table combG2) mul(s []fr.Element) []bls12381.G2Affine {
	out := make([]bls12381.G2Affine, len(s))
	table.mulInto(s, out)
	return out
}

// mulInto is mul into out (len(out) = len(s)).
func (table combG2) mulInto(s []fr.Element, out []bls12381.G2Affine) {
	parallelChunks(len(s), func(lo, hi int) {
		n := min(combBatch, hi-lo)
		limbs := make([][4]uint64, n)
		set := make([]bool, n)
		den := make([]bls12381.G2Affine, n) // X: x_T − x_acc, Y: prefix product
		active := make([]int32, 0, n)
		for b := lo; b < hi; b += combBatch {
			e := min(b+combBatch, hi)
			acc := out[b:e]
			for i := range acc {
				limbs[i] = s[b+i].Bits()
				set[i] = false
			}
			for w := 0; w < combWindows; w++ {
				active = active[:0]
				prod := den[0].Y
				prod.SetOne()
				for i := range acc {
					d := digit(&limbs[i], w)
					if d == 0 {
						continue
					}
					t := &table[w*combDigits+d-1]
					if !set[i] {
						acc[i] = *t
						set[i] = true
						continue
					}
					den[i].X.Sub(&t.X, &acc[i].X)
					den[i].Y = prod
					prod.Mul(&prod, &den[i].X)
					active = append(active, int32(i))
				}
				if len(active) == 0 {
					continue
				}
				inv := prod
				inv.Inverse(&inv)
				for k := len(active) - 1; k >= 0; k-- {
					i := active[k]
					t := &table[w*combDigits+digit(&limbs[i], w)-1]
					a := &acc[i]
					var dinv, lambda, x3, y3 = den[i].Y, den[i].Y, den[i].Y, den[i].Y
					dinv.Mul(&den[i].Y, &inv) // 1/(x_T − x_acc)
					inv.Mul(&inv, &den[i].X)
					lambda.Sub(&t.Y, &a.Y).Mul(&lambda, &dinv)
					x3.Square(&lambda).Sub(&x3, &a.X).Sub(&x3, &t.X)
					y3.Sub(&a.X, &x3).Mul(&y3, &lambda).Sub(&y3, &a.Y)
					a.X, a.Y = x3, y3
				}
			}
		}
	})
}

// field is what batchToAffine needs of a coordinate field E (fp.Element
// for G1, bls12381.E2 for G2).
type field[E any] interface {
	*E
	Mul(x, y *E) *E
	Square(x *E) *E
	Inverse(x *E) *E
	SetOne() *E
	IsZero() bool
}

// jacobianCoords and affineCoords are the layouts of a group's Jacobian and
// affine points over E (bls12381.G1Jac is struct{X, Y, Z fp.Element}).
type (
	jacobianCoords[E any] struct{ X, Y, Z E }
	affineCoords[E any]   struct{ X, Y E }
)

// batchToAffine converts p to affine with one inversion (Montgomery's
// trick); points with Z = 0 become (0, 0). It converts comb tables, once
// per base.
func batchToAffine[E any, PE field[E], J ~struct{ X, Y, Z E }, A ~struct{ X, Y E }](p []J) []A {
	c := make([]jacobianCoords[E], len(p))
	for i := range p {
		c[i] = jacobianCoords[E](p[i])
	}
	zinv := make([]E, len(p)) // prefix products, then Z_i⁻¹
	var acc E
	PE(&acc).SetOne()
	for i := range c {
		if !PE(&c[i].Z).IsZero() {
			zinv[i] = acc
			PE(&acc).Mul(&acc, &c[i].Z)
		}
	}
	PE(&acc).Inverse(&acc)
	for i := len(c) - 1; i >= 0; i-- {
		if !PE(&c[i].Z).IsZero() {
			PE(&zinv[i]).Mul(&zinv[i], &acc)
			PE(&acc).Mul(&acc, &c[i].Z)
		}
	}
	out := make([]A, len(p))
	for i := range c {
		var a affineCoords[E]
		if !PE(&c[i].Z).IsZero() {
			var zi2 E
			PE(&zi2).Square(&zinv[i])
			PE(&a.X).Mul(&c[i].X, &zi2)
			PE(&a.Y).Mul(&c[i].Y, &zi2)
			PE(&a.Y).Mul(&a.Y, &zinv[i])
		}
		out[i] = A(a)
	}
	return out
}
