package circuits

import (
	"context"
	"fmt"
	"log/slog"
	"runtime"
	"sync"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-project/cuzk/memory"
	"github.com/cuzk-project/cuzk/r1cs"
	"github.com/cuzk-project/cuzk/r1cs/compiled"
)

// systemsVersion names the gadget code's constraint layout in the cache
// keys of compiled systems: bump it whenever a gadget's constraints change.
const systemsVersion = "c1"

// Systems provides each circuit's pre-compiled constraint system for the
// witness-only path: opened once per process from its cache directory, and
// compiled there from a partition's circuit the first time a circuit id is
// seen (a 32 GiB PoRep partition: about a minute and 6 GB on disk). Safe
// for concurrent use.
type Systems struct {
	// Log receives the one warning a system that cannot be cached gives;
	// nil is slog's default. Set before the first plan.
	Log *slog.Logger

	cache  compiled.Cache
	open   shared[*compiled.System]
	budget *memory.Budget

	mu   sync.Mutex
	held map[*compiled.System]*heldSystem // the systems CountIn counted
}

// heldSystem is how the budget counts one system's mapping.
type heldSystem struct {
	res      *memory.Reservation // the count now; nil when none
	onDevice bool                // a device dropped the pages: it holds the matrices, no count again
}

// NewSystems keeps compiled systems under dir. Where a system cannot be
// written there (a full or read-only disk) it is kept in memory for the
// process's life and the failure logged once (Log, else slog's default): a
// job never fails because the cache cannot be written.
func NewSystems(dir string) *Systems {
	s := &Systems{}
	s.cache = compiled.Cache{Dir: dir, OnStoreError: s.storeFailed}
	return s
}

// storeFailed says that key's system is kept in memory.
func (s *Systems) storeFailed(key string, err error) {
	log := s.Log
	if log == nil {
		log = slog.Default()
	}
	log.Warn("compiled system kept in memory: its cache file cannot be written; the next process compiles it again",
		"system", key, "dir", s.cache.Dir, "err", err)
}

// CountIn has each system s serves count its file mapping (5.9 GB at
// 32 GiB, read at every partition a host evaluates) in b while its pages
// are in use: from when a plan asks for it until they are let go (a device
// holding the matrices drops them, or Drop when the circuit's parameters
// go), and again at the next plan that asks for it. The memory was counted
// nowhere, and a Go heap held to the budget beside it took the daemon's
// resident size over the budget by that much. It is counted only where b
// has room then, never waited for: the units holding the budget may be
// waiting for this very system. Call before the first plan.
func (s *Systems) CountIn(b *memory.Budget) { s.budget = b }

// CountedBytes is what the systems count in the budget now (CountIn):
// memory outside the Go heap.
func (s *Systems) CountedBytes() (n uint64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, h := range s.held {
		if h.res != nil {
			n += h.res.Size()
		}
	}
	return n
}

// Drop lets the pages of circuitID's system go where the budget counts
// them: its parameters were evicted, so no job uses it, and the count ends
// (the next plan that asks for it counts it again, its pages read from the
// file as they are touched).
func (s *Systems) Drop(circuitID string) {
	sys, ok := s.open.peek(circuitID)
	if !ok {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	h := s.held[sys]
	if h == nil || h.res == nil || sys.MappedBytes() == 0 { // one in memory keeps its count
		return
	}
	sys.OnDropPages(func() {}) // this drop is not a device's, and s.mu is held
	sys.DropPages()
	h.res.Close()
	h.res = nil
}

// count reserves sys's mapping in the budget until its pages go, unless
// the budget counts it already or a device holds its matrices.
func (s *Systems) count(sys *compiled.System) {
	n := sys.MappedBytes()
	if n == 0 { // built in memory (its file could not be written): held until the process ends
		n = sys.Bytes()
	}
	if s.budget == nil || n == 0 {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	h := s.held[sys]
	if h == nil {
		h = &heldSystem{}
		if s.held == nil {
			s.held = map[*compiled.System]*heldSystem{}
		}
		s.held[sys] = h
	}
	if h.res != nil || h.onDevice {
		return
	}
	r, ok := s.budget.TryReserve(n)
	if !ok {
		return
	}
	h.res = r
	sys.OnDropPages(func() { s.deviceDropped(sys, r) })
}

// deviceDropped ends the count r of sys's mapping: a device dropped its
// pages (it holds the matrices now).
func (s *Systems) deviceDropped(sys *compiled.System, r *memory.Reservation) {
	s.mu.Lock()
	h := s.held[sys]
	current := h != nil && h.res == r
	if current {
		h.res, h.onDevice = nil, true
	}
	s.mu.Unlock()
	if current {
		r.Close()
	}
}

// SetSystems makes the registry's plans offer the witness-only path
// (engine.Plan.System, engine.Partition.Witness) with s; nil removes it.
// Call before the first Plan.
func (r *Registry) SetSystems(s *Systems) { r.systems = s }

// provider is a plan's System: circuitID's compiled system, built from
// circuit (any partition's: only its constraints are recorded).
func (s *Systems) provider(circuitID string, circuit func() (r1cs.Circuit, r1cs.Shape, error)) func(context.Context) (*compiled.System, error) {
	build := func() (*compiled.System, error) {
		c, hint, err := circuit()
		if err != nil {
			return nil, err
		}
		sys, err := compiled.Compile(c, hint)
		if err != nil {
			return nil, fmt.Errorf("compiling %s: %w", circuitID, err)
		}
		return sys, nil
	}
	return func(ctx context.Context) (*compiled.System, error) {
		sys, err := s.open.get(ctx, circuitID, true, func() (*compiled.System, error) {
			return s.cache.Load(circuitID+"-"+systemsVersion, build)
		})
		if err == nil {
			s.count(sys)
		}
		return sys, err
	}
}

// Prepare opens, or compiles from the id's blank partition, the compiled
// system of a Filecoin circuit id ahead of its first job (a daemon's
// preload), so that the first proof does not build it (a minute at
// 32 GiB). A blank partition has the constraints of every partition of its
// id (TestBlankSystemsEqualReal). Other ids do nothing.
func (s *Systems) Prepare(ctx context.Context, circuitID string) error {
	c, err := lookupFilecoin(circuitID)
	if err != nil {
		return nil
	}
	shape, err := c.shape()
	if err != nil {
		return err
	}
	_, err = s.provider(circuitID, func() (r1cs.Circuit, r1cs.Shape, error) { return c.blank(), shape, nil })(ctx)
	return err
}

// witnessOf is the witness-only synthesis of a circuit without a
// concurrent witness path of its own.
func witnessOf(c r1cs.Circuit, hint r1cs.Shape) (*r1cs.WitnessAssignment, error) {
	w := &r1cs.WitnessAssignment{Input: make([]fr.Element, 0, hint.Inputs), Aux: make([]fr.Element, 0, hint.Aux)}
	if err := r1cs.Synthesize(w, c); err != nil {
		return nil, err
	}
	return w, nil
}

// witnessWorkers is how many goroutines one PoRep or SnapDeals partition's witness
// uses (engine.Partition.WitnessThreads): half the CPUs, so that two
// partitions synthesize at once. Measured at 32 GiB on 16 cores the
// witness runs at 43 M constraints/s on one goroutine and 93 M/s on 16 (the
// 18 challenges are uneven), so two halves make more witnesses per second
// than one whole, and the first is still ready in about 2 s.
func witnessWorkers() int { return max(1, runtime.GOMAXPROCS(0)/2) }
