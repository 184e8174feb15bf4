package srs

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"

	"github.com/cuzk-project/cuzk/groth16"
	"github.com/cuzk-project/cuzk/memory"
)

var (
	// ErrUnknownCircuit is returned for a circuit id that was never
	// registered; it is groth16.ErrUnknownCircuit, as engine's is.
	ErrUnknownCircuit = groth16.ErrUnknownCircuit
	// ErrInUse is returned by Evict for an entry that is referenced or
	// being loaded; Evict refuses (it does not defer the eviction).
	ErrInUse = errors.New("srs: parameters in use")
	// ErrDuplicate is returned by Register for an id already registered.
	ErrDuplicate = errors.New("srs: circuit id already registered")
)

// Tier is an entry's residency. Values equal cuzk.v1 SRSStatus.Tier.
type Tier int32

const (
	Hot  Tier = 0 // decoded in host memory
	Warm Tier = 1 // mapped, not decoded (not used by this cache)
	Cold Tier = 2 // on disk only
)

func (t Tier) String() string {
	switch t {
	case Hot:
		return "hot"
	case Warm:
		return "warm"
	case Cold:
		return "cold"
	}
	return fmt.Sprintf("Tier(%d)", int32(t))
}

// Loader reads the parameters of circuit id from path. It should return
// early with ctx.Err() if ctx is done (every waiter gave up).
type Loader func(ctx context.Context, id, path string) (*groth16.Params, error)

// ReadParamsLoader is the default Loader: groth16.ReadParams with opts.
func ReadParamsLoader(opts groth16.ReadOptions) Loader {
	return func(ctx context.Context, _, path string) (*groth16.Params, error) {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		return groth16.ReadParams(path, opts)
	}
}

// Budget is the part of *memory.Budget the cache uses: Reserve charges a
// load before it decodes (evicting idle holdings or waiting), Notify says
// an entry just became evictable.
type Budget interface {
	Reserve(ctx context.Context, n uint64) (*memory.Reservation, error)
	Notify()
}

// Source says where a circuit's parameters are.
type Source struct {
	Path string
	// Size is the decoded size in bytes, reserved before loading; 0 means
	// the file's size (uncompressed points decode to the same size). The
	// reservation is corrected to ParamsBytes once loaded.
	Size uint64
}

// Config assembles a Cache.
type Config struct {
	// Circuits maps circuit ids to their parameter files; more can be
	// added with Register.
	Circuits map[string]Source
	// Load reads parameters; nil means ReadParamsLoader(groth16.ReadOptions{}).
	Load Loader
	// Budget is charged for every hot entry; nil means unlimited.
	Budget Budget
	// MinIdle keeps EvictIdle from evicting entries used less than MinIdle
	// ago (the Rust cuzk waits 5 minutes); Evict ignores it.
	MinIdle time.Duration
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Reserve, when set, is what a load of id reserves before it runs, in
	// place of its Source's size (0: that size): a loader that reads the file into device
	// memory needs only its buffers. The reservation is corrected to
	// ParamsBytes once loaded either way.
	Reserve func(id string, src Source) uint64
	// Unload, when set, is called with an entry's parameters as it is
	// evicted, before its memory is given back to the budget: a device
	// holding a copy of them (the loader put them there) frees it.
	Unload func(id string, p *groth16.Params)
	// Evicted, when set, is called with an entry's id once its parameters
	// were evicted (after Unload and the budget's release): what else the
	// process holds for the circuit may go too.
	Evicted func(id string)
}

// Cache is parameter residency by circuit id. It is safe for concurrent use.
type Cache struct {
	load    Loader
	unload  func(id string, p *groth16.Params)
	evicted func(id string)
	reserve func(id string, src Source) uint64
	budget  Budget
	minIdle time.Duration
	now     func() time.Time

	keep atomic.Pointer[func(id string) string] // KeepWhile's rule

	mu      sync.Mutex
	entries map[string]*entry
	useSeq  uint64 // orders last uses exactly, whatever the clock says
	wake    *time.Timer
	wakeAt  time.Time
}

type entry struct {
	id  string
	src Source

	params   *groth16.Params // non-nil: hot
	res      holds
	size     uint64 // decoded size once loaded, else src.Size
	refs     int
	lastUsed time.Time
	lastSeq  uint64
	loads    int
	loadTime time.Duration
	load     *attempt // non-nil while loading
	bad      *badFile // non-nil: its file failed its checks
}

