package cuda

import (
	"context"
	"errors"
	"runtime"
	"unsafe"

	"github.com/cuzk-project/cuzk/groth16"
)

// Retain makes p's G1 queries and B_G2 resident on the device (uploading
// them on first use) and counts a reference; Release drops it. Under the
// memory limit a query that does not fit stays in p's host memory
// (page-locked in place, so the host budget that counts p counts it once)
// and streams at every Run; B_G2 is uploaded only where the plan holds it
// (the whole set fits with it, nothing streaming), else Finish computes it
// on the CPU; a limit below what a Run needs fails here with ErrMemoryLimit.
// Parameters whose queries are deferred (groth16.OpenParams) are read from
// their file straight into device memory; they must fit whole, else
// ErrDoesNotFit.
func (d *Device) Retain(p *groth16.Params) error {
	return d.RetainContext(context.Background(), p)
}

// RetainContext is Retain; reading deferred parameters from their file
// stops with ctx's error when ctx ends.
func (d *Device) RetainContext(ctx context.Context, p *groth16.Params) error {
	_, err := d.residentCtx(ctx, p, 1)
	return err
}

// Release drops a reference taken by Retain; at zero the device memory is freed.
func (d *Device) Release(p *groth16.Params) {
	d.smu.Lock()
	r, ok := d.srs[p]
	d.smu.Unlock()
	if !ok {
		return
	}
	<-r.ready
	d.smu.Lock()
	defer d.smu.Unlock()
	if d.srs[p] != r {
		return
	}
	r.refs--
	if r.refs <= 0 {
		r.free()
		delete(d.srs, p)
	}
}

func (d *Device) resident(p *groth16.Params, ref int) (uintptr, error) {
	return d.residentCtx(context.Background(), p, ref)
}

// residentCtx returns p's set on the device, making it on first use, and
// adds ref references. Callers that find the set being filled wait for it.
func (d *Device) residentCtx(ctx context.Context, p *groth16.Params, ref int) (uintptr, error) {
	return d.residentOf(ctx, p, ref, false)
}

// residentOf is residentCtx; fromFile: deferred parameters that do not fit
// whole stream from their file (RetainFromFile) instead of failing with
// ErrDoesNotFit.
func (d *Device) residentOf(ctx context.Context, p *groth16.Params, ref int, fromFile bool) (uintptr, error) {
	if d.gone.Load() {
		return 0, ErrClosed
	}
	d.smu.Lock()
	if r, ok := d.srs[p]; ok {
		r.refs += ref
		d.smu.Unlock()
		<-r.ready
		if r.err != nil {
			return 0, r.err
		}
		return r.h, nil
	}
	var r *resident
	var err error
	if p.Deferred != nil {
		r, err = d.allocateDeferred(p, ref)
		if fromFile && errors.Is(err, ErrDoesNotFit) {
			if r, err = d.allocateFromFile(p); err == nil {
				r.refs = ref
			}
		}
	} else {
		r, err = d.upload(p, ref)
	}
	if err != nil {
		d.smu.Unlock()
		return 0, err
	}
	d.srs[p] = r
	d.smu.Unlock()
	if p.Deferred != nil {
		err := d.fill(ctx, r, p.Deferred)
		if err == nil && r.plan.Streams() && d.StreamCache > 0 { // (a deferred set that streams streams from its file)
			err = d.fillCache(ctx, r, p.Deferred)
		}
		if err != nil {
			d.smu.Lock()
			delete(d.srs, p)
			d.smu.Unlock()
			r.free()
			r.err = err
		}
		close(r.ready)
	}
	if r.err != nil {
		return 0, r.err
	}
	return r.h, nil
}

// upload makes decoded parameters p resident under the limit (smu held).
func (d *Device) upload(p *groth16.Params, ref int) (*resident, error) {
	// The library keeps pointers into p's slices for the streamed queries:
	// p stays referenced by d.srs until the set is freed.
	h, plan, err := d.uploadLimited([4]uint64{uint64(len(p.H)), uint64(len(p.L)), uint64(len(p.A)), uint64(len(p.BG1))},
		[4]unsafe.Pointer{g1ptr(p.H), g1ptr(p.L), g1ptr(p.A), g1ptr(p.BG1)}, hasBG2(p), false)
	runtime.KeepAlive(p)
	if err != nil {
		return nil, err
	}
	bg2 := false
	if plan.DeviceBG2() {
		// resident: copied to the device; streamed: the library keeps (and
		// pins) p.BG2 as it does the streamed G1 queries
		if bg2, err = uploadBG2(h, p); err != nil {
			lib.srsFree(h)
			return nil, err
		}
		var cp cPlan
		if streamLib.srsPlan(h, &cp) == 0 {
			plan = cp.plan() // (the pinned bit of B_G2)
		}
	}
	r := &resident{h: h, refs: ref, plan: plan, bg2: bg2, ready: make(chan struct{})}
	close(r.ready)
	return r, nil
}
