package memory

import (
	"context"
	"errors"
	"fmt"
	"sync"
)

// ErrExceedsLimit rejects a reservation larger than the whole budget: it
// could never be granted.
var ErrExceedsLimit = errors.New("memory: reservation exceeds the budget")

// Evictor is asked to free at least need bytes of idle, evictable holdings
// (for example parameter sets nobody uses) by closing or releasing their
// reservations. It returns how many bytes it freed; 0 means nothing could
// be freed. It is called without the budget's lock held and may be called
// concurrently.
type Evictor func(need uint64) (freed uint64)

// Budget is a byte budget. The zero value is not usable; call New.
//
// Waiters are served in arrival order: a reservation that does not fit
// blocks every later one, so a large request is never starved by a stream
// of small ones.
type Budget struct {
	limit uint64

	mu      sync.Mutex
	used    uint64
	peak    uint64
	waiters []*waiter
	evict   Evictor
}

type waiter struct {
	n       uint64
	ready   chan struct{} // closed when granted
	granted bool
}

// New returns a budget of limit bytes.
func New(limit uint64) *Budget { return &Budget{limit: limit} }

// SetEvictor installs f (nil removes it).
func (b *Budget) SetEvictor(f Evictor) {
	b.mu.Lock()
	b.evict = f
	b.mu.Unlock()
}

// Limit is the budget in bytes.
func (b *Budget) Limit() uint64 { return b.limit }

// Used is the sum of live reservations.
func (b *Budget) Used() uint64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.used
}

// Peak is the largest Used ever observed.
func (b *Budget) Peak() uint64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.peak
}

// Available is Limit − Used.
func (b *Budget) Available() uint64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.limit - b.used
}

// Waiting counts blocked Reserve calls.
func (b *Budget) Waiting() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.waiters)
}

// TryReserve reserves n bytes if they are available now, without waiting
// and without evicting.
func (b *Budget) TryReserve(n uint64) (*Reservation, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	r := b.takeNow(n)
	return r, r != nil
}

// TryReserveEvicting is Reserve without the wait: it asks the evictor for
// room like Reserve, and reports false when n still does not fit or
// earlier waiters come first.
func (b *Budget) TryReserveEvicting(n uint64) (*Reservation, bool) {
	if n > b.limit {
		return nil, false
	}
	r := b.reserveNow(n, true)
	if r == nil {
		b.mu.Unlock()
	}
	return r, r != nil
}

// takeNow takes n if it fits with nobody queued (b.mu held).
func (b *Budget) takeNow(n uint64) *Reservation {
	if len(b.waiters) > 0 || !b.fits(n) {
		return nil
	}
	b.take(n)
	return &Reservation{b: b, left: n, size: n}
}

// reserveNow takes n if it fits with nobody queued, asking the evictor
// while it does not where evict is set. When it returns nil, b.mu is held.
func (b *Budget) reserveNow(n uint64, evict bool) *Reservation {
	// Stop asking the evictor as soon as it frees nothing (it would free
	// nothing again).
	for {
		b.mu.Lock()
		if r := b.takeNow(n); r != nil {
			b.mu.Unlock()
			return r
		}
		f, short := b.evict, b.used+n-b.limit
		if !evict || len(b.waiters) > 0 || f == nil || b.fits(n) {
			return nil
		}
		b.mu.Unlock()
		if f(short) == 0 {
			b.mu.Lock()
			if r := b.takeNow(n); r != nil { // freed meanwhile
				b.mu.Unlock()
				return r
			}
			return nil
		}
	}
}

// Reserve reserves n bytes, evicting idle holdings or waiting until they
// are available or ctx is done.
func (b *Budget) Reserve(ctx context.Context, n uint64) (*Reservation, error) {
	return b.reserve(ctx, n, true)
}

// Await is Reserve without asking the evictor: for a caller that knows
// memory is on its way back (being freed), so that nothing else is
// evicted for it meanwhile.
func (b *Budget) Await(ctx context.Context, n uint64) (*Reservation, error) {
	return b.reserve(ctx, n, false)
}

func (b *Budget) reserve(ctx context.Context, n uint64, evict bool) (*Reservation, error) {
	if n > b.limit {
		return nil, fmt.Errorf("%w: %d bytes asked, budget %d", ErrExceedsLimit, n, b.limit)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if r := b.reserveNow(n, evict); r != nil {
		return r, nil
	}
	// b.mu is held: queue behind the others.
	w := &waiter{n: n, ready: make(chan struct{})}
	b.waiters = append(b.waiters, w)
	b.mu.Unlock()

	select {
	case <-w.ready:
		return &Reservation{b: b, left: n, size: n}, nil
	case <-ctx.Done():
		b.mu.Lock()
		if w.granted {
			// Granted while we were giving up: hand it back.
			b.used -= n
		} else {
			b.remove(w)
		}
		b.grant()
		b.mu.Unlock()
		return nil, ctx.Err()
	}
}

// Notify tells the budget that holdings may have become evictable (for
// example a parameter set's last user left). If a waiter is blocked, the
// evictor is asked for its shortfall. Call it without holding any lock the
// evictor takes.
func (b *Budget) Notify() {
	b.mu.Lock()
	var short uint64
	if len(b.waiters) > 0 {
		if n := b.waiters[0].n; !b.fits(n) {
			short = b.used + n - b.limit
		}
	}
	evict := b.evict
	b.mu.Unlock()
	if short > 0 && evict != nil {
		evict(short)
	}
	b.mu.Lock()
	b.grant()
	b.mu.Unlock()
}

// fits reports whether n more bytes fit. Written as a subtraction (used ≤
// limit always holds) so that sizes near 2^64 cannot wrap around.
func (b *Budget) fits(n uint64) bool { return n <= b.limit-b.used }

func (b *Budget) take(n uint64) {
	b.used += n
	if b.used > b.peak {
		b.peak = b.used
	}
}

// grant serves waiters in order while the head fits. Called with mu held.
func (b *Budget) grant() {
	for len(b.waiters) > 0 {
		w := b.waiters[0]
		if !b.fits(w.n) {
			return
		}
		b.take(w.n)
		w.granted = true
		close(w.ready)
		b.waiters[0] = nil
		b.waiters = b.waiters[1:]
	}
}

func (b *Budget) remove(w *waiter) {
	for i, x := range b.waiters {
		if x == w {
			copy(b.waiters[i:], b.waiters[i+1:])
			b.waiters[len(b.waiters)-1] = nil
			b.waiters = b.waiters[:len(b.waiters)-1]
			return
		}
	}
}

func (b *Budget) release(n uint64) {
	if n == 0 {
		return
	}
	b.mu.Lock()
	b.used -= n
	b.grant()
	b.mu.Unlock()
}