// attempt is one load, shared by every Acquire that arrives while it runs.
type attempt struct {
	done     chan struct{} // closed when finished
	finished bool
	err      error
	waiters  int // Acquires waiting; each gets a reference on success
	cancel   context.CancelFunc
	// abandoned: every waiter gave up and the load was cancelled; nobody
	// joins it any more.
	abandoned bool
}

// New returns a cache over cfg.Circuits.
func New(cfg Config) *Cache {
	c := &Cache{load: cfg.Load, unload: cfg.Unload, evicted: cfg.Evicted, reserve: cfg.Reserve, budget: cfg.Budget, minIdle: cfg.MinIdle, now: cfg.Now, entries: make(map[string]*entry)}
	if c.load == nil {
		c.load = ReadParamsLoader(groth16.ReadOptions{})
	}
	if c.now == nil {
		c.now = time.Now
	}
	for id, src := range cfg.Circuits {
		c.entries[id] = &entry{id: id, src: src, size: src.Size}
	}
	return c
}

// Register adds a circuit id.
func (c *Cache) Register(id string, src Source) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.entries[id]; ok {
		return fmt.Errorf("%w: %q", ErrDuplicate, id)
	}
	c.entries[id] = &entry{id: id, src: src, size: src.Size}
	return nil
}

func unknown(id string) error { return fmt.Errorf("%w: %q", ErrUnknownCircuit, id) }

// touch records a use. Called with mu held.
func (c *Cache) touch(e *entry) {
	c.useSeq++
	e.lastSeq = c.useSeq
	e.lastUsed = c.now()
}

// Acquire returns the parameters of circuit id, loading them if they are
// cold, and a release function to call exactly once (later calls do
// nothing) when the caller no longer uses them. While any reference is
// held the entry is never evicted. Acquires that arrive during a load wait
// for that load; if ctx is done first they return ctx.Err(), and the load
// is abandoned (cancelled) once nobody waits for it. An Acquire that
// arrives while an abandoned load is still running waits for it to end,
// then takes what it left or starts a new load.
func (c *Cache) Acquire(ctx context.Context, id string) (*groth16.Params, func(), error) {
	if err := c.Bad(id); err != nil {
		return nil, nil, err
	}
	c.mu.Lock()
	e, ok := c.entries[id]
	if !ok {
		c.mu.Unlock()
		return nil, nil, unknown(id)
	}
	for e.load != nil && e.load.abandoned {
		// Every waiter gave up on this load and it was cancelled, but a
		// loader that does not stop may still finish it: wait for it
		// rather than load a second copy beside it (twice the memory), and
		// rather than join it and inherit its cancellation error.
		done := e.load.done
		c.mu.Unlock()
		select {
		case <-done:
		case <-ctx.Done():
			return nil, nil, ctx.Err()
		}
		c.mu.Lock()
	}
	if e.params != nil {
		e.refs++
		c.touch(e)
		p := e.params
		c.mu.Unlock()
		return p, c.releaser(e), nil
	}
	a := e.load
	if a == nil {
		lctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
		a = &attempt{done: make(chan struct{}), cancel: cancel}
		e.load = a
		go c.runLoad(lctx, e, a)
	}
	a.waiters++
	c.mu.Unlock()

	select {
	case <-a.done:
		c.mu.Lock()
		defer c.mu.Unlock()
		if a.err != nil {
			return nil, nil, a.err
		}
		return e.params, c.releaser(e), nil // runLoad took our reference
	case <-ctx.Done():
		c.mu.Lock()
		notify := false
		if a.finished {
			if a.err == nil { // it handed us a reference after all
				e.refs--
				notify = e.refs == 0
			}
		} else if a.waiters--; a.waiters == 0 {
			a.abandoned = true
			a.cancel()
		}
		c.mu.Unlock()
		if notify {
			c.notify()
		}
		return nil, nil, ctx.Err()
	}
}

func (c *Cache) notify() {
	if c.budget != nil {
		c.budget.Notify()
	}
}

