package groth16

import (
	"math/big"

	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"
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

// combG1 is the comb table of a G1 base.
type combG1 []bls12381.G1Affine

func newCombG1(g *bls12381.G1Affine) combG1 {
	table := make([]bls12381.G1Affine, combWindows*combDigits)
	{
		jac := make([]bls12381.G1Jac, len(table))
		var base bls12381.G1Jac
		base.FromAffine(g)
		for w := 0; w < combWindows; w++ {
			row := jac[w*combDigits : (w+1)*combDigits]
			row[0] = base
			for d := 1; d < combDigits; d++ {
				row[d] = row[d-1]
				row[d].AddAssign(&base)
			}
			base = row[combDigits-1]
			base.AddAssign(&row[0]) // 256·base
		}
		batchToAffineG1(jac, table)
	}
	return table
}

// fixedBaseG1 returns s_i·g for every scalar.
func fixedBaseG1(g *bls12381.G1Affine, s []fr.Element) []bls12381.G1Affine {
	if len(s) < 64 { // a table is not worth it
		out := make([]bls12381.G1Affine, len(s))
		var k big.Int
		for i := range s {
			out[i].ScalarMultiplication(g, s[i].BigInt(&k))
		}
		return out
	}
	return newCombG1(g).mul(s)
}

// mul returns s_i·g for every scalar, in parallel. The accumulators stay
// affine: window by window, every point of a batch adds its table entry
// with one shared inversion (Montgomery's trick). The affine formula never
// meets a doubling or an opposite point: before window w an accumulator is
// k·g with k < 2^(8w), the entry is d·2^(8w)·g, and for a canonical scalar
// (< r) both multipliers and their sum stay below r.
func (table combG1) mul(s []fr.Element) []bls12381.G1Affine {
	out := make([]bls12381.G1Affine, len(s))
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
	return out
}

// combG2 is the comb table of a G2 base.
type combG2 []bls12381.G2Affine

func newCombG2(g *bls12381.G2Affine) combG2 {
	table := make([]bls12381.G2Affine, combWindows*combDigits)
	{
		jac := make([]bls12381.G2Jac, len(table))
		var base bls12381.G2Jac
		base.FromAffine(g)
		for w := 0; w < combWindows; w++ {
			row := jac[w*combDigits : (w+1)*combDigits]
			row[0] = base
			for d := 1; d < combDigits; d++ {
				row[d] = row[d-1]
				row[d].AddAssign(&base)
			}
			base = row[combDigits-1]
			base.AddAssign(&row[0])
		}
		batchToAffineG2(jac, table)
	}
	return table
}

// fixedBaseG2 returns s_i·g for every scalar.
func fixedBaseG2(g *bls12381.G2Affine, s []fr.Element) []bls12381.G2Affine {
	if len(s) < 64 {
		out := make([]bls12381.G2Affine, len(s))
		var k big.Int
		for i := range s {
			out[i].ScalarMultiplication(g, s[i].BigInt(&k))
		}
		return out
	}
	return newCombG2(g).mul(s)
}

// mul is combG1.mul for G2.
func (table combG2) mul(s []fr.Element) []bls12381.G2Affine {
	out := make([]bls12381.G2Affine, len(s))
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
	return out
}

// batchToAffineG1 converts p to affine in out with one inversion
// (Montgomery's trick); points with Z = 0 become (0, 0).
func batchToAffineG1(p []bls12381.G1Jac, out []bls12381.G1Affine) {
	acc := p[0].Z
	acc.SetOne()
	for i := range p {
		if p[i].Z.IsZero() {
			continue
		}
		out[i].X = acc // prefix product, before i
		acc.Mul(&acc, &p[i].Z)
	}
	acc.Inverse(&acc)
	for i := len(p) - 1; i >= 0; i-- {
		if p[i].Z.IsZero() {
			continue
		}
		out[i].X.Mul(&out[i].X, &acc) // Z_i⁻¹
		acc.Mul(&acc, &p[i].Z)
	}
	for i := range p {
		if p[i].Z.IsZero() {
			out[i].X.SetZero()
			out[i].Y.SetZero()
			continue
		}
		zi := out[i].X
		zi2 := zi
		zi2.Square(&zi2)
		out[i].X.Mul(&p[i].X, &zi2)
		out[i].Y.Mul(&p[i].Y, &zi2).Mul(&out[i].Y, &zi)
	}
}

// batchToAffineG2 is batchToAffineG1 for G2.
func batchToAffineG2(p []bls12381.G2Jac, out []bls12381.G2Affine) {
	acc := p[0].Z
	acc.SetOne()
	for i := range p {
		if p[i].Z.IsZero() {
			continue
		}
		out[i].X = acc
		acc.Mul(&acc, &p[i].Z)
	}
	acc.Inverse(&acc)
	for i := len(p) - 1; i >= 0; i-- {
		if p[i].Z.IsZero() {
			continue
		}
		out[i].X.Mul(&out[i].X, &acc)
		acc.Mul(&acc, &p[i].Z)
	}
	for i := range p {
		if p[i].Z.IsZero() {
			out[i].X.SetZero()
			out[i].Y.SetZero()
			continue
		}
		zi := out[i].X
		zi2 := zi
		zi2.Square(&zi2)
		out[i].X.Mul(&p[i].X, &zi2)
		out[i].Y.Mul(&p[i].Y, &zi2).Mul(&out[i].Y, &zi)
	}
}
