package cuda

import (
	"math/bits"
	"slices"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cuzk-project/cuzk/memory"
)

// DefaultPinnedKeep is the bytes of free pinned buffers a device keeps for
// reuse when Device.PinnedKeep is 0: a few partitions' splits and compact
// witnesses, not a 32 GiB partition's dense witness.
const DefaultPinnedKeep = 2 << 30

// DefaultWorkers is the workers a device's pool keeps stagings for when
// SetWorkers was not called: the daemon's default gpus.gpu_workers_per_device.
const DefaultWorkers = 2

// splitBufs is the buffers of one partition's splits: bits, scalars and
// indices of each of L, A and B_G1.
const splitBufs = 9

// keptIdle is how long the pool keeps a buffer with a share of the budget
// that no Prepare takes (a variable for tests): a parameter set no longer
// proved should not hold its stagings' host memory.
var keptIdle = time.Minute

// pinnedPool reuses pinned host buffers (cudaHostAlloc is slow). Of the
// buffers given back without a share of the memory budget it keeps at
// most its cap in bytes (Device.PinnedKeep), freeing the largest first,
// and frees at once a buffer larger than the cap: what it keeps is host
// memory no reservation counts. A buffer given back with a share of the
// budget that covers it (putShared: a staging, groth16.RunReport.KeepStaging) it
// keeps beside those, outside the cap, until a get of about its size takes
// it (the share is closed: the taker's reservation counts the buffer),
// EvictKept, or keptIdle without use; an a, b staging's share may instead
// be claimed, the staging then kept for the claimer's Prepare
// (pool_claim.go). Of those it keeps at most one of
// each kind per device worker (SetWorkers): an a, b staging, a partition's
// splits, a witness staging; the oldest beyond that is freed off the
// caller's path, for only as many partitions as there are workers prepare
// at once; stagings of one kind but sizes a power of two apart (another
// circuit's) are bounded apart, so that circuits proved in turn do not
// free each other's. What it lets go while a Run is in flight is freed
// only once the device is idle (pool_retire.go). Once drained (the device
// closed) it frees what it is given back.
type pinnedPool struct {
	keep    *int64                         // the device's PinnedKeep; nil: DefaultPinnedKeep
	workers atomic.Int32                   // SetWorkers; 0: DefaultWorkers
	alloc   func(n uint64) (pinned, error) // nil: allocPinned (tests: memory of their own)
	release func(pinned)                   // nil: pinned.free
	// inFlightFree is told of every buffer freed while a Run is in flight
	// (nil: a debug log line): every CUDA call on the GPU waits for such a
	// free until the GPU is idle.
	inFlightFree func(n uint64)

	mu      sync.Mutex
	free    []pinned // sorted by size
	kept    uint64   // their bytes
	shared  []sharedBuf
	claimed []sharedBuf // a, b stagings whose share a claim took (pool_claim.go)
	claims  int         // claims not yet ended
	sets    uint64      // the last set number given (newSet)
	drained bool
	bg      sync.WaitGroup // freeLater's goroutines
	dying   []sharedBuf    // let go while a Run was in flight: freed at runEnd (their shares still held)
	// dyingBare is the bytes of those without a share (at most the cap)
	dyingBare uint64

	held atomic.Uint64 // bytes of every buffer the pool allocated and has not freed (in use or kept)
	runs atomic.Int32  // library Runs in flight on the device's contexts (runStart)
}

// sharedBuf is a buffer kept with the share of the budget that counts it.
type sharedBuf struct {
	b     pinned
	share *memory.Reservation
	at    time.Time // when it was given back
	kind  keptKind
	class uint8  // sizeClass of its staging: keptSets bounds each kind and class apart
	set   uint64 // the staging it belongs to, among those of its kind
}

// sizeClass is a staging's size class: stagings of one kind within a
// factor of two of each other are one class.
func sizeClass(n uint64) uint8 { return uint8(bits.Len64(n)) }

// keptKind is what a buffer kept with a share stages.
type keptKind uint8

const (
	keptSplit   keptKind = iota // one of a partition's splits (splitBufs a set, each its own set number)
	keptAB                      // a partition's a, b staging
	keptWitness                 // one of a witness run's staging buffers
)

// SetWorkers tells the device how many workers prepare partitions for it
// at once (gpus.gpu_workers_per_device): the pool keeps at most that many
// stagings of each kind with a share of the budget. n < 1 means
// DefaultWorkers.
func (d *Device) SetWorkers(n int) { d.pool.workers.Store(int32(max(0, min(n, 1<<16)))) }

// keptSets is the most stagings of one kind the pool keeps with a share.
func (p *pinnedPool) keptSets() int {
	if w := int(p.workers.Load()); w > 0 {
		return w
	}
	return DefaultWorkers
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
	b, _, err := p.getKept(n)
	return b, err
}