func (c *Cache) releaser(e *entry) func() {
	var once sync.Once
	return func() {
		once.Do(func() {
			c.mu.Lock()
			e.refs--
			c.touch(e)
			idle := e.refs == 0
			c.mu.Unlock()
			if idle {
				c.notify() // a blocked reservation may now evict this entry
			}
		})
	}
}

// runLoad reserves memory for e, loads it and hands a reference to every
// waiter. It owns a until it closes a.done.
func (c *Cache) runLoad(ctx context.Context, e *entry, a *attempt) {
	t0 := time.Now()
	fsize, mtime, stamped := fileStamp(e.src.Path) // before: a file replaced meanwhile is not the one marked
	p, res, size, err := c.reserveAndLoad(ctx, e)
	elapsed := time.Since(t0)

	var duplicate holds
	var dupParams *groth16.Params
	c.mu.Lock()
	if e.load == a {
		e.load = nil
	}
	a.finished = true
	switch {
	case err != nil && fileFault(err) && stamped:
		a.err = badError(e.id, e.src.Path, err)
		e.bad = &badFile{size: fsize, mtime: mtime, err: a.err}
	case err != nil:
		a.err = fmt.Errorf("srs: load %q from %s: %w", e.id, e.src.Path, err)
	case e.params != nil:
		// Two loads overlapped (an abandoned one and its successor): keep
		// the first, give this one's waiters references to it.
		duplicate, dupParams = res, p
		e.refs += a.waiters
		c.touch(e)
	default:
		e.params, e.res, e.size = p, res, size
		e.bad = nil
		e.loads++
		e.loadTime = elapsed
		e.refs += a.waiters
		c.touch(e)
	}
	idle := err == nil && e.refs == 0
	c.mu.Unlock()
	if dupParams != nil && c.unload != nil {
		c.unload(e.id, dupParams)
	}
	duplicate.Close() // before waking the waiters: they see the budget settled
	close(a.done)
	a.cancel()
	if idle {
		c.notify()
	}
}

// holds are the reservations an entry keeps while hot.
type holds []*memory.Reservation

func (h holds) Close() {
	for _, r := range h {
		r.Close()
	}
}

func (c *Cache) reserveAndLoad(ctx context.Context, e *entry) (p *groth16.Params, h holds, size uint64, err error) {
	var res *memory.Reservation
	defer func() {
		if r := recover(); r != nil { // a loader bug must not take the daemon down
			err = fmt.Errorf("loader panicked: %v", r)
		}
		if err != nil {
			res.Close() // nil-safe
			p, h = nil, nil
		}
	}()
	est := e.src.Size
	if c.reserve != nil {
		est = c.reserve(e.id, e.src)
	}
	if est == 0 {
		fi, err := os.Stat(e.src.Path)
		if err != nil {
			return nil, nil, 0, err
		}
		est = uint64(fi.Size())
	}
	if c.budget != nil {
		if res, err = c.budget.Reserve(ctx, est); err != nil {
			return nil, nil, 0, fmt.Errorf("reserve %d bytes: %w", est, err)
		}
	}
	p, err = c.load(ctx, e.id, e.src.Path)
	if err != nil {
		return nil, nil, 0, err
	}
	if p == nil {
		return nil, nil, 0, errors.New("loader returned no parameters")
	}
	size = ParamsBytes(p)
	switch {
	case res == nil:
	case size < est:
		res.Release(est - size)
	case size > est:
		more, err := c.budget.Reserve(ctx, size-est)
		if err != nil {
			return nil, nil, 0, fmt.Errorf("reserve %d more bytes than estimated: %w", size-est, err)
		}
		return p, holds{res, more}, size, nil
	}
	if res == nil {
		return p, nil, size, nil
	}
	return p, holds{res}, size, nil
}

// Preload makes circuit id hot. alreadyLoaded reports that it was hot
// before; loadTime is the time spent waiting for it to become hot. A
// preloaded entry is idle once this returns: the budget may evict it again
// (least recently used first) when it needs the room.
func (c *Cache) Preload(ctx context.Context, id string) (alreadyLoaded bool, loadTime time.Duration, err error) {
	c.mu.Lock()
	e, ok := c.entries[id]
	if !ok {
		c.mu.Unlock()
		return false, 0, unknown(id)
	}
	if e.params != nil {
		c.touch(e)
		c.mu.Unlock()
		return true, 0, nil
	}
	c.mu.Unlock()
	t0 := time.Now()
	_, release, err := c.Acquire(ctx, id)
	if err != nil {
		return false, 0, err
	}
	release()
	return false, time.Since(t0), nil
}

