package memory

import "sync"

// Reservation is a granted share of a Budget. It is released in steps:
// Release gives back part of it (a unit's a/b/c after the device Run),
// Close gives back whatever is left (after Finish). Both are safe to call
// more than once and from several goroutines; together they never release
// more than was reserved.
type Reservation struct {
	b    *Budget
	size uint64

	mu   sync.Mutex
	left uint64
}

// Size is the amount originally reserved.
func (r *Reservation) Size() uint64 { return r.size }

// Held is the amount not yet released (0 for nil).
func (r *Reservation) Held() uint64 {
	if r == nil {
		return 0
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.left
}

// Release gives back min(part, Held()) bytes.
func (r *Reservation) Release(part uint64) {
	r.mu.Lock()
	if part > r.left {
		part = r.left
	}
	r.left -= part
	r.mu.Unlock()
	r.b.release(part)
}

// Close gives back everything still held. A nil Reservation is a no-op.
func (r *Reservation) Close() {
	if r == nil {
		return
	}
	r.Release(^uint64(0))
}

// Split moves min(n, Held()) bytes of r into a reservation of their own
// on the same budget, without touching the budget: what r's holder hands
// on to another (a device keeping a staging buffer past the unit that
// reserved it). A nil Reservation splits into nil.
func (r *Reservation) Split(n uint64) *Reservation {
	if r == nil {
		return nil
	}
	r.mu.Lock()
	n = min(n, r.left)
	r.left -= n
	r.mu.Unlock()
	return &Reservation{b: r.b, left: n, size: n}
}

// Join moves everything o holds into r, without touching the budget: the
// converse of Split, for a holder taking over a share another held (a
// partition claiming a kept staging's, groth16.Profile.ClaimKept). o is
// left empty. Both must be of one budget: Join panics otherwise, as
// joining would move bytes between budgets that never counted them.
func (r *Reservation) Join(o *Reservation) {
	if o == nil || o == r {
		return
	}
	if o.b != r.b {
		panic("memory: Join of reservations of two budgets")
	}
	o.mu.Lock()
	n := o.left
	o.left = 0
	o.mu.Unlock()
	r.mu.Lock()
	r.left += n
	r.size += n
	r.mu.Unlock()
}

// Of reports whether r was reserved from b.
func (r *Reservation) Of(b *Budget) bool { return r != nil && r.b == b }