// getKept is get, and reports whether the buffer is one kept with a share
// of the budget (its share now closed) or claimed (pool_claim.go): a
// claimed staging first.
func (p *pinnedPool) getKept(n uint64) (b pinned, shared bool, err error) {
	if p.alloc == nil {
		if err := load(); err != nil {
			return pinned{}, false, err
		}
	}
	p.mu.Lock()
	stale := p.retire(p.stale())
	b, shared = p.takeClaimed(n) // counted by its claimer's reservation, or the taker's
	var share *memory.Reservation
	if !shared {
		b, share, shared = p.takeShared(n)
	}
	found := shared
	if !shared {
		b, found = p.takeFree(n)
	}
	p.mu.Unlock()
	p.freeShared(stale)
	if found {
		share.Close() // nil-safe; a shared buffer's taker counts it now
		return b, shared, nil
	}
	b, err = p.allocator()(n)
	if err == nil {
		p.held.Add(b.n)
	}
	return b, false, err
}

// allocator is what allocates the pool's page-locked buffers: allocPinned,
// or the tests' own.
func (p *pinnedPool) allocator() func(n uint64) (pinned, error) {
	if p.alloc != nil {
		return p.alloc
	}
	return allocPinned
}

func (p *pinnedPool) put(b pinned) {
	if b.p == nil {
		return
	}
	p.mu.Lock()
	if p.drained {
		p.mu.Unlock()
		p.freeBuf(b)
		return
	}
	if b.n > p.limit() {
		now := p.retire([]sharedBuf{{b: b}})
		p.mu.Unlock()
		p.freeShared(now)
		return
	}
	i := sort.Search(len(p.free), func(i int) bool { return p.free[i].n >= b.n })
	p.free = append(p.free, pinned{})
	copy(p.free[i+1:], p.free[i:])
	p.free[i] = b
	p.kept += b.n
	var evicted []sharedBuf
	for p.kept > p.limit() {
		last := p.free[len(p.free)-1]
		p.free = p.free[:len(p.free)-1]
		p.kept -= last.n
		evicted = append(evicted, sharedBuf{b: last})
	}
	now := p.retire(evicted)
	p.mu.Unlock()
	p.freeShared(now) // cudaFreeHost may wait for the device: not under the lock
}

// takeFree takes the smallest free buffer that serves a get of n (fits).
// Called with mu held.
func (p *pinnedPool) takeFree(n uint64) (pinned, bool) {
	i := sort.Search(len(p.free), func(i int) bool { return p.free[i].n >= n })
	if i == len(p.free) || !fits(p.free[i].n, n) {
		return pinned{}, false
	}
	b := p.free[i]
	p.free = append(p.free[:i], p.free[i+1:]...)
	p.kept -= b.n
	return b, true
}

// fits reports whether a kept buffer of size bytes serves a get of n: at
// least n, at most twice n and 1 MiB.
func fits(size, n uint64) bool { return size >= n && size <= 2*n+(1<<20) }

// takeShared takes the smallest buffer kept with a share that serves a
// get of n: at least n, at most an eighth and 1 MiB more (the taker
// reserves what its buffers hold once it has them, StagedBytes; tails vary
// from partition to partition, and are allocated a sixteenth larger).
// Called with mu held.
func (p *pinnedPool) takeShared(n uint64) (pinned, *memory.Reservation, bool) {
	best := bestFit(p.shared, n, nil)
	if best < 0 {
		return pinned{}, nil, false
	}
	s := p.shared[best]
	p.shared = append(p.shared[:best], p.shared[best+1:]...)
	return s.b, s.share, true
}

// bestFit is the index of the smallest buffer of bufs (of those for which
// ok holds, where ok is not nil) that serves a get of n: at least n, at
// most an eighth and 1 MiB more; -1 if none.
func bestFit(bufs []sharedBuf, n uint64, ok func(sharedBuf) bool) int {
	best := -1
	for i, s := range bufs {
		if s.b.n >= n && s.b.n <= n+n/8+(1<<20) && (ok == nil || ok(s)) && (best < 0 || s.b.n < bufs[best].b.n) {
			best = i
		}
	}
	return best
}

// stale takes out the buffers kept with a share for longer than keptIdle.
// Called with mu held.
func (p *pinnedPool) stale() []sharedBuf {
	return p.takeSharedIf(func(s sharedBuf) bool { return time.Since(s.at) > keptIdle })
}

// takeSharedIf takes out the buffers kept with a share for which take
// holds, in order. Called with mu held.
func (p *pinnedPool) takeSharedIf(take func(sharedBuf) bool) []sharedBuf {
	var out []sharedBuf
	keep := p.shared[:0]
	for _, s := range p.shared {
		if take(s) {
			out = append(out, s)
		} else {
			keep = append(keep, s)
		}
	}
	clear(p.shared[len(keep):])
	p.shared = keep
	return out
}

// putShared gives b back with share, the reservation that counts it (nil:
// none), as one of a partition's splits (putKept).
func (p *pinnedPool) putShared(b pinned, share *memory.Reservation) {
	p.putKept(b, share, keptSplit, 0, sizeClass(b.n))
}

