package cluster

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"

	"github.com/cuzk-project/cuzk/engine"
)

// Engine is what a worker needs of its local engine (*engine.Engine has
// it): the server's engine methods, less Prove.
type Engine interface {
	Submit(ctx context.Context, req engine.Request) (jobID string, queuePos int, err error)
	Await(ctx context.Context, jobID string, timeout time.Duration) (engine.Result, error)
	Cancel(jobID string) (wasRunning bool, err error)
	Status() engine.Snapshot
	Preload(ctx context.Context, circuitID string) (alreadyLoaded bool, loadTime time.Duration, err error)
	Evict(circuitID string) (wasLoaded bool, freed uint64, err error)
}

// Options configures a Cluster. DatabaseURL and, for a worker, Local are
// required.
type Options struct {
	DatabaseURL string
	Migrate     bool   // run Migrate in Start
	ID          string // this daemon's worker id; "" = host-pid-random
	// Local is the daemon's engine; nil makes a frontend only.
	Local Engine
	// Devices is the local engine's device count, for the status.
	Devices int
	// Queue is the River queue of the kinds Routes does not name; "" =
	// "cuzk".
	Queue string
	// Capacity bounds the jobs of Queue claimed at once; ≤ 0 = 1. Ignored
	// without Local.
	Capacity int
	// Routes sends a kind's jobs to a queue of its own (every daemon of a
	// cluster must route alike).
	Routes map[engine.ProofKind]string
	// Queues are more queues this worker claims from, with their
	// capacities (0: not claimed here; Queue's entry overrides Capacity).
	Queues map[string]int
	// Planner, when set, checks every queued request at Submit as a
	// worker's engine will (the circuit registry: the vanilla proofs
	// decoded and verified), so that a malformed one is refused there
	// instead of failing on a worker; its plan is dropped. Nil: only the
	// request's fields are checked.
	Planner engine.Planner
	// LocalKinds go to Local directly (when there is one), never queued.
	LocalKinds []engine.ProofKind
	// MaxAttempts per job; ≤ 0 = 3.
	MaxAttempts int
	// PollInterval is a waiter's fallback poll; ≤ 0 = 1 s.
	PollInterval time.Duration
	// Timeouts is the longest attempt per kind; a kind missing gets 1 h.
	Timeouts map[engine.ProofKind]time.Duration
	// ResultTTL keeps results after their job ends; ≤ 0 = 10 min.
	ResultTTL time.Duration
	// Heartbeat is how often the daemon's cuzk_worker row and the
	// clean-up run; ≤ 0 = 5 s.
	Heartbeat time.Duration
	// RideOut is how long a frontend call (Submit, Await, Cancel) waits
	// out an unreachable database, trying again with backoff, before it
	// answers an error wrapping engine.ErrUnavailable; the caller's
	// context bounds it too. ≤ 0 = DefaultRideOut. A worker's statements
	// about a job it runs (its payload, its result) are tried again until
	// the database answers or the daemon stops.
	RideOut time.Duration
	// DeadAfter is how long a worker's heartbeat may be silent before its
	// running jobs go back into the queue (any daemon does it); ≤ 0 =
	// 6 × Heartbeat. River's rescuer (the kind's timeout) stays the
	// fallback for a worker whose row is gone.
	DeadAfter time.Duration
	Log       *slog.Logger
}

// Cluster is one daemon's part in a cluster: the frontend (Submit,
// Await, Prove, Cancel, Status) and, with a local engine, the worker.
//
// Start starts its goroutines (River's client, the notification listener,
// the heartbeat); Close stops them and waits for them.
type Cluster struct {
	opts  Options
	log   *slog.Logger
	pool  *pgxpool.Pool
	river *river.Client[pgx.Tx]
	local Engine
	id    string
	host  string
	start time.Time

	localKinds map[engine.ProofKind]bool
	timeouts   map[engine.ProofKind]time.Duration

	waiters  waiters
	running  atomic.Int32
	stopping atomic.Bool
	health   dbHealth
	closing  chan struct{} // closed when Close begins
	last     lastStatus

	cancel    context.CancelFunc
	wg        sync.WaitGroup
	closeOnce sync.Once
	closeErr  error
}

// Defaults of Options.
const (
	DefaultQueue       = "cuzk"
	DefaultMaxAttempts = 3
	DefaultTimeout     = time.Hour
	fetchCooldown      = 5 * time.Millisecond
)

