package engine

import (
	"sync"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-project/cuzk/memory"
)

// Once a device has staged its own copy of a witness-only partition's aux
// (dropWitness), the aux vector is dead; the next partition's synthesis
// fills it instead of making one anew (r1cs.WithAux), which Go clears
// first, on one core, where the process used that memory before: 4.2 GB
// for a 32 GiB PoRep partition. The pool holds one vector, with the share
// of its unit's reservation that counted it, so the budget still counts
// it. The next unit of about its size takes both when it reserves
// (tryReserve, awaitReserve): the share joins its reservation as part of
// its witness, and it reserves, or waits for, only the rest. The
// evictions and Close let the vector go.

// auxMin is the smallest vector worth keeping: 64 MiB (a variable for
// the tests).
var auxMin uint64 = 64 << 20

type auxPool struct {
	mu     sync.Mutex
	vec    []fr.Element
	share  *memory.Reservation
	reused uint64 // vectors a unit took (joined)
}

// counts is the bytes the kept vector's share holds and the vectors
// units took (Snapshot.AuxKept, AuxReused).
func (p *auxPool) counts() (kept, reused uint64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.share.Held(), p.reused
}

// settleAux gives u the vector it took with takeFor, where u's
// reservation res (nil: none) is the budget's, joining the share to it
// (u's synthesis fills the vector); otherwise (none, or the CRITICAL
// headroom's, reserved whole) both go back to the pool.
func (e *Engine) settleAux(u *unit, res *memory.Reservation, vec []fr.Element, share *memory.Reservation) {
	if vec == nil {
		return
	}
	if !res.Of(e.budget) {
		e.aux.put(vec, share)
		return
	}
	res.Join(share)
	u.aux = vec
	e.aux.mu.Lock()
	e.aux.reused++
	e.aux.mu.Unlock()
}

// put keeps vec with share, dropping the one held before.
func (p *auxPool) put(vec []fr.Element, share *memory.Reservation) {
	p.mu.Lock()
	old := p.share
	p.vec, p.share = vec[:0], share
	p.mu.Unlock()
	old.Close()
}

// take returns the vector held, where it has room for half to twice n
// values (a partition of n variables, nearly all of them aux: the
// synthesizer makes its own where the vector is short), and the share that
// counts it (the caller closes it once its own reservation counts the
// vector); nil where none does.
func (p *auxPool) take(n int) ([]fr.Element, *memory.Reservation) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if c := cap(p.vec); p.vec == nil || c < n/2 || c/2 > n { // a partition of another size leaves it
		return nil, nil
	}
	vec, share := p.vec, p.share
	p.vec, p.share = nil, nil
	return vec, share
}

// takeFor is take for u's synthesis, where the vector's share is less
// than u's whole reservation (a larger one is not u's witness).
func (p *auxPool) takeFor(u *unit) ([]fr.Element, *memory.Reservation) {
	vec, share := p.take(u.part.Vars)
	if share.Held() >= u.part.Reserve {
		p.put(vec, share)
		return nil, nil
	}
	return vec, share
}

// drop lets go of the vector held and returns the bytes its share held.
func (p *auxPool) drop() uint64 {
	p.mu.Lock()
	share := p.share
	p.vec, p.share = nil, nil
	p.mu.Unlock()
	n := share.Held()
	share.Close()
	return n
}

// auxOffered tells the dispatcher a vector was kept: a memory wait ends
// for it to look again, one about to begin ends at once (the offers
// reserveAhead counts, waitingFor).
func (e *Engine) auxOffered() {
	e.ahead.mu.Lock()
	e.ahead.offers++
	e.ahead.mu.Unlock()
	e.synthQ.interruptWait()
}
