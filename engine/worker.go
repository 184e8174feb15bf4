package engine

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-project/cuzk/groth16"
	"github.com/cuzk-project/cuzk/timeline"
)

// dispatch feeds the synthesis stage: it takes a free worker slot, the
// highest-priority queued unit, its job's parameters when this is the job's
// first unit (admission), and the unit's memory reservation, in this order,
// then starts the unit's synthesis. While it waits for parameters or
// memory, a newly queued unit of higher priority preempts the wait and
// goes first.
func (e *Engine) dispatch() {
	defer e.wg.Done()
	for {
		slot, ok := e.takeSlot()
		if !ok {
			return
		}
		u, ok := e.synthQ.tryPop()
		if !ok || (slot == e.cfg.SynthesisWorkers && u.key.priority != PriorityCritical) {
			// The unit the slot was taken for was cancelled meanwhile.
			if ok {
				e.queue(e.synthQ, u)
			}
			e.freeSlot(slot)
			continue
		}
		if !e.startUnit(u) {
			e.freeSlot(slot)
			continue
		}
		e.wg.Add(1)
		go e.synthesize(u, slot)
	}
}

// errPreempted and errStuck end a wait for parameters without failing the
// job: a better unit arrived, or the wait could only end by memory that
// nothing in flight will give back.
var (
	errPreempted = errors.New("preempted")
	errStuck     = errors.New("stuck")
)

// startUnit admits u's job if u is its first unit to start, then reserves u's
// memory. It reports whether u may synthesize; otherwise u was queued
// again, set aside, retired or failed its job.
func (e *Engine) startUnit(u *unit) bool {
	j := u.job
	if j.ctx.Err() != nil {
		e.retire(u)
		return false
	}
	if !j.admitted() {
		if e.synthQ.parkedBefore(u.key) {
			// A better job waits for memory held by jobs already admitted:
			// admitting more would keep that memory held, maybe for good.
			e.park(u)
			return false
		}
		err := e.admit(u)
		switch {
		case err == nil:
		case j.ctx.Err() != nil: // job ended or engine closing
			e.retire(u)
			return false
		case errors.Is(err, errPreempted):
			e.queue(e.synthQ, u)
			return false
		case errors.Is(err, errStuck):
			if e.evictIdle() > 0 {
				e.queue(e.synthQ, u) // try again with the room made
			} else {
				e.noMemory(u)
			}
			return false
		default:
			e.fail(j, err)
			e.retire(u)
			return false
		}
	}
	res, ok := e.budget.TryReserve(u.part.Reserve)
	for !ok && e.stuck() {
		// No partition holds memory that it will give back, so only
		// eviction can make room: waiting would stall this unit, and
		// every one behind it, for good.
		if res, ok = e.budget.TryReserveEvicting(u.part.Reserve); ok {
			break
		}
		if e.evictIdle() == 0 {
			e.noMemory(u)
			return false
		}
		res, ok = e.budget.TryReserve(u.part.Reserve)
	}
	if !ok {
		wctx, preempt := context.WithCancel(j.ctx)
		e.synthQ.setWaiting(u.key, preempt, true)
		if e.stuck() { // the last unit in flight retired meanwhile
			preempt()
		}
		var err error
		res, err = e.budget.Reserve(wctx, u.part.Reserve)
		e.synthQ.clearWaiting()
		preempted := wctx.Err() != nil && j.ctx.Err() == nil
		preempt()
		if err != nil {
			switch {
			case j.ctx.Err() != nil:
				e.retire(u)
			case preempted: // or stuck: the next look decides
				e.unadmit(j)
				e.queue(e.synthQ, u)
			default:
				e.unitFailed(u, "memory", err)
			}
			return false
		}
	}
	u.res = res
	u.inflight = true
	e.inflight.Add(1)
	j.mu.Lock()
	j.dispatched++
	j.mu.Unlock()
	return true
}

