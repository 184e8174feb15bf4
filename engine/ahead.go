package engine

import (
	"errors"
	"sync"
	"time"

	"github.com/cuzk-project/cuzk/groth16"
	"github.com/cuzk-project/cuzk/memory"
)

// A unit that fits the budget neither whole nor by claiming a kept staging
// (claim.go) may reserve ahead of a prepared unit whose Run will keep a
// staging of the size its own Prepare takes (groth16.PrepareReport.Keeps):
// it reserves all but that staging now and synthesizes while the Run is in
// flight; when the Run keeps the staging, its share is claimed for the
// unit (a claim as claim.go's), and the unit's Prepare waits for that
// handover. Under a budget that holds one partition beside the staging in
// use, synthesis then overlaps the previous partition's Run instead of
// following it.
//
// A handover that brings no share (the Run failed, its unit ended, the
// device let the staging go, another unit's claim took it) leaves the
// unit to reserve the rest itself; where that does not fit at once it
// goes back to the synthesis queue rather than wait holding memory (the
// budget serves its waiters in order: the dispatcher may be waiting for
// memory this unit holds).

// handover is a staging's share on its way from a unit's Run to the unit
// that reserved ahead of it.
type handover struct {
	keeps uint64        // the staging's bytes, not reserved by the awaiting unit
	done  chan struct{} // closed once claim is set or will never be
	once  sync.Once
	mu    sync.Mutex
	claim *groth16.Claim // the share handed; nil: none
	gone  bool           // the awaiting unit ended before the handover
}

// aheadSet is the prepared units whose Runs will keep a staging (keeps
// bytes) that no unit awaits yet, and what the dispatcher's memory wait
// is for.
type aheadSet struct {
	mu    sync.Mutex
	units map[*unit]uint64
	// offers counts offerStaging's; seen is the count reserveAhead last
	// looked at; waiting, the shape of the unit the dispatcher waits in
	// the budget for (nil: none).
	offers, seen uint64
	waiting      *Partition
	counts       ClaimCounts // Snapshot.Claims
}

// claimCounts is Snapshot.Claims.
func (e *Engine) claimCounts() ClaimCounts {
	e.ahead.mu.Lock()
	defer e.ahead.mu.Unlock()
	return e.ahead.counts
}

// offerStaging makes u, just prepared, one that a unit may reserve ahead
// of, where its Run will keep keeps bytes of staging with a share of the
// budget; a memory wait of the dispatcher for a unit of u's shape ends,
// for it to look again.
func (e *Engine) offerStaging(u *unit, keeps uint64) {
	if keeps == 0 || !u.res.Of(e.budget) {
		return
	}
	e.ahead.mu.Lock()
	if e.ahead.units == nil {
		e.ahead.units = make(map[*unit]uint64)
	}
	e.ahead.units[u] = keeps
	e.ahead.offers++
	w := e.ahead.waiting
	e.ahead.mu.Unlock()
	if w != nil && w.Rows == u.part.Rows && w.Vars == u.part.Vars {
		e.synthQ.interruptWait()
	}
}

// waitingFor records that the dispatcher waits in the budget for u (nil:
// no longer), and reports whether a unit was offered since reserveAhead
// last looked: the wait should end at once to look again.
func (e *Engine) waitingFor(u *unit) (offered bool) {
	e.ahead.mu.Lock()
	defer e.ahead.mu.Unlock()
	if u == nil || u.key.priority == PriorityCritical {
		e.ahead.waiting = nil
		return false
	}
	e.ahead.waiting = &u.part
	return e.ahead.offers != e.ahead.seen
}

// reserveAhead reserves need bytes of u's memory less the staging a
// prepared unit of u's shape will keep, and has that unit's Run hand the staging's share
// over (keepAndHandOver); ok false: no such unit, or the rest does not fit.
// CRITICAL units do not wait on another unit's Run.
func (e *Engine) reserveAhead(u *unit, need uint64) (res *memory.Reservation, ok bool) {
	if u.key.priority == PriorityCritical {
		return nil, false
	}
	e.ahead.mu.Lock()
	defer e.ahead.mu.Unlock()
	e.ahead.seen = e.ahead.offers
	for v, keeps := range e.ahead.units {
		if v.part.Rows != u.part.Rows || v.part.Vars != u.part.Vars || keeps >= need {
			continue
		}
		if res, ok = e.budget.TryReserve(need - keeps); !ok {
			return nil, false
		}
		delete(e.ahead.units, v)
		h := &handover{keeps: keeps, done: make(chan struct{})}
		v.handing, u.ahead = h, h
		e.ahead.counts.Ahead++
		return res, true
	}
	return nil, false
}

