package groth16

import (
	"fmt"
	"sync"

	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// FixedBase multiplies one base by many scalars, the bulk of a setup:
// out[i] = scalars[i]·base in affine coordinates, the identity as (0, 0)
// (gnark's encoding), len(out) = len(scalars); MulG1 for ic, h, l, a and
// b_g1, MulG2 for b_g2. The results are unique, so every implementation
// gives the same points bit for bit. The setup calls MulG2 on a goroutine
// of its own beside MulG1 (one chunk of one query at a time on each side);
// an implementation may serialize the two.
//
// CPUFixedBase is the CPU's; the CUDA device (device/cuda) has one too.
type FixedBase interface {
	MulG1(base bls12381.G1Affine, scalars []fr.Element, out []bls12381.G1Affine) error
	MulG2(base bls12381.G2Affine, scalars []fr.Element, out []bls12381.G2Affine) error
}

// CPUFixedBase is FixedBase on all cores: the comb of 32 windows of 8 bits
// with batched affine additions (fixedbase.go). It keeps the table of the
// last base of each group (783 KB for G1, 1.57 MB for G2). The zero value
// is ready; it is safe for concurrent use.
type CPUFixedBase struct {
	mu sync.Mutex
	g1 lastComb[bls12381.G1Affine, combG1]
	g2 lastComb[bls12381.G2Affine, combG2]
}

var _ FixedBase = (*CPUFixedBase)(nil)

// MulG1 implements FixedBase. The base must lie in G1 (the comb's
// additions rely on its prime order); it is checked to lie on the curve.
func (c *CPUFixedBase) MulG1(base bls12381.G1Affine, scalars []fr.Element, out []bls12381.G1Affine) error {
	return mulComb[bls12381.G1Affine, *bls12381.G1Affine](&c.mu, &c.g1, newCombG1, "G1", base, scalars, out)
}

// MulG2 implements FixedBase, as MulG1 over G2.
func (c *CPUFixedBase) MulG2(base bls12381.G2Affine, scalars []fr.Element, out []bls12381.G2Affine) error {
	return mulComb[bls12381.G2Affine, *bls12381.G2Affine](&c.mu, &c.g2, newCombG2, "G2", base, scalars, out)
}

// lastComb is the comb table of the last base of one group.
type lastComb[A any, T any] struct {
	base  A
	table T
	ok    bool
}

// mulComb is MulG1 and MulG2 over affine points A with comb tables T: the
// checks, then the table of base (kept in last, under mu) into out.
func mulComb[A any, PA interface {
	*A
	IsInfinity() bool
	IsOnCurve() bool
	Equal(*A) bool
}, T interface{ mulInto([]fr.Element, []A) }](mu *sync.Mutex, last *lastComb[A, T], newTable func(*A) T,
	group string, base A, scalars []fr.Element, out []A,
) error {
	if len(out) != len(scalars) {
		return fmt.Errorf("groth16: fixed-base %s: %d scalars, %d outputs", group, len(scalars), len(out))
	}
	if PA(&base).IsInfinity() {
		clear(out)
		return nil
	}
	if !PA(&base).IsOnCurve() {
		return fmt.Errorf("groth16: fixed-base %s: the base is not on the curve", group)
	}
	mu.Lock()
	if !last.ok || !PA(&last.base).Equal(&base) {
		last.base, last.table, last.ok = base, newTable(&base), true
	}
	table := last.table
	mu.Unlock()
	table.mulInto(scalars, out)
	return nil
}
