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
	mu     sync.Mutex
	base1  bls12381.G1Affine
	table1 combG1
	base2  bls12381.G2Affine
	table2 combG2
}

var _ FixedBase = (*CPUFixedBase)(nil)

// MulG1 implements FixedBase. The base must lie in G1 (the comb's
// additions rely on its prime order); it is checked to lie on the curve.
func (c *CPUFixedBase) MulG1(base bls12381.G1Affine, scalars []fr.Element, out []bls12381.G1Affine) error {
	if len(out) != len(scalars) {
		return fmt.Errorf("groth16: fixed-base G1: %d scalars, %d outputs", len(scalars), len(out))
	}
	if base.IsInfinity() {
		clear(out)
		return nil
	}
	if !base.IsOnCurve() {
		return fmt.Errorf("groth16: fixed-base G1: the base is not on the curve")
	}
	c.mu.Lock()
	if c.table1 == nil || !c.base1.Equal(&base) {
		c.base1, c.table1 = base, newCombG1(&base)
	}
	table := c.table1
	c.mu.Unlock()
	table.mulInto(scalars, out)
	return nil
}

// MulG2 implements FixedBase, as MulG1 over G2.
func (c *CPUFixedBase) MulG2(base bls12381.G2Affine, scalars []fr.Element, out []bls12381.G2Affine) error {
	if len(out) != len(scalars) {
		return fmt.Errorf("groth16: fixed-base G2: %d scalars, %d outputs", len(scalars), len(out))
	}
	if base.IsInfinity() {
		clear(out)
		return nil
	}
	if !base.IsOnCurve() {
		return fmt.Errorf("groth16: fixed-base G2: the base is not on the curve")
	}
	c.mu.Lock()
	if c.table2 == nil || !c.base2.Equal(&base) {
		c.base2, c.table2 = base, newCombG2(&base)
	}
	table := c.table2
	c.mu.Unlock()
	table.mulInto(scalars, out)
	return nil
}
