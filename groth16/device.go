package groth16

import (
	"context"
	"errors"

	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"
)

// ErrDeviceLost is wrapped by a device's error when the device can take no
// more work (closed, removed, a fatal fault): the engine stops giving it
// units and sends the ones it held back to synthesis for the other
// devices.
var ErrDeviceLost = errors.New("the device is lost")

// Sums are the multi-scalar multiplications a device computes for one
// proof, before randomization (bellperson src/groth16/prover/native.rs):
//
//	H  = Σ h_i·H_i                     (H coefficients, m−1 of them)
//	L  = Σ aux_j·L_j
//	A  = A_in + A_aux                  (a query, density-filtered)
//	B1 = B1_in + B1_aux                (b_g1 query)
//	B2 = B2_in + B2_aux                (b_g2 query)
type Sums struct {
	H, L, A, B1 bls12381.G1Jac
	B2          bls12381.G2Jac
}

// Prepared is a device's state between Prepare and Run.
type Prepared any

// Partial is a device's state between Run and Finish.
type Partial any

// Device computes Sums in three steps so that an engine can hold a device
// lock around Run only:
//
//   - Prepare does CPU work (bitmaps, scalar splitting, staging); unlocked.
//   - Run does the heavy algebra on the device; the only locked step.
//   - Finish does the remaining CPU work (e.g. a B_G2 MSM on the CPU); unlocked.
//
// Run may overwrite a, b and c (e.g. transform them in place) and drop
// them from the assignment: they are dead once Run has been called. Implementations must be safe
// for concurrent use by several workers.
//
// Profile is everything else the device tells its caller about itself
// (its name, host memory, witness evaluation, kept buffers, what it
// reports of each Prepare and Run), in one value.
type Device interface {
	Prepare(ctx context.Context, a *Assignment, p *Params) (Prepared, error)
	Run(ctx context.Context, w Prepared) (Partial, error)
	Finish(ctx context.Context, r Partial) (*Sums, error)
	Profile() Profile
}

// Compute runs the three steps back to back, for callers without an engine.
func Compute(ctx context.Context, d Device, a *Assignment, p *Params) (*Sums, error) {
	w, err := d.Prepare(ctx, a, p)
	if err != nil {
		return nil, err
	}
	r, err := d.Run(ctx, w)
	if err != nil {
		return nil, err
	}
	return d.Finish(ctx, r)
}
