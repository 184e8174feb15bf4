package cpu

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-project/cuzk/device/internal/split"
	"github.com/cuzk-project/cuzk/groth16"
	"github.com/cuzk-project/cuzk/r1cs"
)

// ErrReused rejects a Prepared passed to Run, or a Partial passed to
// Finish, a second time: their buffers are gone after the first call.
var ErrReused = errors.New("cpu: Prepare/Run result used twice")

// Device is the CPU groth16.Device. The zero value is ready to use and
// runs every step on GOMAXPROCS goroutines.
type Device struct {
	// Tasks bounds the goroutines of one step; 0 means GOMAXPROCS.
	Tasks int
	// Observe, when set, is told how long each phase of a proof took. It
	// is called from the worker running the step and must be safe for
	// concurrent use.
	Observe func(ph Phase, elapsed time.Duration)

	mu      sync.Mutex
	domains map[int]*domainEntry // by size m

	words   pool[uint32] // the ones' bitmaps (a 32nd of a query)
	u32     pool[uint32] // the tails' base indices (a quarter of one)
	scalars pool[fr.Element]
	g1      pool[bls12381.G1Affine]
	g2      pool[bls12381.G2Affine]
}

// Phase names a timed part of the device's work.
type Phase string

const (
	PhasePrepare Phase = "prepare" // checks, 0/1 split, compaction
	PhaseHFFT    Phase = "h-fft"   // the seven transforms of H
	PhaseHMSM    Phase = "h-msm"
	PhaseLMSM    Phase = "l-msm"
	PhaseAMSM    Phase = "a-msm"
	PhaseB1MSM   Phase = "b1-msm"
	PhaseB2MSM   Phase = "b2-msm" // in Finish
)

// observe reports the time since *t for ph and resets *t.
func (d *Device) observe(ph Phase, t *time.Time) {
	if d.Observe == nil {
		return
	}
	now := time.Now()
	d.Observe(ph, now.Sub(*t))
	*t = now
}

// New returns a Device using tasks goroutines per step (0: GOMAXPROCS).
func New(tasks int) *Device { return &Device{Tasks: tasks} }

var _ groth16.Device = (*Device)(nil)

func (d *Device) tasks() int {
	if d.Tasks > 0 {
		return d.Tasks
	}
	return runtime.GOMAXPROCS(0)
}

// g1Query is one G1 MSM, ready to run: Σ all[ones] + MSM(tail).
type g1Query struct {
	sorted
	all   []bls12381.G1Affine // the query's bases (for the ones)
	bases []bls12381.G1Affine // compacted tail bases
	owned bool                // bases came from the pool
}

// prepared is the Device's state between Prepare and Run.
type prepared struct {
	a   *groth16.Assignment
	p   *groth16.Params
	m   int
	l   g1Query
	aq  g1Query
	b1  g1Query
	b2  []bls12381.G2Affine // compacted tail bases of B_G2 (b1's split)
	b2o bool

	ran, finished atomic.Bool // Run and Finish each take w once
}

// partial is the Device's state between Run and Finish.
type partial struct {
	w    *prepared
	sums groth16.Sums
}

// Prepare checks shapes, splits the L, A and B scalars by value and
// compacts the bases of the remaining (non-0/1) scalars.
func (d *Device) Prepare(ctx context.Context, a *groth16.Assignment, p *groth16.Params) (groth16.Prepared, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	start := time.Now()
	if err := groth16.CheckAssignment(a, p); err != nil {
		return nil, err
	}
	if p.Deferred != nil {
		return nil, fmt.Errorf("cpu: parameters of %s: %w (they were opened for a device that reads them itself)", p.Deferred.Path(), groth16.ErrDeferred)
	}
	if err := a.Evaluate(); err != nil { // a witness-only assignment: a, b, c from its compiled system
		return nil, err
	}
	m := r1cs.DomainSize(len(a.A))
	w := &prepared{a: a, p: p, m: m}
	t := d.tasks()
	g := d.g1Group()
	// The scalars of L, A and B in base order, split in one walk.
	queries := []*g1Query{&w.l, &w.aq, &w.b1}
	d.sortEach([]*sorted{&w.l.sorted, &w.aq.sorted, &w.b1.sorted}, [][]split.Span{
		{{Vals: a.Aux}},
		{{Vals: a.Input}, {Vals: a.Aux, Density: a.ADensityAux}},
		{{Vals: a.Input, Density: a.BDensityInput}, {Vals: a.Aux, Density: a.BDensityAux}},
	}, t)
	for i, all := range [][]bls12381.G1Affine{p.L, p.A, p.BG1} {
		q := queries[i]
		q.all = all
		q.bases, q.owned = compact(g, all, q.tail, t)
	}
	w.b2, w.b2o = compact(d.g2Group(), p.BG2, w.b1.tail, t)
	d.observe(PhasePrepare, &start)
	return w, nil
}

