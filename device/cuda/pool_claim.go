package cuda

import (
	"sync"
	"time"

	"github.com/cuzk-project/cuzk/memory"
)

// A claim lets a partition about to be synthesized take over the share of
// the budget of an a, b staging the pool keeps, instead of the engine
// evicting the staging to make room for the partition's reservation: the
// staging is then page-locked once, not at every partition, where the
// budget holds one partition's reservation beside little else (freeing
// and page-locking ≈ 8 GB at 32 GiB each take seconds, and hold up every
// other CUDA call of the process meanwhile). A claimed staging stays in
// the pool without a share (the claimer's reservation counts it), and a
// get of its size takes it before any kept with a share: whichever
// Prepare takes it counts it in its own reservation, and the claimer's
// own Prepare, if another took it, page-locks within its reservation. A
// claim ends once its partition has prepared or never will; a claimed
// staging left beyond the claims still open is let go then.

// claim takes the share of the smallest a, b staging kept with a share
// that serves a get of n, leaving the staging claimed; nil when none.
func (p *pinnedPool) claim(n uint64) *memory.Reservation {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.drained {
		return nil
	}
	i := bestFit(p.shared, n, func(s sharedBuf) bool { return s.kind == keptAB })
	if i < 0 {
		return nil
	}
	s := p.shared[i]
	p.shared = append(p.shared[:i], p.shared[i+1:]...)
	share := s.share
	s.share, s.at = nil, time.Now()
	p.claimed = append(p.claimed, s)
	p.claims++
	return share
}

// endClaim ends a claim of n bytes. back: its share was not used, and
// goes back to a claimed staging of about n bytes left beyond the claims
// still open, kept with it again (where a Prepare took that staging
// meanwhile, its reservation counts it and the share is closed). Otherwise
// the claimer's reservation joined the share, and such a staging has no
// reservation counting it any more. A staging left so and not kept again
// is let go (after the Runs in flight, as retire does).
func (p *pinnedPool) endClaim(n uint64, share *memory.Reservation, back bool) {
	if !back {
		share = nil // the claimer's reservation holds it
	}
	p.mu.Lock()
	p.claims--
	var drop []sharedBuf
	if i := p.surplusClaimed(n); i >= 0 {
		s := p.claimed[i]
		p.claimed = append(p.claimed[:i], p.claimed[i+1:]...)
		if held(share) >= s.b.n {
			s.share, s.at = share, time.Now()
			p.shared = append(p.shared, s)
			share = nil
		} else {
			drop = append(drop, s)
		}
	}
	now := p.retire(drop)
	p.mu.Unlock()
	p.freeShared(now)
	share.Close()
}

// surplusClaimed is the index of a claimed staging serving a get of n
// where more are claimed than claims are open, or -1. Called with mu
// held.
func (p *pinnedPool) surplusClaimed(n uint64) int {
	if len(p.claimed) <= p.claims {
		return -1
	}
	if i := bestFit(p.claimed, n, nil); i >= 0 {
		return i
	}
	return 0
}

// takeClaimed takes the smallest claimed staging that serves a get of n.
// Called with mu held.
func (p *pinnedPool) takeClaimed(n uint64) (pinned, bool) {
	i := bestFit(p.claimed, n, nil)
	if i < 0 {
		return pinned{}, false
	}
	b := p.claimed[i].b
	p.claimed = append(p.claimed[:i], p.claimed[i+1:]...)
	return b, true
}

// claimDone is a groth16.Claim's Done for a claim of n bytes: once.
func (p *pinnedPool) claimDone(n uint64, share *memory.Reservation) func(back bool) {
	var once sync.Once
	return func(back bool) {
		once.Do(func() { p.endClaim(n, share, back) })
	}
}
