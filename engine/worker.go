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
// highest-priority queued unit, and that unit's memory reservation, in this
// order, then starts the unit's synthesis. While it waits for memory, a
// newly queued unit of higher priority preempts the wait and goes first.
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
		j := u.job
		if j.ctx.Err() != nil {
			e.retire(u)
			e.freeSlot(slot)
			continue
		}
		res, ok := e.budget.TryReserve(u.part.Reserve)
		if !ok && e.stuck() {
			// No partition holds memory that it will give back, so only
			// the evictor can make room: waiting would stall this unit,
			// and every one behind it, for good.
			if res, ok = e.budget.TryReserveEvicting(u.part.Reserve); !ok {
				e.unitFailed(u, "memory", fmt.Errorf("%w: %d bytes needed, %d of %d free, and no partition in flight to free more",
					ErrNoMemory, u.part.Reserve, e.budget.Available(), e.budget.Limit()))
				e.freeSlot(slot)
				continue
			}
		}
		if !ok {
			var err error
			wctx, preempt := context.WithCancel(j.ctx)
			e.synthQ.setWaiting(u.key, preempt)
			if e.stuck() { // the last unit in flight retired meanwhile
				preempt()
			}
			res, err = e.budget.Reserve(wctx, u.part.Reserve)
			e.synthQ.clearWaiting()
			preempted := wctx.Err() != nil && j.ctx.Err() == nil
			preempt()
			if err != nil {
				switch {
				case j.ctx.Err() != nil: // job ended or engine closing
					e.retire(u)
				case preempted:
					e.queue(e.synthQ, u)
				default:
					e.unitFailed(u, "memory", err)
				}
				e.freeSlot(slot)
				continue
			}
		}
		u.res = res
		u.inflight = true
		e.inflight.Add(1)
		e.wg.Add(1)
		go e.synthesize(u, slot)
	}
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
