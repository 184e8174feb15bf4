package engine

import (
	"github.com/cuzk-project/cuzk/groth16"
	"github.com/cuzk-project/cuzk/memory"
)

// A unit whose reservation does not fit the budget may claim a staging a
// device keeps for a Prepare of its size (groth16.Profile.ClaimKept): its
// reservation joins the staging's share and reserves only the rest, and
// its Prepare takes the staging, instead of the staging being evicted to
// make room and page-locked anew by that Prepare (under a budget that
// holds one partition beside little else, at every partition: seconds
// each at 32 GiB, while every other CUDA call of the daemon waits). The
// claim ends once the unit has prepared or never will (endClaim).

// reserveClaiming reserves need bytes of u's memory with the share of a
// staging a device keeps for a Prepare of u's size; ok false: none is
// kept, or the rest does not fit either (the share goes back to its
// staging).
func (e *Engine) reserveClaiming(u *unit, need uint64) (res *memory.Reservation, ok bool) {
	e.ahead.mu.Lock() // a staging handed over (ahead.go) is not claimed here
	defer e.ahead.mu.Unlock()
	c := e.claimKept(u.part.Rows, u.part.Vars)
	if c == nil {
		return nil, false
	}
	held := c.Share.Held()
	if held >= need {
		c.Done(true)
		return nil, false
	}
	if res, ok = e.budget.TryReserve(need - held); !ok {
		c.Done(true)
		return nil, false
	}
	res.Join(c.Share)
	u.claim = c
	e.ahead.counts.Kept++
	return res, true
}

// claimKept claims a staging a device keeps with a share of the budget for
// a Prepare of a partition of rows constraints over vars variables, or
// returns nil.
func (e *Engine) claimKept(rows, vars int) *groth16.Claim {
	for _, d := range e.devs {
		for _, p := range d.keepers() {
			if p.ClaimKept == nil {
				continue
			}
			c := p.ClaimKept(rows, vars)
			if c == nil {
				continue
			}
			if !c.Share.Of(e.budget) {
				c.Done(true)
				continue
			}
			return c
		}
	}
	return nil
}

// endClaim ends u's claim, if it holds one: after its Prepare, or when it
// ends or goes back to the queue without one.
func (e *Engine) endClaim(u *unit) {
	if u.claim != nil {
		u.claim.Done(false)
		u.claim = nil
	}
}
