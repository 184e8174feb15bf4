package groth16

import (
	"fmt"
	"sync"

	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// FixedBaseG1 multiplies one G1 base by many scalars, the bulk of a
// setup: out[i] = scalars[i]·base in affine coordinates, the identity as
// (0, 0) (gnark's encoding), len(out) = len(scalars). The result is unique,
// so every implementation gives the same points bit for bit. The setup
// calls it with one chunk of one query at a time, never concurrently.
//
// CPUFixedBase is the CPU's; the CUDA device (device/cuda) has one too.
type FixedBaseG1 interface {
	MulG1(base bls12381.G1Affine, scalars []fr.Element, out []bls12381.G1Affine) error
}

// CPUFixedBase is FixedBaseG1 on all cores: the comb of 32 windows of 8
// bits with batched affine additions (fixedbase.go). It keeps the table of
// the last base (783 KB). The zero value is ready; it is safe for
// concurrent use.
type CPUFixedBase struct {
	mu    sync.Mutex
	base  bls12381.G1Affine
	table combG1
}

var _ FixedBaseG1 = (*CPUFixedBase)(nil)

// MulG1 implements FixedBaseG1. The base must lie in G1 (the comb's
// additions rely on its prime order); it is checked to lie on the curve.
func (c *CPUFixedBase) MulG1(base bls12381.G1Affine, scalars []fr.Element, out []bls12381.G1Affine) error {
	if len(out) != len(scalars) {
		return fmt.Errorf("groth16: fixed-base: %d scalars, %d outputs", len(scalars), len(out))
	}
	if base.IsInfinity() {
		clear(out)
		return nil
	}
	if !base.IsOnCurve() {
		return fmt.Errorf("groth16: fixed-base: the base is not on the curve")
	}
	c.mu.Lock()
	if c.table == nil || !c.base.Equal(&base) {
		c.base, c.table = base, newCombG1(&base)
	}
	table := c.table
	c.mu.Unlock()
	table.mulInto(scalars, out)
	return nil
}
