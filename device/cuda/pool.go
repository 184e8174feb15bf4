package cuda

import (
	"sort"
	"sync"
	"sync/atomic"
)

// DefaultPinnedKeep is the bytes of free pinned buffers a device keeps for
// reuse when Device.PinnedKeep is 0: a few partitions' splits and compact
// witnesses, not a 32 GiB partition's dense witness.
const DefaultPinnedKeep = 2 << 30

// pinnedPool reuses pinned host buffers (cudaHostAlloc is slow). Of the
// buffers given back it keeps at most its cap in bytes (Device.PinnedKeep),
// freeing the largest first, and frees at once a buffer larger than the
// cap: what it keeps is host memory no reservation counts. Once drained
// (the device closed) it frees what it is given back.
type pinnedPool struct {
	keep    *int64                         // the device's PinnedKeep; nil: DefaultPinnedKeep
	alloc   func(n uint64) (pinned, error) // nil: allocPinned (tests: memory of their own)
	release func(pinned)                   // nil: pinned.free

	mu      sync.Mutex
	free    []pinned // sorted by size
	kept    uint64   // their bytes
	drained bool

	held atomic.Uint64 // bytes of every buffer the pool allocated and has not freed (in use or kept)
}

// heldBytes is the pinned host memory the pool's buffers hold, in use or
// kept.
func (p *pinnedPool) heldBytes() uint64 { return p.held.Load() }

// PinnedBytes is the page-locked host memory the device's buffer pool
// holds, in use or kept for reuse: the stagings of a, b, the splits and the
// witnesses, memory outside the Go heap.
func (d *Device) PinnedBytes() uint64 { return d.pool.heldBytes() }

// limit is the bytes the pool may keep.
func (p *pinnedPool) limit() uint64 {
	switch {
	case p.keep == nil || *p.keep == 0:
		return DefaultPinnedKeep
	case *p.keep < 0:
		return 0
	}
	return uint64(*p.keep)
}

func (p *pinnedPool) get(n uint64) (pinned, error) {
	if p.alloc == nil {
		if err := load(); err != nil {
			return pinned{}, err
		}
	}
	p.mu.Lock()
	i := sort.Search(len(p.free), func(i int) bool { return p.free[i].n >= n })
	if i < len(p.free) && p.free[i].n <= 2*n+(1<<20) {
		b := p.free[i]
		p.free = append(p.free[:i], p.free[i+1:]...)
		p.kept -= b.n
		p.mu.Unlock()
		return b, nil
	}
	p.mu.Unlock()
	alloc := allocPinned
	if p.alloc != nil {
		alloc = p.alloc
	}
	b, err := alloc(n)
	if err == nil {
		p.held.Add(b.n)
	}
	return b, err
}

func (p *pinnedPool) put(b pinned) {
	if b.p == nil {
		return
	}
	p.mu.Lock()
	if p.drained || b.n > p.limit() {
		p.mu.Unlock()
		p.freeBuf(b)
		return
	}
	i := sort.Search(len(p.free), func(i int) bool { return p.free[i].n >= b.n })
	p.free = append(p.free, pinned{})
	copy(p.free[i+1:], p.free[i:])
	p.free[i] = b
	p.kept += b.n
	var evicted []pinned
	for p.kept > p.limit() {
		last := p.free[len(p.free)-1]
		p.free = p.free[:len(p.free)-1]
		p.kept -= last.n
		evicted = append(evicted, last)
	}
	p.mu.Unlock()
	for _, e := range evicted { // cudaFreeHost may wait for the device: not under the lock
		p.freeBuf(e)
	}
}

// drain frees every kept buffer, and every buffer given back from now on.
func (p *pinnedPool) drain() {
	p.mu.Lock()
	free := p.free
	p.free, p.kept, p.drained = nil, 0, true
	p.mu.Unlock()
	for _, b := range free {
		p.freeBuf(b)
	}
}

func (p *pinnedPool) freeBuf(b pinned) {
	p.held.Add(-b.n)
	if p.release != nil {
		p.release(b)
		return
	}
	b.free()
}