// admit acquires the parameters of u's job for its first unit. The source
// runs on its own goroutine while the dispatcher waits, so that a better
// unit arriving, or the wait becoming hopeless (the load waits for memory
// and nothing is in flight to give any back), abandons the acquisition
// rather than let it hold up the dispatcher (cuzk-anchor.md F8). It
// returns nil once the job holds its parameters, errPreempted, errStuck,
// or why the source failed.
func (e *Engine) admit(u *unit) error {
	j := u.job
	circuit := j.plan.CircuitID // the plan lives as long as u does
	actx, cancel := context.WithCancel(j.ctx)
	defer cancel()
	type acquired struct {
		p       *groth16.Params
		release func()
		err     error
	}
	got := make(chan acquired, 1)
	t0 := time.Now()
	e.wg.Add(1)
	go func() {
		defer e.wg.Done()
		var a acquired
		_, a.err = safeStep(func() (struct{}, error) {
			var err error
			a.p, a.release, err = e.cfg.Params.Acquire(actx, circuit)
			return struct{}{}, err
		})
		got <- a
	}()
	// Not interrupted when the last unit in flight retires: a load that
	// is decoding must not be abandoned; the poll sees a hopeless one.
	e.synthQ.setWaiting(u.key, cancel, false)
	poll := time.NewTicker(5 * time.Millisecond)
	var a acquired
	var why error
wait:
	for {
		select {
		case a = <-got:
			break wait
		case <-actx.Done():
			why = errPreempted
			break wait
		case <-poll.C:
			// The budget is only ever waited on by this acquisition (or a
			// Preload): with nothing in flight it waits for good.
			if e.inflight.Load() == 0 && e.budget.Waiting() > 0 {
				why = errStuck
				break wait
			}
		}
	}
	poll.Stop()
	e.synthQ.clearWaiting()
	if why != nil {
		cancel()
		// The source returns soon after its context ends; whatever it
		// hands over late goes straight back.
		e.wg.Add(1)
		go func() {
			defer e.wg.Done()
			if a := <-got; a.err == nil && a.release != nil {
				a.release()
			}
		}()
		return why
	}
	if a.err == nil && a.p == nil {
		if a.release != nil {
			a.release()
		}
		a.err = errors.New("the source returned no parameters")
	}
	if a.err != nil {
		return fmt.Errorf("parameters %q: %w", circuit, a.err)
	}
	if a.release == nil {
		a.release = func() {}
	}
	j.mu.Lock()
	if j.state == stateDone {
		j.mu.Unlock()
		a.release()
		return ErrCancelled
	}
	j.params, j.release = a.p, a.release
	j.srsLoad += time.Since(t0)
	j.mu.Unlock()
	return nil
}

// noMemory handles u when its job's parameters or its own reservation
// cannot be had, nothing in flight will give memory back, and no idle
// parameter set is left to evict. A job that has started no unit gives its
// parameters back (they are idle now, evictable). If another job holding
// parameters has units queued, u's job is set aside until some job gives
// its parameters back (it may fit then); otherwise it never will and fails
// with ErrNoMemory.
func (e *Engine) noMemory(u *unit) {
	j := u.job
	e.unadmit(j)
	for _, o := range e.synthQ.jobs() {
		if o != j && o.admitted() {
			e.park(u)
			return
		}
	}
	e.unitFailed(u, "memory", fmt.Errorf("%w: %d bytes needed with the job's parameters, %d of %d free, and no partition in flight to free more",
		ErrNoMemory, u.part.Reserve, e.budget.Available(), e.budget.Limit()))
}

// unadmit gives back the parameters of a job that has started no unit, so
// that, outside the dispatcher's step for it, a job holds parameters only
// once it has a unit started: a job waiting in the queue never pins memory.
func (e *Engine) unadmit(j *job) {
	j.mu.Lock()
	var release func()
	if j.dispatched == 0 {
		release, j.release, j.params = j.release, nil, nil
	}
	j.mu.Unlock()
	if release != nil {
		release()
	}
}

// park sets u's job aside (see unitQueue.park), or retires u if the job
// has ended: as in queue, under the job's lock.
func (e *Engine) park(u *unit) {
	j := u.job
	j.mu.Lock()
	ended := j.state == stateDone
	if !ended {
		e.synthQ.park(u)
	}
	j.mu.Unlock()
	if ended {
		e.retire(u)
	}
}

// evictIdle evicts every parameter set nobody holds, through the
// ParamsCache, whatever its minimum idle time: the alternative is a job
// failed for want of memory. It returns the bytes freed.
func (e *Engine) evictIdle() (freed uint64) {
	c, ok := e.cfg.Params.(ParamsCache)
	if !ok {
		return 0
	}
	for _, s := range c.Status() {
		if s.RefCount != 0 || s.Tier != TierHot {
			continue
		}
		if _, n, err := c.Evict(s.CircuitID); err == nil {
			freed += n
		}
	}
	return freed
}

// stuck reports that no unit in flight will give memory back and nobody
// else waits for it: a unit that does not fit now never will by waiting.
func (e *Engine) stuck() bool { return e.inflight.Load() == 0 && e.budget.Waiting() == 0 }

