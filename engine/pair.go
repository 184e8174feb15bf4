package engine

import (
	"time"

	"github.com/cuzk-project/cuzk/groth16"
	"github.com/cuzk-project/cuzk/timeline"
)

// A device that runs two partitions of one parameter set as one run where
// that pays (groth16.Profile.Pairs: the CUDA device under a memory limit,
// where the bytes of parameters streamed bound a Run and a pair streams
// them once) gets them two at a time: a worker that takes a unit takes
// with it the best queued unit of the same parameter set, if one is
// queued, prepares both and runs them as one under the device lock. A
// unit is never held back waiting for a partner.

// partner takes from the device queue a unit to run beside u, or nil: u's
// device pairs its parameter set, Run takes the lock (not the CRITICAL
// lane), and a unit of the same set and of priority min or higher is
// queued.
func (e *Engine) partner(dev groth16.Device, lock *deviceLock, di, worker int, u *unit, min Priority) *unit {
	if lock == nil {
		return nil
	}
	prof := dev.Profile()
	if prof.Pairs == nil || prof.RunPair == nil || !prof.Pairs(u.job.params) {
		return nil
	}
	params := u.job.params
	v, ok := e.devQ.tryPopMatch(min, func(o *unit) bool { return o.job.params == params && o.job.ctx.Err() == nil })
	if !ok {
		return nil
	}
	e.rec.Record(timeline.DevPickup, v.job.id, v.key.partition, worker, di)
	return v
}

// runPairUnits prepares us[0] and us[1] on dev and runs them as one under
// lock, then finishes each; where only one is prepared, or a job ended
// while they waited for the lock, the other runs alone.
func (e *Engine) runPairUnits(dev groth16.Device, lock *deviceLock, di, worker int, us [2]*unit) {
	var ws [2]groth16.Prepared
	var ok [2]bool
	for i, u := range us {
		ws[i], ok[i] = e.prepareUnit(dev, di, worker, u)
	}
	alone := func(i int) {
		if p, ran := e.runPrepared(dev, lock, di, worker, us[i], ws[i]); ran {
			e.finishAside(dev, di, worker, us[i], p)
		}
	}
	if !ok[0] || !ok[1] {
		for i := range us {
			if ok[i] {
				alone(i)
			}
		}
		return
	}
	for _, u := range us {
		e.rec.Record(timeline.LockWait, u.job.id, u.key.partition, worker, di)
	}
	key := us[0].key
	if us[1].key.less(key) {
		key = us[1].key
	}
	lock.lock(key)
	for _, u := range us {
		e.rec.Record(timeline.LockHeld, u.job.id, u.key.partition, worker, di)
	}
	unlock := func() {
		lock.unlock()
		for _, u := range us {
			e.rec.Record(timeline.LockFree, u.job.id, u.key.partition, worker, di)
		}
	}
	if us[0].job.ctx.Err() != nil || us[1].job.ctx.Err() != nil {
		unlock()
		for i, u := range us {
			if u.job.ctx.Err() != nil {
				groth16.Discard(dev, ws[i])
				e.retire(u)
			} else {
				alone(i)
			}
		}
		return
	}
	for _, u := range us {
		u.job.begin(actGPU)
	}
	t0 := time.Now()
	var ps [2]groth16.Partial
	_, err := safeStep(func() (any, error) {
		var err error
		ps[0], ps[1], err = dev.Profile().RunPair(e.ctx, ws[0], ws[1])
		return nil, err
	})
	t1 := time.Now()
	for _, u := range us {
		u.job.end(actGPU)
	}
	unlock()
	// each unit is booked half the pair's host interval (its kernels: the
	// half the device reports, RunReport)
	mid := t0.Add(t1.Sub(t0) / 2)
	spans := [2][2]time.Time{{t0, mid}, {mid, t1}}
	for i, u := range us {
		if p, ran := e.afterRun(dev, di, worker, u, ps[i], err, spans[i][0], spans[i][1]); ran {
			e.finishAside(dev, di, worker, u, p)
		}
	}
}