// putKept gives b back with share, the reservation that counts it (nil:
// none), as part set of a staging of kind and class (newSet numbers them;
// sizeClass of the whole staging). Covered by its share, b is kept
// outside the cap, and the oldest stagings of its kind and class beyond
// keptSets are let go (retire); otherwise the share is closed and b is
// given back as put does.
func (p *pinnedPool) putKept(b pinned, share *memory.Reservation, kind keptKind, set uint64, class uint8) {
	if b.p == nil {
		share.Close()
		return
	}
	if !p.keeps(b, share) {
		share.Close()
		p.put(b)
		return
	}
	p.mu.Lock()
	if p.drained {
		p.mu.Unlock()
		p.freeBuf(b)
		share.Close()
		return
	}
	if kind == keptSplit {
		p.sets++
		set = p.sets
	}
	stale := p.stale()
	p.shared = append(p.shared, sharedBuf{b: b, share: share, at: time.Now(), kind: kind, class: class, set: set})
	p.freeLater(p.retire(append(stale, p.overBound(kind, class)...)))
	p.mu.Unlock()
}

// keeps reports whether putKept keeps b with share (unless the pool is
// drained meanwhile): the share covers it and the pool keeps stagings.
func (p *pinnedPool) keeps(b pinned, share *memory.Reservation) bool {
	return b.p != nil && share != nil && share.Held() >= b.n && p.keepsStagings()
}

// keepsStagings reports whether the pool keeps stagings with a share at
// all (Device.PinnedKeep not negative).
func (p *pinnedPool) keepsStagings() bool { return p.keep == nil || *p.keep >= 0 }

// freeLater frees bufs on a goroutine of its own (cudaFreeHost of a
// staging unpins it page by page: not on the caller's path), which drain
// waits for. Called with mu held.
func (p *pinnedPool) freeLater(bufs []sharedBuf) {
	if len(bufs) == 0 {
		return
	}
	p.bg.Add(1)
	go func() {
		defer p.bg.Done()
		p.freeShared(bufs)
	}()
}

// newSet numbers a staging of several buffers (putKept's set).
func (p *pinnedPool) newSet() uint64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.sets++
	return p.sets
}

// overBound takes out the buffers of the oldest stagings of kind and class
// beyond keptSets (a partition's splits count splitBufs buffers a
// staging). Called with mu held.
func (p *pinnedPool) overBound(kind keptKind, class uint8) []sharedBuf {
	bound := p.keptSets()
	if kind == keptSplit {
		bound *= splitBufs
	}
	var sets []uint64 // of kind, oldest first (p.shared is in the order given back; set numbers grow)
	for _, s := range p.shared {
		if s.kind == kind && s.class == class && !slices.Contains(sets, s.set) {
			sets = append(sets, s.set)
		}
	}
	if len(sets) <= bound {
		return nil
	}
	slices.Sort(sets)
	drop := sets[:len(sets)-bound]
	return p.takeSharedIf(func(s sharedBuf) bool {
		return s.kind == kind && s.class == class && slices.Contains(drop, s.set)
	})
}

// evictShared frees every buffer kept with a share, and those retired,
// and closes the shares; it returns the bytes they gave back to the budget.
func (p *pinnedPool) evictShared() (freed uint64) {
	p.mu.Lock()
	out := append(p.shared, p.takeDying()...)
	p.shared = nil
	p.mu.Unlock()
	for _, s := range out {
		freed += held(s.share)
	}
	p.freeShared(out)
	return freed
}

// sharedBytes is what the shares of the buffers kept with one hold, and
// of those retired.
func (p *pinnedPool) sharedBytes() (n uint64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, s := range p.shared {
		n += held(s.share)
	}
	for _, s := range p.dying {
		n += held(s.share)
	}
	return n
}

// held is what share holds (nil: nothing).
func held(share *memory.Reservation) uint64 {
	if share == nil {
		return 0
	}
	return share.Held()
}

// freeShared frees the buffers, then closes their shares: the budget has
// the room back once the memory is.
func (p *pinnedPool) freeShared(bufs []sharedBuf) {
	for _, s := range bufs {
		p.freeBuf(s.b)
		s.share.Close()
	}
}

// drain frees every kept buffer, and every buffer given back from now on;
// it returns once the frees begun off the callers' paths are done.
func (p *pinnedPool) drain() {
	p.mu.Lock()
	free, shared := p.free, append(append(p.shared, p.claimed...), p.takeDying()...)
	p.free, p.kept, p.shared, p.claimed, p.drained = nil, 0, nil, nil, true
	p.mu.Unlock()
	for _, b := range free {
		p.freeBuf(b)
	}
	p.freeShared(shared)
	p.bg.Wait()
}

func (p *pinnedPool) freeBuf(b pinned) {
	p.held.Add(-b.n)
	if p.runs.Load() > 0 {
		p.freedInFlight(b.n)
	}
	if p.release != nil {
		p.release(b)
		return
	}
	b.free()
}