// takeSlot waits until a unit is queued and a synthesis slot it may use
// is free: a CRITICAL unit may also take the reserved slot. ok is false
// when the engine closes.
func (e *Engine) takeSlot() (slot int, ok bool) {
	for {
		head, queued, wake := e.synthQ.peek()
		var crit chan int // nil: never ready
		if queued && head.priority == PriorityCritical {
			crit = e.critSlot
		}
		if !queued {
			select {
			case <-wake:
				continue
			case <-e.ctx.Done():
				return 0, false
			}
		}
		select {
		case slot = <-e.slots:
			return slot, true
		case slot = <-crit:
			return slot, true
		case <-wake: // a better unit may have arrived: look again
		case <-e.ctx.Done():
			return 0, false
		}
	}
}

func (e *Engine) freeSlot(slot int) {
	if slot == e.cfg.SynthesisWorkers {
		e.critSlot <- slot
	} else {
		e.slots <- slot
	}
}

// synthesize runs one unit's synthesis and queues it for a device.
func (e *Engine) synthesize(u *unit, slot int) {
	defer e.wg.Done()
	defer e.freeSlot(slot)
	j, part := u.job, u.key.partition
	if j.ctx.Err() != nil {
		e.retire(u)
		return
	}
	t0 := time.Now()
	j.markStarted(t0)
	e.rec.Record(timeline.SynthStart, j.id, part, slot, -1)
	a, err := safeStep(func() (*groth16.Assignment, error) { return u.part.Synthesize(j.ctx) })
	e.rec.Record(timeline.SynthEnd, j.id, part, slot, -1)
	j.addSynth(time.Since(t0))
	if err == nil && (a == nil || len(a.Input) == 0) {
		err = errors.New("synthesizer returned no assignment")
	}
	if err != nil {
		e.unitFailed(u, "synthesis", err)
		return
	}
	j.mu.Lock()
	if j.state != stateDone && j.inputs[part] == nil {
		j.inputs[part] = append(a.Input[:0:0], a.Input[1:]...)
	}
	j.mu.Unlock()
	u.a = a
	e.rec.Record(timeline.DevQueue, j.id, part, -1, -1)
	e.queue(e.devQ, u)
}

// queue pushes u onto q, or retires it if its job has ended. The check and
// the push happen under the job's lock, and end marks the job done under
// that lock before it empties the queues: so every unit is either removed
// by end or never queued, and a cancelled job's memory comes back at once
// rather than when a busy worker next pops the queue.
func (e *Engine) queue(q *unitQueue, u *unit) {
	j := u.job
	j.mu.Lock()
	ended := j.state == stateDone
	if !ended {
		q.push(u)
	}
	j.mu.Unlock()
	if ended {
		e.retire(u)
	}
}

// deviceWorker takes units from the device queue: Prepare unlocked, Run
// under the device lock, then hands the unit to Finish off its own loop so
// it can prepare the next unit while the other worker's kernels run.
func (e *Engine) deviceWorker(di, worker int) {
	defer e.wg.Done()
	d := e.devs[di]
	for {
		u, err := e.devQ.pop(e.ctx)
		if err != nil {
			return
		}
		j, part := u.job, u.key.partition
		e.rec.Record(timeline.DevPickup, j.id, part, worker, di)
		if j.ctx.Err() != nil {
			e.retire(u)
			continue
		}
		d.current.Store(j)
		p, ok := e.runUnit(d, di, worker, u)
		if ok {
			if e.cfg.FinishInline {
				e.finish(d, di, worker, u, p)
			} else {
				e.wg.Add(1)
				go func() {
					defer e.wg.Done()
					e.finish(d, di, worker, u, p)
				}()
			}
		}
		d.current.CompareAndSwap(j, nil)
	}
}

// runUnit prepares and runs u; on failure or cancellation it retires u and
// returns false.
func (e *Engine) runUnit(d *deviceState, di, worker int, u *unit) (groth16.Partial, bool) {
	j, part := u.job, u.key.partition
	e.rec.Record(timeline.PrepStart, j.id, part, worker, di)
	w, err := safeStep(func() (any, error) { return d.dev.Prepare(e.ctx, u.a, j.params) })
	e.rec.Record(timeline.PrepEnd, j.id, part, worker, di)
	if err != nil {
		return nil, e.unitFailed(u, "prepare", err)
	}
	if j.ctx.Err() != nil {
		e.retire(u)
		return nil, false
	}

	e.rec.Record(timeline.LockWait, j.id, part, worker, di)
	d.lock.lock(u.key)
	e.rec.Record(timeline.LockHeld, j.id, part, worker, di)
	if j.ctx.Err() != nil {
		d.lock.unlock()
		e.rec.Record(timeline.LockFree, j.id, part, worker, di)
		e.retire(u)
		return nil, false
	}
	t0 := time.Now()
	p, err := safeStep(func() (any, error) { return d.dev.Run(e.ctx, w) })
	t1 := time.Now()
	d.lock.unlock()
	e.rec.Record(timeline.LockFree, j.id, part, worker, di)

	if err == nil && e.rec != nil {
		ks, ke := t0, t1
		if kt, ok := p.(KernelTimed); ok {
			ks, ke = kt.KernelInterval()
		}
		e.rec.RecordAt(e.rec.Offset(ks), timeline.KernelStart, j.id, part, worker, di)
		e.rec.RecordAt(e.rec.Offset(ke), timeline.KernelEnd, j.id, part, worker, di)
	}
	j.addGPU(t1.Sub(t0))
	// a, b and c are dead after Run: give their memory back now.
	u.a.ReleaseABC()
	u.res.Release(u.part.ReserveABC)
	if err != nil {
		return nil, e.unitFailed(u, "run", err)
	}
	return p, true
}