// keepAndHandOver hands the staging share of u's reservation to its
// device (keepStaging) and, where a unit reserved ahead of u, claims the
// staging for it at once: under ahead.mu, so that the dispatcher's own
// claims (reserveClaiming) cannot take it in between.
func (e *Engine) keepAndHandOver(u *unit, rr groth16.RunReport) {
	e.ahead.mu.Lock()
	h := e.withdraw(u)
	e.keepStaging(u, rr)
	var c *groth16.Claim
	if h != nil {
		if c = e.claimKept(u.part.Rows, u.part.Vars); c == nil {
			e.ahead.counts.Missed++
		}
	}
	e.ahead.mu.Unlock()
	if h != nil {
		h.deliver(c)
	}
}

// withdraw takes u's offer out of the set and returns the handover a unit
// reserved ahead of it awaits, or nil. Called with ahead.mu held.
func (e *Engine) withdraw(u *unit) *handover {
	delete(e.ahead.units, u)
	h := u.handing
	u.handing = nil
	return h
}

// endAhead ends what u takes part in here, when it retires or goes back
// to the synthesis queue: as a unit reserved ahead, its handover (a share
// handed meanwhile goes back to its staging); as a prepared unit, its offer
// (a unit awaiting its staging gets none).
func (e *Engine) endAhead(u *unit) {
	if h := u.ahead; h != nil {
		u.ahead = nil
		h.drop()
	}
	e.ahead.mu.Lock()
	h := e.withdraw(u)
	if h != nil {
		e.ahead.counts.Missed++
	}
	e.ahead.mu.Unlock()
	if h != nil {
		h.deliver(nil)
	}
}

// awaitHandover waits, before u's Prepare, for the staging u reserved
// ahead of, and joins its share to u's reservation, or reserves the rest
// where none came. It reports whether u may prepare; otherwise u was
// retired (its job or the engine ended) or sent back to be synthesized
// again (the rest did not fit).
func (e *Engine) awaitHandover(u *unit) bool {
	h := u.ahead
	if h == nil {
		return true
	}
	select {
	case <-h.done:
	case <-u.job.ctx.Done(): // the job's context ends with the engine's too
		e.retire(u)
		return false
	}
	u.ahead = nil
	need, c := h.keeps, h.claim
	if c != nil {
		need -= min(need, c.Share.Held())
	}
	if need > 0 {
		rest, ok := e.budget.TryReserve(need)
		if !ok {
			if c != nil {
				c.Done(true)
			}
			e.resynthesize(u)
			return false
		}
		u.res.Join(rest)
	}
	if c != nil {
		u.res.Join(c.Share)
		u.claim = c
	}
	return true
}

// deliver hands c (nil: no share) to the awaiting unit, once; where that
// unit has ended, c's share goes back to its staging.
func (h *handover) deliver(c *groth16.Claim) {
	h.once.Do(func() {
		h.mu.Lock()
		gone := h.gone
		if !gone {
			h.claim = c
		}
		h.mu.Unlock()
		if gone && c != nil {
			c.Done(true)
		}
		close(h.done)
	})
}

// drop tells h its awaiting unit has ended; a share handed already goes
// back to its staging.
func (h *handover) drop() {
	h.mu.Lock()
	h.gone = true
	c := h.claim
	h.claim = nil
	h.mu.Unlock()
	if c != nil {
		c.Done(true)
	}
}

// handoverWait is the wait for a handover that a unit's Prepare calls
// (groth16.AwaitStaging) before it takes the staging: ended, whether the
// unit was retired or sent back by it; waited, how long it took. Whether
// it was called at all is whether the unit still awaits (unit.ahead).
type handoverWait struct {
	ended  bool
	waited time.Duration
}

// errHandoverEnded is what a Prepare returns where its unit will not have
// the staging it reserved ahead of: the unit has been dealt with.
var errHandoverEnded = errors.New("the unit will not have the staging it reserved ahead of")

// await is awaitHandover for u's Prepare.
func (hw *handoverWait) await(e *Engine, u *unit) error {
	t0 := time.Now()
	ok := e.awaitHandover(u)
	hw.waited = time.Since(t0)
	if !ok {
		hw.ended = true
		return errHandoverEnded
	}
	return nil
}
