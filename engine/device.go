package engine

import (
	"sync/atomic"
	"time"

	"github.com/cuzk-project/cuzk/groth16"
	"github.com/cuzk-project/cuzk/timeline"
)

// deviceState is one device with its lock and the job it works on.
type deviceState struct {
	dev     groth16.Device
	lock    deviceLock // held only around Run
	current atomic.Pointer[job]
	// critical, when set (Config.CriticalDevices), is a second handle on
	// the same hardware for the CRITICAL worker, whose Runs take no lock.
	critical groth16.Device
	phases   phaseTotals // of its Runs (groth16.RunReport.Phases)
	prep     phaseTotals // of its Prepares (groth16.PrepareReport.Phases)
	// lostErr is set once a step failed with groth16.ErrDeviceLost
	// (lost.go): the device's workers stop.
	lostErr atomic.Pointer[error]
}

// deviceWorker takes units of priority min or higher from the device
// queue: Prepare unlocked, Run under the device lock, then hands the unit
// to Finish off its own loop so it can prepare the next unit while the
// other worker's kernels run.
//
// Each device has WorkersPerDevice workers that take any unit and one that
// takes only CRITICAL units. Without it a WinningPoSt reaching the device
// queue while every worker holds a bulk unit (one running, the others
// prepared and waiting for the lock) would wait for a worker to come back,
// behind those units' Runs; with it, it is prepared at once and, the lock
// going to the best waiter, runs right after the Run in flight. Given a
// CRITICAL handle on the device, that worker runs the units of at most
// Config.CriticalLaneRows constraints on it without the lock, beside the
// Run in flight. Any worker that takes such a unit runs it there: an idle
// bulk worker may take a WinningPoSt before the CRITICAL one does (or
// while it runs another), and would otherwise wait for the lock behind the
// Run in flight.
func (e *Engine) deviceWorker(di, worker int, min Priority) {
	defer e.wg.Done()
	d := e.devs[di]
	for {
		if d.lostErr.Load() != nil {
			return
		}
		u, err := e.devQ.pop(e.ctx, min)
		if err != nil {
			return
		}
		if d.lostErr.Load() != nil { // lost while waiting: the unit is for another device
			e.queue(e.devQ, u)
			return
		}
		j, part := u.job, u.key.partition
		e.rec.Record(timeline.DevPickup, j.id, part, worker, di)
		if j.ctx.Err() != nil {
			e.retire(u)
			continue
		}
		d.current.Store(j)
		dev, lock := d.dev, &d.lock
		if u.key.priority == PriorityCritical && d.critical != nil && u.a.NumConstraints() <= e.cfg.CriticalLaneRows {
			dev, lock = d.critical, nil
		}
		if v := e.partner(dev, lock, di, worker, u, min); v != nil {
			e.runPairUnits(dev, lock, di, worker, [2]*unit{u, v})
		} else if p, ok := e.runUnit(dev, lock, di, worker, u); ok {
			e.finishAside(dev, di, worker, u, p)
		}
		d.current.CompareAndSwap(j, nil)
	}
}

// finishAside finishes u's partial, off the worker's loop unless
// Config.FinishInline.
func (e *Engine) finishAside(dev groth16.Device, di, worker int, u *unit, p groth16.Partial) {
	if e.cfg.FinishInline {
		e.finish(dev, di, worker, u, p)
		return
	}
	e.wg.Add(1)
	go func() {
		defer e.wg.Done()
		e.finish(dev, di, worker, u, p)
	}()
}

// runUnit prepares and runs u on dev, Run under lock unless lock is nil;
// on failure or cancellation it retires u and returns false.
func (e *Engine) runUnit(dev groth16.Device, lock *deviceLock, di, worker int, u *unit) (groth16.Partial, bool) {
	w, ok := e.prepareUnit(dev, di, worker, u)
	if !ok {
		return nil, false
	}
	return e.runPrepared(dev, lock, di, worker, u, w)
}

