package engine

import (
	"container/heap"
	"context"
	"sync"
)

// unitKey orders units: higher priority first, then older job, then lower
// partition. (seq, partition) is unique per unit, so two units never
// compare equal and none can replace another: a queue in which two jobs
// share a key (the Rust engine gave every unpartitioned job (0, 0)) drops
// one of them and leaves its caller waiting for good.
type unitKey struct {
	priority  Priority
	seq       uint64
	partition int
}

func (k unitKey) less(o unitKey) bool {
	if k.priority != o.priority {
		return k.priority > o.priority
	}
	if k.seq != o.seq {
		return k.seq < o.seq
	}
	return k.partition < o.partition
}

// unitQueue is a blocking priority queue of units. Parked units are kept
// aside, out of the order, until unpark puts them back.
type unitQueue struct {
	mu     sync.Mutex
	h      unitHeap
	parked []*unit
	wake   chan struct{} // closed and replaced on every push

	// The dispatcher's memory wait: a push that outranks waitKey cancels it.
	waitKey    unitKey
	waitCancel context.CancelFunc
	// waitIdle: interruptWait ends the wait too (a memory wait).
	waitIdle bool
}

func newUnitQueue() *unitQueue { return &unitQueue{wake: make(chan struct{})} }

func (q *unitQueue) push(u *unit) {
	q.mu.Lock()
	heap.Push(&q.h, u)
	close(q.wake)
	q.wake = make(chan struct{})
	if q.waitCancel != nil && u.key.less(q.waitKey) {
		q.waitCancel()
		q.waitCancel = nil
	}
	q.mu.Unlock()
}

// park sets u and every queued unit of its job aside.
func (q *unitQueue) park(u *unit) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.parked = append(q.parked, u)
	kept := q.h[:0]
	for _, o := range q.h {
		if o.job == u.job {
			q.parked = append(q.parked, o)
		} else {
			kept = append(kept, o)
		}
	}
	for i := len(kept); i < len(q.h); i++ {
		q.h[i] = nil
	}
	q.h = kept
	heap.Init(&q.h)
}

// unpark puts every parked unit back in the order.
func (q *unitQueue) unpark() {
	q.mu.Lock()
	defer q.mu.Unlock()
	if len(q.parked) == 0 {
		return
	}
	for _, u := range q.parked {
		heap.Push(&q.h, u)
	}
	q.parked = nil
	close(q.wake)
	q.wake = make(chan struct{})
}

// parkedBefore reports whether a parked unit would go before a unit of
// key k.
func (q *unitQueue) parkedBefore(k unitKey) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	for _, u := range q.parked {
		if u.key.less(k) {
			return true
		}
	}
	return false
}

// jobs lists the jobs that have units in the order (parked ones are not).
func (q *unitQueue) jobs() []*job {
	q.mu.Lock()
	defer q.mu.Unlock()
	var out []*job
	seen := map[*job]bool{}
	for _, u := range q.h {
		if !seen[u.job] {
			seen[u.job] = true
			out = append(out, u.job)
		}
	}
	return out
}

func (q *unitQueue) setWaiting(k unitKey, cancel context.CancelFunc, interruptible bool) {
	q.mu.Lock()
	q.waitKey, q.waitCancel, q.waitIdle = k, cancel, interruptible
	// Something better may have arrived between pop and now.
	if len(q.h) > 0 && q.h[0].key.less(k) {
		cancel()
		q.waitCancel = nil
	}
	q.mu.Unlock()
}

// interruptWait ends the dispatcher's memory wait, if any (not a wait for
// parameters), so that it looks again (the last unit in flight retired).
func (q *unitQueue) interruptWait() {
	q.mu.Lock()
	if q.waitCancel != nil && q.waitIdle {
		q.waitCancel()
		q.waitCancel = nil
	}
	q.mu.Unlock()
}

func (q *unitQueue) clearWaiting() {
	q.mu.Lock()
	q.waitCancel = nil
	q.mu.Unlock()
}

// peek returns the best unit's key (ok false when empty) and a channel
// closed at the next push.
func (q *unitQueue) peek() (k unitKey, ok bool, wake <-chan struct{}) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if len(q.h) > 0 {
		return q.h[0].key, true, q.wake
	}
	return k, false, q.wake
}

// tryPop takes the best unit if there is one.
func (q *unitQueue) tryPop() (*unit, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if len(q.h) == 0 {
		return nil, false
	}
	return heap.Pop(&q.h).(*unit), true
}

// pop blocks until a unit of priority min or higher is available (the
// best unit is taken) or ctx is done. PriorityUnspecified takes any unit.
func (q *unitQueue) pop(ctx context.Context, min Priority) (*unit, error) {
	for {
		q.mu.Lock()
		if len(q.h) > 0 && q.h[0].key.priority >= min {
			u := heap.Pop(&q.h).(*unit)
			q.mu.Unlock()
			return u, nil
		}
		wake := q.wake
		q.mu.Unlock()
		select {
		case <-wake:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// removeJob takes every unit of j out of the queue and returns them.
func (q *unitQueue) removeJob(j *job) []*unit {
	q.mu.Lock()
	defer q.mu.Unlock()
	var out []*unit
	kept := q.h[:0]
	for _, u := range q.h {
		if u.job == j {
			out = append(out, u)
		} else {
			kept = append(kept, u)
		}
	}
	for i := len(kept); i < len(q.h); i++ {
		q.h[i] = nil
	}
	q.h = kept
	heap.Init(&q.h)
	parked := q.parked[:0]
	for _, u := range q.parked {
		if u.job == j {
			out = append(out, u)
		} else {
			parked = append(parked, u)
		}
	}
	clear(q.parked[len(parked):])
	q.parked = parked
	return out
}

// drain empties the queue.
func (q *unitQueue) drain() []*unit {
	q.mu.Lock()
	defer q.mu.Unlock()
	out := append([]*unit(q.h), q.parked...)
	q.h, q.parked = nil, nil
	return out
}

func (q *unitQueue) len() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return len(q.h) + len(q.parked)
}

type unitHeap []*unit

func (h unitHeap) Len() int           { return len(h) }
func (h unitHeap) Less(i, j int) bool { return h[i].key.less(h[j].key) }
func (h unitHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *unitHeap) Push(x any)        { *h = append(*h, x.(*unit)) }
func (h *unitHeap) Pop() any {
	old := *h
	u := old[len(old)-1]
	old[len(old)-1] = nil
	*h = old[:len(old)-1]
	return u
}

// tryPopMatch takes the best unit of priority min or higher that match
// accepts, if there is one (parked units stay parked).
func (q *unitQueue) tryPopMatch(min Priority, match func(*unit) bool) (*unit, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	best := -1
	for i, u := range q.h {
		if u.key.priority >= min && match(u) && (best < 0 || u.key.less(q.h[best].key)) {
			best = i
		}
	}
	if best < 0 {
		return nil, false
	}
	return heap.Remove(&q.h, best).(*unit), true
}