// New connects to the database and prepares the River client; nothing
// runs until Start.
func New(ctx context.Context, opts Options) (*Cluster, error) {
	opts.setDefaults()
	log := opts.Log
	if log == nil {
		log = slog.Default()
	}
	host, _ := os.Hostname()
	id := opts.ID
	if id == "" {
		id = workerID(host)
	}
	c := &Cluster{
		opts: opts, log: log.With("cluster", id), local: opts.Local, id: id, host: host,
		localKinds: map[engine.ProofKind]bool{}, timeouts: map[engine.ProofKind]time.Duration{},
		closing: make(chan struct{}),
	}
	c.waiters.m = map[string]map[chan struct{}]struct{}{}
	for _, k := range opts.LocalKinds {
		c.localKinds[k] = true
	}
	shortest := c.setTimeouts()
	pcfg, err := pgxpool.ParseConfig(opts.DatabaseURL)
	if err != nil {
		return nil, fmt.Errorf("cluster: database_url: %w", err)
	}
	// Two connections stay taken (our LISTEN, River's notifier); every
	// running job needs one now and then (payload, result), so does a
	// waiter's poll.
	pcfg.MaxConns = max(pcfg.MaxConns, int32(2*c.capacity()+6))
	c.pool, err = pgxpool.NewWithConfig(ctx, pcfg)
	if err != nil {
		return nil, fmt.Errorf("cluster: database: %w", err)
	}
	c.river, err = river.NewClient(riverpgxv5.New(c.pool), c.riverConfig(log, shortest))
	if err != nil {
		c.pool.Close()
		return nil, fmt.Errorf("cluster: river client: %w", err)
	}
	return c, nil
}

// setDefaults fills the fields of o left at zero with their defaults.
func (o *Options) setDefaults() {
	if o.Queue == "" {
		o.Queue = DefaultQueue
	}
	if o.Capacity <= 0 {
		o.Capacity = 1
	}
	if o.MaxAttempts <= 0 {
		o.MaxAttempts = DefaultMaxAttempts
	}
	if o.PollInterval <= 0 {
		o.PollInterval = time.Second
	}
	if o.ResultTTL <= 0 {
		o.ResultTTL = engine.DefaultResultTTL
	}
	if o.Heartbeat <= 0 {
		o.Heartbeat = 5 * time.Second
	}
	if o.DeadAfter <= 0 {
		o.DeadAfter = 6 * o.Heartbeat
	}
	if o.RideOut <= 0 {
		o.RideOut = DefaultRideOut
	}
}

// workerID is a worker id unique to this process: host-pid-random.
func workerID(host string) string {
	var b [3]byte
	_, _ = rand.Read(b[:])
	return fmt.Sprintf("%s-%d-%s", host, os.Getpid(), hex.EncodeToString(b[:]))
}

// setTimeouts fills c.timeouts with every kind's longest attempt
// (Options.Timeouts, DefaultTimeout where missing) and returns the
// shortest of them.
func (c *Cluster) setTimeouts() (shortest time.Duration) {
	for _, kn := range engine.Kinds() {
		k := kn.Kind
		d := c.opts.Timeouts[k]
		if d <= 0 {
			d = DefaultTimeout
		}
		c.timeouts[k] = d
		if shortest == 0 || d < shortest {
			shortest = d
		}
	}
	return shortest
}

// riverConfig is the River client's configuration: this daemon's id, its
// proof worker and the queues it claims from, shortest being the
// shortest kind's timeout.
func (c *Cluster) riverConfig(log *slog.Logger, shortest time.Duration) *river.Config {
	workers := river.NewWorkers()
	river.AddWorker(workers, &proofWorker{c: c})
	rcfg := &river.Config{
		ID:          c.id,
		Logger:      slog.New(minLevel{log.Handler(), slog.LevelWarn}),
		MaxAttempts: c.opts.MaxAttempts,
		// The rescuer looks at jobs running longer than the shortest
		// timeout and rescues those past their own kind's (proofWorker.
		// Timeout): a WinningPoSt comes back in seconds, a PoRep is left
		// alone while it may still be running.
		JobTimeout:                  shortest,
		RescueStuckJobsAfter:        shortest,
		CompletedJobRetentionPeriod: c.opts.ResultTTL,
		// River's default (100 ms) spaces both a worker's fetches and an
		// inserting client's wake-up notifications; a proof is worth a
		// fetch sooner.
		FetchCooldown: fetchCooldown,
		Workers:       workers,
	}
	if worked := c.worked(); len(worked) > 0 {
		rcfg.Queues = map[string]river.QueueConfig{}
		for q, n := range worked {
			rcfg.Queues[q] = river.QueueConfig{MaxWorkers: n}
		}
	}
	return rcfg
}