// prepareUnit prepares u on dev; where u reserved ahead of a staging
// (ahead.go), its Prepare waits for the handover before it takes the
// staging (groth16.AwaitStaging), or it is waited for after a Prepare that
// never asked. On failure or cancellation it retires u (or sends it back
// to be synthesized again) and returns false.
func (e *Engine) prepareUnit(dev groth16.Device, di, worker int, u *unit) (groth16.Prepared, bool) {
	j, part := u.job, u.key.partition
	ctx, hw := e.ctx, (*handoverWait)(nil)
	if u.ahead != nil {
		hw = &handoverWait{}
		ctx = groth16.WithStagingWait(ctx, func() error { return hw.await(e, u) })
	}
	e.rec.Record(timeline.PrepStart, j.id, part, worker, di)
	j.begin(actOther)
	w, err := safeStep(func() (any, error) { return dev.Prepare(ctx, u.a, j.params) })
	// ended: the wait retired u or sent it back to be synthesized again
	// (the device let go of what its Prepare took, or is told to here)
	ended := hw != nil && hw.ended
	if u.ahead != nil && err == nil && !e.awaitHandover(u) { // the device never waited
		groth16.Discard(dev, w)
		ended = true
	}
	if !ended {
		e.endClaim(u)
	}
	j.end(actOther)
	e.rec.Record(timeline.PrepEnd, j.id, part, worker, di)
	if ended {
		return nil, false
	}
	if err != nil {
		return nil, e.lostStep(di, u, "prepare", err)
	}
	pr := dev.Profile().OfPrepare(w)
	if hw != nil && hw.waited > 0 {
		pr.Phases = append(pr.Phases, timeline.Phase{Name: "await", D: hw.waited})
	}
	e.devs[di].prep.add(j.plan.CircuitID, pr.Phases)
	e.dropWitness(u, pr)
	if j.ctx.Err() != nil {
		groth16.Discard(dev, w)
		e.retire(u)
		return nil, false
	}
	e.offerStaging(u, pr.Keeps)
	return w, true
}

// runPrepared runs u's prepared w on dev, under lock unless lock is nil;
// on failure or cancellation it retires u and returns false.
func (e *Engine) runPrepared(dev groth16.Device, lock *deviceLock, di, worker int, u *unit, w groth16.Prepared) (groth16.Partial, bool) {
	j, part := u.job, u.key.partition
	if lock != nil {
		e.rec.Record(timeline.LockWait, j.id, part, worker, di)
		lock.lock(u.key)
		e.rec.Record(timeline.LockHeld, j.id, part, worker, di)
	}
	unlock := func() {
		if lock != nil {
			lock.unlock()
			e.rec.Record(timeline.LockFree, j.id, part, worker, di)
		}
	}
	if j.ctx.Err() != nil {
		unlock()
		groth16.Discard(dev, w)
		e.retire(u)
		return nil, false
	}
	j.begin(actGPU)
	// A device done with its staging before Run returns keeps it then,
	// and a unit reserved ahead of it prepares beside the rest of the Run.
	ctx := groth16.WithStagingDone(e.ctx, func(rr groth16.RunReport) { e.keepAndHandOver(u, rr) })
	t0 := time.Now()
	p, err := safeStep(func() (any, error) { return dev.Run(ctx, w) })
	t1 := time.Now()
	j.end(actGPU)
	unlock()
	return e.afterRun(dev, di, worker, u, p, err, t0, t1)
}

// afterRun books u's Run (begun at t0, returned at t1 with p or err): its
// kernels and phases, its GPU time, a, b and c released, the staging kept
// (what the Run did not keep while in flight, groth16.StagingDone);
// on err it retires u (or sends it back for another device) and returns
// false.
func (e *Engine) afterRun(dev groth16.Device, di, worker int, u *unit, p groth16.Partial, err error, t0, t1 time.Time) (groth16.Partial, bool) {
	j, part := u.job, u.key.partition
	var rr groth16.RunReport
	if err == nil {
		rr = dev.Profile().OfRun(p)
		e.recordKernel(j, part, worker, di, t0, t1, rr)
		e.devs[di].phases.add(j.plan.CircuitID, rr.Phases)
	}
	j.addGPU(t1.Sub(t0))
	e.releaseABC(u)
	if err != nil {
		return nil, e.lostStep(di, u, "run", err)
	}
	e.keepAndHandOver(u, rr)
	return p, true
}

// recordKernel records the kernels of a Run begun at t0 and returned at
// t1: over the interval the device measured (RunReport), else over the
// host's.
func (e *Engine) recordKernel(j *job, part, worker, di int, t0, t1 time.Time, rr groth16.RunReport) {
	if e.rec == nil {
		return
	}
	ks, ke := t0, t1
	if !rr.KernelStart.IsZero() || !rr.KernelEnd.IsZero() {
		ks, ke = rr.KernelStart, rr.KernelEnd
	}
	e.rec.RecordAt(e.rec.Offset(ks), timeline.KernelStart, j.id, part, worker, di)
	e.rec.RecordAt(e.rec.Offset(ke), timeline.KernelEnd, j.id, part, worker, di)
}
