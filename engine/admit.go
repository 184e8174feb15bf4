package engine

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/cuzk-project/cuzk/groth16"
	"github.com/cuzk-project/cuzk/memory"
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
		n := e.coresFor(u)
		if !e.cores.take(n) {
			// Too few cores free for u: it goes back to its place and the
			// dispatcher waits for a synthesis to end or a better unit.
			e.queue(e.synthQ, u)
			e.freeSlot(slot)
			_, _, wake := e.synthQ.peek()
			select {
			case <-e.cores.wake:
			case <-wake:
			case <-e.ctx.Done():
				return
			}
			continue
		}
		if !e.startUnit(u) {
			e.cores.give(n)
			e.freeSlot(slot)
			continue
		}
		u.cores = n
		e.wg.Add(1)
		go e.synthesize(u, slot)
	}
}

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
	if !j.admitted() && !e.admitJob(u) {
		return false
	}
	res, ok := e.reserve(u)
	if !ok {
		return false
	}
	u.res = res
	u.inflight = true
	e.inflight.Add(1)
	j.mu.Lock()
	j.dispatched++
	j.mu.Unlock()
	return true
}

// admitJob acquires the parameters of u's job, whose first unit u is. It
// reports whether the job holds them now; otherwise u was queued again,
// set aside, retired or failed its job.
func (e *Engine) admitJob(u *unit) bool {
	j := u.job
	if e.synthQ.parkedBefore(u.key) {
		// A better job waits for memory held by jobs already admitted:
		// admitting more would keep that memory held, maybe for good.
		e.park(u)
		return false
	}
	err := e.admit(u)
	switch {
	case err == nil:
		return true
	case j.ctx.Err() != nil: // job ended or engine closing
		e.retire(u)
	case errors.Is(err, errPreempted):
		e.queue(e.synthQ, u)
	case errors.Is(err, errStuck):
		if e.evictIdle() > 0 {
			e.queue(e.synthQ, u) // try again with the room made
		} else {
			e.noMemory(u)
		}
	default:
		e.fail(j, err)
		e.retire(u)
	}
	return false
}

// admit acquires the parameters of u's job for its first unit. The source
// runs on its own goroutine while the dispatcher waits, so that a better
// unit arriving, or the wait becoming hopeless (the load waits for memory
// and nothing is in flight to give any back), abandons the acquisition
// rather than let it hold up the dispatcher: a cold load of PoRep
// parameters takes minutes, and a WinningPoSt must not wait behind it. It
// returns nil once the job holds its parameters, errPreempted, errStuck,
// or why the source failed.
func (e *Engine) admit(u *unit) error {
	j := u.job
	circuit := j.plan.CircuitID // the plan lives as long as u does
	actx, cancel := context.WithCancel(j.ctx)
	defer cancel()
	t0 := time.Now()
	got := goStep(&e.wg, func() (acquired, error) {
		p, release, err := e.cfg.Params.Acquire(actx, circuit)
		return acquired{p, release}, err
	})
	// Not interrupted when the last unit in flight retires: a load that
	// is decoding must not be abandoned; the poll sees a hopeless one.
	e.synthQ.setWaiting(u.key, cancel, false)
	a, why := awaitUnlessStuck(e, got, actx.Done(), 1)
	e.synthQ.clearWaiting()
	if why != nil {
		cancel()
		// The source returns soon after its context ends; whatever it
		// hands over late goes straight back.
		e.wg.Add(1)
		go func() {
			defer e.wg.Done()
			if a := <-got; a.err == nil && a.v.release != nil {
				a.v.release()
			}
		}()
		return why
	}
	if a.err == nil && a.v.p == nil {
		if a.v.release != nil {
			a.v.release()
		}
		a.err = errors.New("the source returned no parameters")
	}
	if a.err != nil {
		return fmt.Errorf("parameters %q: %w", circuit, a.err)
	}
	return j.hold(a.v, t0)
}

// acquired is what a ParamsSource handed over.
type acquired struct {
	p       *groth16.Params
	release func()
}

