package cuda

import (
	"context"
	"fmt"
	"time"

	"github.com/cuzk-project/cuzk/groth16"
)

// Under a memory limit a Run reads and uploads every streamed point of the
// parameter set, tens of gigabytes at 32 GiB (from the parameter file, the
// reads can bound it). RunPair runs two partitions of one set as one run
// that reads and uploads each streamed point once for both: each chunk's MSMs run for both partitions'
// scalars before its slot is refilled. The first partition's H leaves the
// device between the two H sequences (device memory holds one) through its
// a, b staging, dead by then, and comes back beside the H points.

// Pairs reports whether RunPair pays for p's partitions here: p's set is
// planned to stream (groth16.Profile.Pairs) and the library pairs runs.
// CUZK_PAIRS=0 in the environment when the device is opened turns pairs
// off (for a comparison).
func (d *Device) Pairs(p *groth16.Params) bool {
	if d.noPairs || lib.runPair == nil || d.gone.Load() {
		return false
	}
	plan, ok := d.Plan(p)
	return ok && plan.Streams()
}

// RunPair runs two Prepareds of one parameter set (Prepare's classic
// ones) as one paired run where the set streams, else, and where the first
// staging cannot hold the first H, as two Runs one after the other. The
// pair's device time is shared equally between the two Partials: each
// reports half its phases and stream statistics, the first the first half
// of its kernel interval and the second the second. On failure both are
// released.
func (d *Device) RunPair(ctx context.Context, x0, x1 groth16.Prepared) (groth16.Partial, groth16.Partial, error) {
	return d.runPairOn(&d.kernels, ctx, x0, x1)
}

func (d *Device) runPairOn(k *kernels, ctx context.Context, x0, x1 groth16.Prepared) (groth16.Partial, groth16.Partial, error) {
	w0, ok0 := x0.(*prepared)
	w1, ok1 := x1.(*prepared)
	if !ok0 || !ok1 || w0 == nil || w1 == nil || w0 == w1 || w0.p != w1.p || w0.lgn != w1.lgn || !d.Pairs(w0.p) ||
		w0.ab.n < (uint64(1)<<w0.lgn-1)*32 {
		return d.runTwo(k, ctx, x0, x1)
	}
	if w0.ran.Swap(true) {
		return nil, nil, ErrReused
	}
	if w1.ran.Swap(true) {
		d.release(w0)
		return nil, nil, ErrReused
	}
	fail := func(err error) (groth16.Partial, groth16.Partial, error) {
		d.release(w0)
		d.release(w1)
		return nil, nil, err
	}
	if err := ctx.Err(); err != nil {
		return fail(err)
	}
	jobs := [2]cJob{w0.job(), w1.job()}
	if err := k.lock(); err != nil {
		return fail(err)
	}
	var res [2]cResult
	var rc int32
	end := d.inRun(k, func() {
		res, rc = k.results2(func(r *cResult) int32 { return lib.runPair(k.ctx, w0.srs, &jobs[0], w0.ab.p, w0.ab.n, r) })
	})
	var stream StreamStats
	if rc == 0 {
		stream = k.streamStats()
	}
	k.mu.Unlock()
	if rc != 0 {
		return fail(libErr("run pair", rc))
	}
	half := stream.half()
	r0 := d.partial(w0, &res[0], end, half)
	r1 := d.partial(w1, &res[1], end, half)
	// the times are the pair's (res[1]'s host clock read a moment later)
	total := r0.Timing.Total
	r0.Timing = r0.Timing.half()
	r1.Timing = r0.Timing
	r0.start = end.Add(-total)
	r0.end = r0.start.Add(r0.Timing.Total)
	r1.start = r0.end
	return r0, r1, nil
}

// runTwo is RunPair where the two cannot be paired: two Runs.
func (d *Device) runTwo(k *kernels, ctx context.Context, x0, x1 groth16.Prepared) (groth16.Partial, groth16.Partial, error) {
	r0, err := d.runOn(k, ctx, x0)
	if err != nil {
		d.Discard(x1)
		return nil, nil, err
	}
	r1, err := d.runOn(k, ctx, x1)
	if err != nil {
		d.Discard(r0)
		return nil, nil, fmt.Errorf("cuda: the second of two runs: %w", err)
	}
	return r0, r1, nil
}

// half is t with every time halved: one partition's share of a paired run.
func (t Timing) half() Timing {
	for _, d := range []*time.Duration{&t.Total, &t.H2D, &t.NTT, &t.MSMH, &t.MSML, &t.MSMA, &t.MSMB, &t.MSMB2,
		&t.SpMV, &t.Split, &t.HostBG2, &t.HostPre, &t.GPUWait, &t.HostEnd} {
		*d /= 2
	}
	return t
}

// half is s shared equally by the two partitions of a paired run.
func (s StreamStats) half() StreamStats {
	return StreamStats{Bytes: s.Bytes / 2, Chunks: s.Chunks / 2, CopyMS: s.CopyMS / 2, StallMS: s.StallMS / 2,
		ReadMS: s.ReadMS / 2, Cached: s.Cached / 2}
}