// finish runs Finish, randomizes and encodes the proof, and hands it to
// the job's assembler.
func (e *Engine) finish(d *deviceState, di, worker int, u *unit, p groth16.Partial) {
	j, part := u.job, u.key.partition
	if j.ctx.Err() != nil {
		e.retire(u)
		return
	}
	e.rec.Record(timeline.FinishStart, j.id, part, worker, di)
	proof, err := safeStep(func() (groth16.Proof, error) {
		sums, err := d.dev.Finish(e.ctx, p)
		if err == nil && sums == nil {
			err = errors.New("device returned no sums")
		}
		if err != nil {
			return groth16.Proof{}, err
		}
		r, s, err := e.drawRS()
		if err != nil {
			return groth16.Proof{}, err
		}
		return e.cfg.Assemble(&j.params.VK, sums, r, s)
	})
	e.rec.Record(timeline.FinishEnd, j.id, part, worker, di)
	if err != nil {
		e.unitFailed(u, "finish", err)
		return
	}
	// The unit's memory is free before the job can complete, so a caller
	// woken by the result sees the budget without it.
	u.res.Close()
	u.a = nil
	b := proof.Bytes()
	if !e.deliver(u, b[:]) {
		e.retire(u)
	}
}

func (e *Engine) drawRS() (r, s fr.Element, err error) {
	if e.cfg.Rand == nil {
		return groth16.DrawRS(nil)
	}
	e.randMu.Lock()
	defer e.randMu.Unlock()
	return groth16.DrawRS(e.cfg.Rand)
}

// deliver inserts a partition proof; the unit that completes the job
// starts the verification of the whole proof, which then ends the job and
// retires the unit. deliver reports whether it took over retiring u.
func (e *Engine) deliver(u *unit, proof []byte) bool {
	j := u.job
	j.mu.Lock()
	if j.state == stateDone {
		j.mu.Unlock()
		return false
	}
	err := j.asm.Insert(u.key.partition, proof)
	var out []byte
	complete := err == nil && j.asm.Complete()
	if complete {
		out, err = j.asm.Assemble()
	}
	inputs, vk := j.inputs, &j.params.VK
	j.mu.Unlock()
	if err != nil {
		e.fail(j, err)
		return false
	}
	if !complete {
		return false
	}
	// Verification is CPU work of the whole job: it never holds up a device
	// worker, even one that finishes inline. The unit stays live (and so
	// the parameters acquired) until it is done.
	e.wg.Add(1)
	go func() {
		defer e.wg.Done()
		defer e.retire(u)
		e.verify(j, out, inputs, vk)
	}()
	return true
}

// verify checks what leaves the engine, the encoded bytes decoded again,
// and ends the job.
func (e *Engine) verify(j *job, out []byte, inputs [][]fr.Element, vk *groth16.VerifyingKey) {
	_, err := safeStep(func() (struct{}, error) {
		proofs, err := groth16.DecodeProofs(out)
		if err != nil {
			return struct{}{}, err
		}
		return struct{}{}, j.plan.Verify(vk, proofs, inputs)
	})
	if err != nil {
		e.fail(j, fmt.Errorf("%w: verification: %v", ErrProofInvalid, err))
		return
	}
	e.end(j, StatusCompleted, out, nil)
}

// unitFailed fails u's job (unless it already ended) and retires u.
func (e *Engine) unitFailed(u *unit, step string, err error) bool {
	if u.job.ctx.Err() == nil {
		e.fail(u.job, fmt.Errorf("partition %d: %s: %w", u.key.partition, step, err))
	}
	e.retire(u)
	return false
}

// safeStep turns a panic of a synthesizer or a device into an error: one
// bad unit must not take the daemon down.
func safeStep[T any](f func() (T, error)) (v T, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panic: %v", r)
		}
	}()
	return f()
}
