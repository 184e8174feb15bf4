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

// Held is the amount not yet released.
func (r *Reservation) Held() uint64 {
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