// Evict makes circuit id cold now. It refuses with ErrInUse while the entry
// is referenced or being loaded (it does not wait or defer). wasLoaded is
// false, with no error, for an entry that was already cold.
func (c *Cache) Evict(id string) (wasLoaded bool, freedBytes uint64, err error) {
	c.mu.Lock()
	e, ok := c.entries[id]
	if !ok {
		c.mu.Unlock()
		return false, 0, unknown(id)
	}
	switch {
	case e.load != nil:
		c.mu.Unlock()
		return false, 0, fmt.Errorf("%w: %q is being loaded", ErrInUse, id)
	case e.params == nil:
		c.mu.Unlock()
		return false, 0, nil
	case e.refs > 0:
		refs := e.refs
		c.mu.Unlock()
		return true, 0, fmt.Errorf("%w: %q has %d references", ErrInUse, id, refs)
	}
	release, size := c.drop(e)
	c.mu.Unlock()
	release()
	return true, size, nil
}

// drop makes e cold and returns what the caller runs outside the lock:
// Unload of its parameters, the close of its reservation, then Evicted.
// Called with mu held.
func (c *Cache) drop(e *entry) (release func(), size uint64) {
	res, p, id := e.res, e.params, e.id
	e.params, e.res = nil, nil
	return func() {
		if c.unload != nil {
			c.unload(id, p)
		}
		res.Close()
		if c.evicted != nil {
			c.evicted(id)
		}
	}, e.size
}

// EvictIdle evicts hot, unreferenced entries idle for at least MinIdle,
// least recently used first, until need bytes are freed or none is left.
// It returns the bytes freed. If it fell short because some idle entries are
// younger than MinIdle, it calls the budget's Notify once they are old
// enough, so a reservation waiting on them is not stranded. Its signature
// is memory.Evictor's: install it
// with budget.SetEvictor(cache.EvictIdle) (or call it from the evictor the
// engine installs).
func (c *Cache) EvictIdle(need uint64) (freed uint64) {
	c.mu.Lock()
	idle, soonest := c.idleLocked()
	var closing []func()
	for _, e := range idle {
		if freed >= need {
			break
		}
		release, size := c.drop(e)
		closing = append(closing, release)
		freed += size
	}
	if freed < need && soonest >= 0 {
		c.wakeLocked(soonest)
	}
	c.mu.Unlock()
	for _, release := range closing {
		release()
	}
	return freed
}

// EvictLRU evicts the entry EvictIdle would evict first (hot, unreferenced,
// not loading, not kept, idle for at least MinIdle) and returns its id and
// decoded size; "" when there is none. A loader that finds the device
// memory short calls it to free a set's device copy (Unload) before it
// streams another set instead of holding it whole.
func (c *Cache) EvictLRU() (id string, freed uint64) {
	c.mu.Lock()
	idle, _ := c.idleLocked()
	if len(idle) == 0 {
		c.mu.Unlock()
		return "", 0
	}
	release, size := c.drop(idle[0])
	c.mu.Unlock()
	release()
	return idle[0].id, size
}

// idleLocked lists the entries that may be evicted to make room, least
// recently used first, and how long until the youngest of those kept only
// by MinIdle may go (-1: none). Called with mu held.
func (c *Cache) idleLocked() (idle []*entry, soonest time.Duration) {
	now := c.now()
	soonest = -1
	for _, e := range c.entries {
		if e.params == nil || e.refs > 0 || e.load != nil || c.kept(e.id) != "" {
			continue
		}
		if age := now.Sub(e.lastUsed); age < c.minIdle {
			if wait := c.minIdle - age; soonest < 0 || wait < soonest {
				soonest = wait
			}
			continue
		}
		idle = append(idle, e)
	}
	slices.SortFunc(idle, func(a, b *entry) int { return cmp.Compare(a.lastSeq, b.lastSeq) })
	return idle, soonest
}