// ID is this daemon's worker id (River's client id).
func (c *Cluster) ID() string { return c.id }

// Pool is the database pool (for tests and tools).
func (c *Cluster) Pool() *pgxpool.Pool { return c.pool }

// Start migrates (Options.Migrate), then starts the worker (with a local
// engine), the result listener and the heartbeat.
func (c *Cluster) Start(ctx context.Context) error {
	if c.opts.Migrate {
		if err := Migrate(ctx, c.pool); err != nil {
			return err
		}
	}
	c.start = time.Now()
	if err := c.heartbeat(ctx); err != nil {
		return fmt.Errorf("cluster: heartbeat: %w", err)
	}
	if len(c.worked()) > 0 {
		if err := c.river.Start(context.WithoutCancel(ctx)); err != nil {
			return fmt.Errorf("cluster: river start: %w", err)
		}
	}
	bg, cancel := context.WithCancel(context.WithoutCancel(ctx))
	c.cancel = cancel
	c.wg.Add(2)
	go func() { defer c.wg.Done(); c.listen(bg) }()
	go func() { defer c.wg.Done(); c.maintain(bg) }()
	c.log.Info("cluster started", "queues", c.worked(), "worker", c.local != nil,
		"capacity", c.capacity(), "local_kinds", c.opts.LocalKinds)
	return nil
}

// Close stops claiming jobs, lets running ones finish within grace (then
// cancels them: they are snoozed back into the queue for another
// worker), stops the goroutines and closes the pool. The local engine
// stays open: its owner closes it. Later calls return the first's error.
func (c *Cluster) Close(grace time.Duration) error {
	c.closeOnce.Do(func() { c.closeErr = c.close(grace) })
	return c.closeErr
}

func (c *Cluster) close(grace time.Duration) error {
	c.stopping.Store(true)
	close(c.closing)
	var err error
	if len(c.worked()) > 0 && c.start != (time.Time{}) {
		ctx, cancel := context.WithTimeout(context.Background(), grace)
		err = c.river.Stop(ctx)
		cancel()
		if err != nil {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			err = c.river.StopAndCancel(ctx)
			cancel()
		}
	}
	if c.cancel != nil {
		c.cancel()
	}
	c.wg.Wait()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	_, _ = c.pool.Exec(ctx, "DELETE FROM cuzk_worker WHERE id = $1", c.id)
	cancel()
	c.pool.Close()
	if err != nil && !errors.Is(err, context.Canceled) {
		return fmt.Errorf("cluster: stopping river: %w", err)
	}
	return nil
}

// worked is the queues this daemon claims from, with their capacities
// (none without a local engine).
func (c *Cluster) worked() map[string]int {
	out := map[string]int{}
	if c.local == nil {
		return out
	}
	out[c.opts.Queue] = c.opts.Capacity
	for q, n := range c.opts.Queues {
		out[q] = n
	}
	for q, n := range out {
		if n <= 0 {
			delete(out, q)
		}
	}
	return out
}

// capacity is the jobs this daemon proves at once over all its queues.
func (c *Cluster) capacity() int {
	n := 0
	for _, k := range c.worked() {
		n += k
	}
	return n
}

// queueOf is the queue a kind's jobs go into.
func (c *Cluster) queueOf(k engine.ProofKind) string {
	if q, ok := c.opts.Routes[k]; ok && q != "" {
		return q
	}
	return c.opts.Queue
}

// queues is every queue this daemon knows of: its own, the routed ones and
// the worked ones, sorted.
func (c *Cluster) queues() []string {
	set := map[string]bool{c.opts.Queue: true}
	for _, q := range c.opts.Routes {
		set[q] = true
	}
	for q := range c.opts.Queues {
		set[q] = true
	}
	out := make([]string, 0, len(set))
	for q := range set {
		if q != "" {
			out = append(out, q)
		}
	}
	sort.Strings(out)
	return out
}

// minLevel drops records below a level (River logs routine events at
// info).
type minLevel struct {
	slog.Handler
	min slog.Level
}

func (h minLevel) Enabled(ctx context.Context, l slog.Level) bool {
	return l >= h.min && h.Handler.Enabled(ctx, l)
}

func (h minLevel) WithAttrs(a []slog.Attr) slog.Handler {
	return minLevel{h.Handler.WithAttrs(a), h.min}
}

func (h minLevel) WithGroup(n string) slog.Handler { return minLevel{h.Handler.WithGroup(n), h.min} }