// Run computes H and the H, L, A and B_G1 sums. It drops a, b and c from
// the assignment.
func (d *Device) Run(ctx context.Context, wp groth16.Prepared) (groth16.Partial, error) {
	w, ok := wp.(*prepared)
	if !ok || w == nil {
		return nil, fmt.Errorf("cpu: Run given %T, not this device's Prepare result", wp)
	}
	if w.ran.Swap(true) {
		return nil, ErrReused
	}
	fail := func(err error) (groth16.Partial, error) {
		d.release(w)
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return fail(err)
	}
	t := d.tasks()
	r := &partial{w: w}

	start := time.Now()
	h, done, err := d.computeH(w.a, w.m, t)
	if err != nil {
		return fail(err)
	}
	w.a.ReleaseABC() // h may still live in a's array: it goes with done
	if err := ctx.Err(); err != nil {
		done()
		return fail(err)
	}
	d.observe(PhaseHFFT, &start)
	r.sums.H, err = multiExp(ctx, w.p.H, h, t, infinityG1())
	done()
	if err != nil {
		return fail(err)
	}
	d.observe(PhaseHMSM, &start)

	for _, q := range []struct {
		q   *g1Query
		dst *bls12381.G1Jac
		ph  Phase
	}{{&w.l, &r.sums.L, PhaseLMSM}, {&w.aq, &r.sums.A, PhaseAMSM}, {&w.b1, &r.sums.B1, PhaseB1MSM}} {
		if err := ctx.Err(); err != nil {
			return fail(err)
		}
		s, err := sum(ctx, d.g1Group(), &q.q.sorted, q.q.all, q.q.bases, t)
		if err != nil {
			return fail(err)
		}
		*q.dst = s
		d.observe(q.ph, &start)
	}
	return r, nil
}

// Finish computes the B_G2 sum and returns the proof's sums.
func (d *Device) Finish(ctx context.Context, rp groth16.Partial) (*groth16.Sums, error) {
	r, ok := rp.(*partial)
	if !ok || r == nil {
		return nil, fmt.Errorf("cpu: Finish given %T, not this device's Run result", rp)
	}
	if r.w.finished.Swap(true) {
		return nil, ErrReused
	}
	defer d.release(r.w)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	t := d.tasks()
	w := r.w
	start := time.Now()
	b2, err := sum(ctx, d.g2Group(), &w.b1.sorted, w.p.BG2, w.b2, t)
	if err != nil {
		return nil, err
	}
	r.sums.B2 = b2
	d.observe(PhaseB2MSM, &start)
	sums := r.sums
	return &sums, nil
}

// release returns w's buffers to the pools; w must not be used after.
func (d *Device) release(w *prepared) {
	for _, q := range []*g1Query{&w.l, &w.aq, &w.b1} {
		d.unsort(&q.sorted)
		if q.owned {
			d.g1.put(q.bases)
		}
		*q = g1Query{}
	}
	if w.b2o {
		d.g2.put(w.b2)
	}
	w.b2, w.b2o = nil, false
}

// Profile is the device's groth16.Profile: its host workspace
// (HostWorkspace); it holds only Go memory, evaluates no witness itself
// and keeps nothing.
func (d *Device) Profile() groth16.Profile { return groth16.Profile{HostWorkspace: d.HostWorkspace} }

// HostWorkspace is the memory a partition of rows constraints holds here
// from Prepare to Finish beside a, b, c and its witness
// (groth16.Profile.HostWorkspace): 16 field elements per domain row, what
// Prepare and Run allocated at 2^14 and 2^16 rows.
func (d *Device) HostWorkspace(rows, _ int) uint64 { return HostWorkspaceOf(rows) }

// HostWorkspaceOf is HostWorkspace for rows constraints.
func HostWorkspaceOf(rows int) uint64 {
	return 16 * uint64(r1cs.DomainSize(rows)) * uint64(fr.Bytes)
}
