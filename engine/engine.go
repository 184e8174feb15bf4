package engine

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cuzk-project/cuzk/memory"
	"github.com/cuzk-project/cuzk/timeline"
)

// ErrProofInvalid fails a job whose assembled proof did not verify.
var ErrProofInvalid = errors.New("proof failed verification")

// ErrNoMemory fails a job whose parameters and unit cannot fit in the
// memory budget while nothing in flight will give memory back and no other
// job holding parameters can run to release them.
var ErrNoMemory = errors.New("memory budget exhausted")

// Engine proves requests. All methods are safe for concurrent use.
//
// Goroutines: New starts one synthesis dispatcher, WorkersPerDevice device
// workers per device plus one for CRITICAL units only, and a result
// pruner. The dispatcher starts one per
// parameter acquisition and one per unit synthesis; device workers start
// one per Finish. All are counted in wg;
// Close cancels them and waits for every one.
type Engine struct {
	cfg    Config
	rec    *timeline.Recorder
	budget *memory.Budget
	start  time.Time

	ctx    context.Context // cancelled by Close
	cancel context.CancelFunc
	wg     sync.WaitGroup

	// critBudget is the CRITICAL headroom (Config.CriticalHeadroom), held
	// in budget by critHold; nil when there is none.
	critBudget *memory.Budget
	critHold   *memory.Reservation

	synthQ *unitQueue
	devQ   *unitQueue
	slots  chan int // free synthesis worker slots
	// critSlot holds one extra slot only CRITICAL units may take, so a
	// WinningPoSt never waits behind long PoRep syntheses.
	critSlot chan int
	cores    *cores // the CPUs' share the syntheses in flight take
	devs     []*deviceState
	randMu   sync.Mutex
	// inflight counts units between their reservation and their
	// retirement (verification included): what will give memory back.
	inflight atomic.Int64
	// evicting counts the frees of kept stagings under way
	// (evictKeptAside): memory that will come back.
	evicting atomic.Int32

	urgent urgency // CRITICAL and HIGH work per circuit (Urgent)

	ahead aheadSet // prepared units a unit may reserve ahead of (ahead.go)
	aux   auxPool  // the last dead aux vector, for the next synthesis (auxpool.go)

	mu        sync.Mutex
	jobs      map[string]*job
	seq       uint64
	closed    bool
	stopped   chan struct{} // closed when Close has finished
	completed uint64
	failed    uint64
}

// New starts an engine.
func New(cfg Config) (*Engine, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg.setDefaults()
	var critBudget *memory.Budget
	var critHold *memory.Reservation
	if h := cfg.criticalHeadroom(cfg.Budget.Limit()); h > 0 {
		if h > cfg.Budget.Limit()/2 {
			return nil, fmt.Errorf("engine: CRITICAL headroom of %d bytes is more than half the memory budget (%d)", h, cfg.Budget.Limit())
		}
		var ok bool
		if critHold, ok = cfg.Budget.TryReserve(h); !ok {
			return nil, fmt.Errorf("engine: CRITICAL headroom of %d bytes does not fit: %d of the budget's %d are free",
				h, cfg.Budget.Available(), cfg.Budget.Limit())
		}
		critBudget = memory.New(h)
	}
	ctx, cancel := context.WithCancel(context.Background())
	e := &Engine{
		cfg:        cfg,
		rec:        cfg.Recorder,
		budget:     cfg.Budget,
		critBudget: critBudget,
		critHold:   critHold,
		start:      time.Now(),
		ctx:        ctx,
		cancel:     cancel,
		synthQ:     newUnitQueue(),
		devQ:       newUnitQueue(),
		slots:      make(chan int, cfg.SynthesisWorkers),
		critSlot:   make(chan int, 1),
		cores:      newCores(cfg.SynthesisWorkers),
		jobs:       make(map[string]*job),
		stopped:    make(chan struct{}),
	}
	e.urgent.window, e.urgent.now = cfg.UrgentWindow, time.Now
	if e.urgent.window == 0 {
		e.urgent.window = DefaultUrgentWindow
	}
	for i := 0; i < cfg.SynthesisWorkers; i++ {
		e.slots <- i
	}
	e.critSlot <- cfg.SynthesisWorkers
	for i, d := range cfg.Devices {
		ds := &deviceState{dev: d}
		if i < len(cfg.CriticalDevices) {
			ds.critical = cfg.CriticalDevices[i]
		}
		e.devs = append(e.devs, ds)
	}
	e.wg.Add(2)
	go e.dispatch()
	go e.prune()
	for di := range e.devs {
		for w := 0; w < cfg.WorkersPerDevice; w++ {
			e.wg.Add(1)
			go e.deviceWorker(di, di*cfg.WorkersPerDevice+w, PriorityUnspecified)
		}
		// The CRITICAL worker, numbered after every ordinary one.
		e.wg.Add(1)
		go e.deviceWorker(di, len(e.devs)*cfg.WorkersPerDevice+di, PriorityCritical)
	}
	return e, nil
}

// Budget is the engine's memory budget.
func (e *Engine) Budget() *memory.Budget { return e.budget }

// Recorder is the engine's timeline recorder (nil when none).
func (e *Engine) Recorder() *timeline.Recorder { return e.rec }

// Close cancels every unfinished job (their results say ErrClosed), stops
// all goroutines and waits for them. The budget holds nothing of the
// engine's afterwards. Every call, concurrent ones included, returns only
// when that is done.
func (e *Engine) Close() error {
	e.mu.Lock()
	if e.closed {
		e.mu.Unlock()
		<-e.stopped
		return nil
	}
	defer close(e.stopped)
	e.closed = true
	jobs := make([]*job, 0, len(e.jobs))
	for _, j := range e.jobs {
		jobs = append(jobs, j)
	}
	e.mu.Unlock()
	for _, j := range jobs {
		e.end(j, StatusCancelled, nil, ErrClosed)
	}
	e.cancel()
	e.wg.Wait()
	for _, u := range e.synthQ.drain() {
		e.retire(u)
	}
	for _, u := range e.devQ.drain() {
		e.retire(u)
	}
	e.critHold.Close()
	e.aux.drop()
	return nil
}

// prune drops finished results older than the TTL.
func (e *Engine) prune() {
	defer e.wg.Done()
	every := e.cfg.ResultTTL / 4
	if every > time.Minute {
		every = time.Minute
	}
	if every < time.Millisecond {
		every = time.Millisecond
	}
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-e.ctx.Done():
			return
		case now := <-t.C:
			e.mu.Lock()
			for id, j := range e.jobs {
				j.mu.Lock()
				old := j.state == stateDone && now.Sub(j.finished) > e.cfg.ResultTTL
				j.mu.Unlock()
				if old {
					delete(e.jobs, id)
				}
			}
			e.mu.Unlock()
		}
	}
}

func unknownCircuit(id string) error { return fmt.Errorf("%w: %q", ErrUnknownCircuit, id) }