// hold gives j the parameters a, acquired since t0, unless j ended
// meanwhile: then a goes back and hold returns ErrCancelled.
func (j *job) hold(a acquired, t0 time.Time) error {
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

// stuckPoll is how often a wait for parameters looks whether it can still
// end.
const stuckPoll = 5 * time.Millisecond

// awaitUnlessStuck waits for got's outcome while a parameter load runs. It
// gives up with errPreempted when stop closes, and with errStuck once polls
// consecutive polls saw the budget waited on while no unit is in flight:
// the budget is waited on only by such loads (an admission or a Preload),
// so with nothing in flight to give memory back the wait never ends.
func awaitUnlessStuck[T any](e *Engine, got <-chan outcome[T], stop <-chan struct{}, polls int) (outcome[T], error) {
	poll := time.NewTicker(stuckPoll)
	defer poll.Stop()
	seen := 0
	for {
		select {
		case o := <-got:
			return o, nil
		case <-stop:
			return outcome[T]{}, errPreempted
		case <-poll.C:
			if e.inflight.Load() != 0 || e.budget.Waiting() == 0 {
				seen = 0
				continue
			}
			if seen++; seen >= polls {
				return outcome[T]{}, errStuck
			}
		}
	}
}

// reserve takes u's memory reservation, with a kept staging's share its
// Prepare will take where it does not fit otherwise (claim.go), or less
// the staging a prepared unit's Run will hand over to it (ahead.go), waiting
// for it when units in flight will give memory back and evicting idle
// parameters when none will. A CRITICAL unit that does not fit takes it
// from the CRITICAL headroom if it fits there. ok is false when u was
// queued again, retired or failed its job instead.
func (e *Engine) reserve(u *unit) (res *memory.Reservation, ok bool) {
	res, ok = e.tryReserve(u)
	for !ok && e.stuck() {
		// Nothing is in flight now, so nothing changes under us; but the
		// last unit may have retired since the try above, its memory back
		// or its staging kept for u to claim: try again before evicting.
		if res, ok = e.tryReserve(u); ok {
			break
		}
		// No partition holds memory that it will give back, so only
		// eviction can make room: waiting would stall this unit, and
		// every one behind it, for good. Kept stagings go first: cheaper
		// to rebuild than a parameter set the budget's evictor drops.
		// They are freed off this path (a page-locked free can take most
		// of a second) while u waits for their room, a wait a CRITICAL
		// unit arriving meanwhile preempts.
		if e.evictKeptAside() {
			return e.awaitReserve(u, false)
		}
		if res, ok = e.budget.TryReserveEvicting(u.part.Reserve); ok {
			break
		}
		if e.evictIdle() == 0 {
			e.noMemory(u)
			return nil, false
		}
		res, ok = e.budget.TryReserve(u.part.Reserve)
	}
	if ok {
		return res, true
	}
	return e.awaitReserve(u, true)
}

// tryReserve takes u's reservation where it fits without waiting: in the
// budget, with a kept staging's share (claim.go), in the CRITICAL
// headroom for a CRITICAL unit, or ahead of a prepared unit (ahead.go);
// in the budget, the aux vector kept for a synthesis of u's size
// (auxpool.go) is u's, its share counting part of u's witness.
func (e *Engine) tryReserve(u *unit) (res *memory.Reservation, ok bool) {
	vec, share := e.aux.takeFor(u)
	res, ok = e.tryReserveOnce(u, u.part.Reserve-share.Held())
	e.settleAux(u, res, vec, share)
	return res, ok
}

// tryReserveOnce is tryReserve of need bytes beside what u has already
// (the CRITICAL headroom's reservation is always whole).
func (e *Engine) tryReserveOnce(u *unit, need uint64) (res *memory.Reservation, ok bool) {
	if res, ok = e.budget.TryReserve(need); ok {
		return res, true
	}
	if res, ok = e.reserveClaiming(u, need); ok {
		return res, true
	}
	if u.key.priority == PriorityCritical && e.critBudget != nil {
		if res, ok = e.critBudget.TryReserve(u.part.Reserve); ok {
			return res, true
		}
	}
	return e.reserveAhead(u, need)
}

// awaitReserve waits in the budget for u's reservation, preemptible by a
// better unit and interrupted when the last unit in flight retires, the
// kept stagings' frees end or a unit u may reserve ahead of is prepared; evict false: without asking the budget's
// evictor (the room is on its way back).
func (e *Engine) awaitReserve(u *unit, evict bool) (*memory.Reservation, bool) {
	j := u.job
	wctx, preempt := context.WithCancel(j.ctx)
	e.synthQ.setWaiting(u.key, preempt, true)
	// The last unit in flight retired meanwhile, or a unit u may reserve
	// ahead of was prepared (ahead.go).
	if e.waitingFor(u) || e.stuck() {
		preempt()
	}
	reserve := e.budget.Reserve
	if !evict {
		reserve = e.budget.Await
	}
	// The kept aux vector waits with u, its share counting part of u's
	// witness: the wait is for the rest (auxpool.go).
	vec, share := e.aux.takeFor(u)
	res, err := reserve(wctx, u.part.Reserve-share.Held())
	e.waitingFor(nil)
	e.synthQ.clearWaiting()
	preempted := wctx.Err() != nil && j.ctx.Err() == nil
	preempt()
	e.settleAux(u, res, vec, share)
	if err == nil {
		return res, true
	}
	switch {
	case j.ctx.Err() != nil:
		e.retire(u)
	case preempted: // or stuck: the next look decides
		e.unadmit(j)
		e.queue(e.synthQ, u)
	default:
		e.unitFailed(u, "memory", err)
	}
	return nil, false
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

// evictIdle frees the buffers the devices keep with a share of the
// budget (groth16.Profile.EvictKept) or, where they kept none, evicts every parameter
// set nobody holds, through the ParamsCache, whatever its minimum idle
// time: the alternative is a job failed for want of memory. It returns
// the bytes freed.
func (e *Engine) evictIdle() (freed uint64) {
	if freed = e.evictKept(); freed > 0 {
		return freed // cheaper to rebuild than parameters: the caller tries again
	}
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
func (e *Engine) stuck() bool {
	return e.inflight.Load() == 0 && e.evicting.Load() == 0 && e.budget.Waiting() == 0
}