// KeepWhile installs the rule that keeps entries from EvictIdle: an entry
// whose id it gives a reason for ("" none) is not evicted to make room,
// and Status shows the reason. The engine's Urgent is one (parameters of
// CRITICAL or HIGH work queued or due). An operator's Evict ignores it.
// f must not call the cache; nil removes the rule.
func (c *Cache) KeepWhile(f func(id string) string) {
	if f == nil {
		c.keep.Store(nil)
		return
	}
	c.keep.Store(&f)
}

// kept is KeepWhile's reason for id, "" without a rule.
func (c *Cache) kept(id string) string {
	if f := c.keep.Load(); f != nil {
		return (*f)(id)
	}
	return ""
}

// wakeLocked makes the budget ask again (Notify) once an entry that was
// too young to evict has been idle for MinIdle: a reservation queued behind
// it is not woken by anything else. Called with mu held.
func (c *Cache) wakeLocked(after time.Duration) {
	at := time.Now().Add(after)
	if c.wake != nil && !c.wakeAt.After(at) {
		return // an earlier or equal wake-up is pending
	}
	if c.wake != nil {
		c.wake.Stop()
	}
	c.wakeAt = at
	c.wake = time.AfterFunc(after+time.Millisecond, func() {
		c.mu.Lock()
		c.wake = nil
		c.mu.Unlock()
		c.notify()
	})
}

// Entry is one line of Status.
type Entry struct {
	CircuitID string
	Path      string
	Tier      Tier
	SizeBytes uint64 // decoded size; for a cold entry the last known or configured size
	RefCount  uint32
	LastUsed  time.Time // zero if never used
	Loading   bool
	Loads     int           // completed loads since the cache was made
	LoadTime  time.Duration // of the last completed load
	// Bad is why the file failed its checks while it is marked (ErrBadParams;
	// Bad reads the file's stamp to know it is still the same), "" else.
	Bad string
	// Kept is why EvictIdle keeps the entry (KeepWhile), "" when nothing does.
	Kept string
	// OnDevice: the loader left the points in their file for a device to
	// read into its own memory (groth16.Params.Deferred): the set is
	// resident on the devices, the host holds its verifying key.
	OnDevice bool
	// FromFile: OnDevice, but the devices hold only part of the points
	// and read the rest from the file at every proof (Deferred.Streamed).
	FromFile bool
	// HostCopy is the host memory the devices hold on the set's behalf: a
	// page-locked copy of part of what streams from the file
	// (Deferred.Held, device.stream_cache), in SizeBytes too.
	HostCopy uint64
}

// Status lists every registered circuit, ordered by id.
func (c *Cache) Status() []Entry {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]Entry, 0, len(c.entries))
	for _, e := range c.entries {
		s := Entry{CircuitID: e.id, Path: e.src.Path, Tier: Cold, SizeBytes: e.size, RefCount: uint32(e.refs),
			LastUsed: e.lastUsed, Loading: e.load != nil, Loads: e.loads, LoadTime: e.loadTime}
		if e.bad != nil {
			s.Bad = e.bad.err.Error()
		}
		if e.params != nil {
			s.Tier = Hot
			s.OnDevice = e.params.Deferred != nil
			s.FromFile = s.OnDevice && e.params.Deferred.Streamed()
			if s.OnDevice {
				s.HostCopy = e.params.Deferred.Held()
			}
		}
		s.Kept = c.kept(e.id)
		out = append(out, s)
	}
	slices.SortFunc(out, func(a, b Entry) int { return cmp.Compare(a.CircuitID, b.CircuitID) })
	return out
}

// ParamsBytes is the memory p's points take once decoded. A CUDA device
// that streams queries under its memory limit reads them from these same
// pages (page-locked in place), so they are counted once. Deferred queries
// (groth16.OpenParams: left in their file, read by a device into its own
// memory) take none, but for the host memory a device holds on their
// behalf (Deferred.Held: a page-locked copy of part of the file).
func ParamsBytes(p *groth16.Params) uint64 {
	g1 := uint64(unsafe.Sizeof(bls12381.G1Affine{}))
	g2 := uint64(unsafe.Sizeof(bls12381.G2Affine{}))
	n1 := len(p.VK.IC) + len(p.H) + len(p.L) + len(p.A) + len(p.BG1)
	n := uint64(unsafe.Sizeof(p.VK)) + uint64(n1)*g1 + uint64(len(p.BG2))*g2
	if p.Deferred != nil {
		n += p.Deferred.Held()
	}
	return n
}
