package engine

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/maphash"
	"io"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-project/cuzk/groth16"
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
// workers per device and a result pruner. The dispatcher starts one per
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

	synthQ *unitQueue
	devQ   *unitQueue
	slots  chan int // free synthesis worker slots
	// critSlot holds one extra slot only CRITICAL units may take, so a
	// WinningPoSt never waits behind long PoRep syntheses (F8).
	critSlot chan int
	devs     []*deviceState
	randMu   sync.Mutex
	// inflight counts units between their reservation and their
	// retirement (verification included): what will give memory back.
	inflight atomic.Int64

	mu        sync.Mutex
	jobs      map[string]*job
	seq       uint64
	closed    bool
	stopped   chan struct{} // closed when Close has finished
	completed uint64
	failed    uint64
}

type deviceState struct {
	dev     groth16.Device
	lock    deviceLock // held only around Run
	current atomic.Pointer[job]
}

// New starts an engine.
func New(cfg Config) (*Engine, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg.setDefaults()
	ctx, cancel := context.WithCancel(context.Background())
	e := &Engine{
		cfg:      cfg,
		rec:      cfg.Recorder,
		budget:   cfg.Budget,
		start:    time.Now(),
		ctx:      ctx,
		cancel:   cancel,
		synthQ:   newUnitQueue(),
		devQ:     newUnitQueue(),
		slots:    make(chan int, cfg.SynthesisWorkers),
		critSlot: make(chan int, 1),
		jobs:     make(map[string]*job),
		stopped:  make(chan struct{}),
	}
	for i := 0; i < cfg.SynthesisWorkers; i++ {
		e.slots <- i
	}
	e.critSlot <- cfg.SynthesisWorkers
	for _, d := range cfg.Devices {
		e.devs = append(e.devs, &deviceState{dev: d})
	}
	e.wg.Add(2)
	go e.dispatch()
	go e.prune()
	for di := range e.devs {
		for w := 0; w < cfg.WorkersPerDevice; w++ {
			e.wg.Add(1)
			go e.deviceWorker(di, di*cfg.WorkersPerDevice+w)
		}
	}
	return e, nil
}

// Budget is the engine's memory budget.
func (e *Engine) Budget() *memory.Budget { return e.budget }

// Recorder is the engine's timeline recorder (nil when none).
func (e *Engine) Recorder() *timeline.Recorder { return e.rec }

// Submit accepts req and returns its job id and its queue position (the
// number of unfinished jobs that will be served before it; 0 = next). A
// request whose RequestID is already known (a job not yet pruned) joins
// that job: once the job is planned, the same id and the job's queue
// position are returned, or the error that rejected the first request; no
// work is added. Joining needs the same content (every field but the id
// and the priority): another request under a used id is rejected with
// ErrInvalidRequest, never given the first one's proof. A job that ended
// FAILED or CANCELLED is not joined: the request starts a new job under
// its id (Curio retries a failed task under the same id). A malformed
// request returns an error wrapping ErrInvalidRequest. The request's byte
// slices are kept, not copied: the caller must not modify them afterwards.
func (e *Engine) Submit(ctx context.Context, r Request) (jobID string, queuePos int, err error) {
	req := &r
	switch req.Kind {
	case KindPoRepSealCommit, KindSnapDealsUpdate, KindWindowPoStPartition, KindWinningPoSt:
	default:
		return "", 0, fmt.Errorf("%w: unknown proof kind %d", ErrInvalidRequest, req.Kind)
	}
	prio := req.Priority
	if prio == PriorityUnspecified {
		prio = DefaultPriority(req.Kind)
	}
	if prio < PriorityLow || prio > PriorityCritical {
		return "", 0, fmt.Errorf("%w: unknown priority %d", ErrInvalidRequest, req.Priority)
	}

	id := req.RequestID
	if err := checkRequestID(id); err != nil {
		return "", 0, err
	}
	var content uint64
	if id != "" {
		content = req.content()
	} else {
		var b [12]byte
		if _, err := io.ReadFull(rand.Reader, b[:]); err != nil {
			return "", 0, fmt.Errorf("engine: job id: %w", err)
		}
		id = hex.EncodeToString(b[:])
	}

	e.mu.Lock()
	if e.closed {
		e.mu.Unlock()
		return "", 0, ErrClosed
	}
	if o, ok := e.jobs[id]; ok && !o.retryable() {
		e.mu.Unlock()
		if o.content != content {
			return "", 0, fmt.Errorf("%w: request id %q is in use by a different request", ErrInvalidRequest, id)
		}
		return e.join(ctx, o)
	}
	e.seq++
	jctx, jcancel := context.WithCancel(e.ctx)
	j := &job{
		id: id, seq: e.seq, kind: req.Kind, priority: prio, content: content,
		submitted: time.Now(), ctx: jctx, cancel: jcancel,
		done: make(chan struct{}), planned: make(chan struct{}),
	}
	e.jobs[id] = j // placeholder: a concurrent duplicate joins it
	e.mu.Unlock()

	plan, err := e.plan(ctx, req)
	if err != nil {
		e.mu.Lock()
		if e.jobs[id] == j { // a retry may have taken the id after a Cancel
			delete(e.jobs, id)
		}
		e.mu.Unlock()
		jcancel()
		j.mu.Lock()
		if j.state != stateDone { // a concurrent Cancel may have ended it
			j.state = stateDone
			j.result = Result{JobID: id, Status: StatusFailed, Error: err.Error()}
			close(j.done)
		}
		j.mu.Unlock()
		j.planErr = err
		close(j.planned)
		return "", 0, err
	}
	j.mu.Lock()
	j.plan = plan
	j.live = len(plan.Partitions)
	j.asm = NewAssembler(len(plan.Partitions))
	j.inputs = make([][]fr.Element, len(plan.Partitions))
	copy(j.inputs, plan.PublicInputs)
	j.mu.Unlock()
	e.rec.Record(timeline.JobSubmit, id, -1, -1, -1)

	e.mu.Lock()
	if e.closed {
		e.mu.Unlock()
		e.end(j, StatusCancelled, nil, ErrClosed)
		j.planErr = ErrClosed
		close(j.planned)
		return "", 0, ErrClosed
	}
	pos := e.queuePosition(j)
	e.mu.Unlock()
	j.mu.Lock()
	if j.state == statePlanning { // a concurrent Cancel may have ended it
		j.state = stateQueued
	}
	j.mu.Unlock()
	close(j.planned)
	// The units wait in the queue without parameters: the dispatcher
	// acquires them when it starts the job's first unit (admission).
	for i, p := range plan.Partitions {
		e.queue(e.synthQ, &unit{job: j, key: unitKey{j.priority, j.seq, i}, part: p})
	}
	return id, pos, nil
}

// join answers a Submit whose request id names the existing job j: when j
// is planned, with j's id and queue position, or with the error that
// rejected j's request (then j is gone and the id is free again).
func (e *Engine) join(ctx context.Context, j *job) (string, int, error) {
	select {
	case <-j.planned:
	case <-ctx.Done():
		return "", 0, ctx.Err()
	}
	if j.planErr != nil {
		return "", 0, j.planErr
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	return j.id, e.queuePosition(j), nil
}

// retryable reports whether j ended FAILED or CANCELLED, so that a new
// request under its id starts over instead of getting that result back.
func (j *job) retryable() bool {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.state == stateDone && (j.result.Status == StatusFailed || j.result.Status == StatusCancelled)
}

// queuePosition counts unfinished jobs served before j. Called with e.mu
// held.
func (e *Engine) queuePosition(j *job) int {
	me := unitKey{j.priority, j.seq, 0}
	n := 0
	for _, o := range e.jobs {
		if o == j {
			continue
		}
		o.mu.Lock()
		done := o.state == stateDone
		o.mu.Unlock()
		if !done && (unitKey{o.priority, o.seq, 0}).less(me) {
			n++
		}
	}
	return n
}

// plan asks the planner and checks what it returned.
func (e *Engine) plan(ctx context.Context, req *Request) (p *Plan, err error) {
	defer func() {
		if r := recover(); r != nil {
			p, err = nil, fmt.Errorf("%w: planner panicked: %v", ErrInvalidRequest, r)
		}
	}()
	p, err = e.cfg.Planner.Plan(ctx, req)
	if err != nil {
		return nil, err
	}
	switch {
	case p == nil || len(p.Partitions) == 0:
		return nil, fmt.Errorf("engine: planner returned no partitions for a %v request", req.Kind)
	case p.Verify == nil:
		return nil, fmt.Errorf("engine: plan for %q has no verifier", p.CircuitID)
	case p.PublicInputs != nil && len(p.PublicInputs) != len(p.Partitions):
		return nil, fmt.Errorf("engine: plan for %q has %d input sets for %d partitions",
			p.CircuitID, len(p.PublicInputs), len(p.Partitions))
	}
	for i, part := range p.Partitions {
		if part.Synthesize == nil {
			return nil, fmt.Errorf("engine: plan for %q: partition %d has no synthesizer", p.CircuitID, i)
		}
		if part.Reserve > e.budget.Limit() {
			return nil, fmt.Errorf("%w: %q partition %d needs %d bytes, more than the whole memory budget (%d)",
				ErrInvalidRequest, p.CircuitID, i, part.Reserve, e.budget.Limit())
		}
		if part.ReserveABC > part.Reserve {
			return nil, fmt.Errorf("engine: plan for %q: partition %d releases %d bytes after Run of %d reserved",
				p.CircuitID, i, part.ReserveABC, part.Reserve)
		}
	}
	return p, nil
}

// Await waits for the job's result; every caller gets its own copy. A
// finished job answers at once, whatever the timeout or ctx. Otherwise
// timeout > 0 bounds the wait: when it passes first, the result has Status
// StatusTimeout and the job goes on; timeout ≤ 0 waits without a bound.
// ctx ending stops the wait, not the job (Cancel does that). An unknown
// (or pruned) id returns ErrNotFound.
func (e *Engine) Await(ctx context.Context, jobID string, timeout time.Duration) (Result, error) {
	e.mu.Lock()
	j, ok := e.jobs[jobID]
	e.mu.Unlock()
	if !ok {
		return Result{}, fmt.Errorf("%w: %q", ErrNotFound, jobID)
	}
	select {
	case <-j.done:
		return j.finalResult(), nil
	default:
	}
	var expired <-chan time.Time
	if timeout > 0 {
		t := time.NewTimer(timeout)
		defer t.Stop()
		expired = t.C
	}
	select {
	case <-j.done:
		return j.finalResult(), nil
	case <-expired:
		return Result{JobID: jobID, Status: StatusTimeout, Error: fmt.Sprintf("not done after %v", timeout)}, nil
	case <-ctx.Done():
		return Result{}, ctx.Err()
	}
}

// Prove submits req and waits for its result. ctx ending stops the wait,
// not the job: another caller may have joined it by its request id.
func (e *Engine) Prove(ctx context.Context, req Request) (Result, error) {
	id, _, err := e.Submit(ctx, req)
	if err != nil {
		return Result{}, err
	}
	return e.Await(ctx, id, 0)
}

// Cancel ends a job: queued units are removed at once, running ones stop at
// their next stage boundary. wasRunning reports whether any of its work had
// started (a unit's synthesis). Cancelling a finished job changes nothing.
func (e *Engine) Cancel(jobID string) (wasRunning bool, err error) {
	e.mu.Lock()
	j, ok := e.jobs[jobID]
	e.mu.Unlock()
	if !ok {
		return false, fmt.Errorf("%w: %q", ErrNotFound, jobID)
	}
	j.mu.Lock()
	wasRunning = j.state == stateRunning
	j.mu.Unlock()
	e.end(j, StatusCancelled, nil, ErrCancelled)
	return wasRunning, nil
}

// end gives a job its final result exactly once, removes its queued units,
// cancels its context so running units stop at the next boundary, and
// wakes every waiter. It reports whether this call ended the job.
func (e *Engine) end(j *job, st Status, proof []byte, cause error) bool {
	now := time.Now()
	j.mu.Lock()
	if j.state == stateDone {
		j.mu.Unlock()
		return false
	}
	j.state = stateDone
	j.finished = now
	r := Result{JobID: j.id, Status: st, Total: now.Sub(j.submitted), SRSLoad: j.srsLoad}
	if !j.started.IsZero() {
		r.QueueWait = j.started.Sub(j.submitted)
	}
	if st == StatusCompleted {
		r.Proof = proof
		r.Synthesis, r.GPUCompute = j.synth, j.gpu
	}
	if cause != nil {
		r.Error = cause.Error()
	}
	j.result = r
	// What only a running job needs goes now; the result stays for the TTL.
	j.asm, j.inputs = nil, nil
	j.mu.Unlock()

	j.cancel()
	for _, u := range e.synthQ.removeJob(j) {
		e.retire(u)
	}
	for _, u := range e.devQ.removeJob(j) {
		e.retire(u)
	}
	e.mu.Lock()
	if st == StatusCompleted {
		e.completed++
	} else if st == StatusFailed {
		e.failed++
	}
	e.mu.Unlock()
	close(j.done)
	e.rec.Record(timeline.JobDone, j.id, -1, -1, -1)
	if st == StatusFailed {
		slog.Warn("job failed", "job", j.id, "kind", j.kind.String(), "err", cause)
	}
	return true
}

// fail ends j as failed (once; later failures of its other units are
// dropped).
func (e *Engine) fail(j *job, err error) { e.end(j, StatusFailed, nil, err) }

// retire drops a unit: its memory goes back to the budget and, for the
// job's last unit, the parameters go back to their source.
func (e *Engine) retire(u *unit) {
	u.res.Close()
	u.res = nil
	u.a = nil
	j := u.job
	j.mu.Lock()
	j.live--
	var release func()
	if j.live == 0 {
		release, j.release = j.release, nil
		j.params, j.plan = nil, nil
	}
	j.mu.Unlock()
	if release != nil {
		release()
		// Jobs set aside for want of memory may fit now.
		e.synthQ.unpark()
	}
	// Last: until the parameters are back, this unit may still free memory.
	if u.inflight {
		u.inflight = false
		if e.inflight.Add(-1) == 0 {
			// A memory wait begun while units were in flight may now
			// never end: let the dispatcher look again.
			e.synthQ.interruptWait()
		}
	}
}

// Preload makes a parameter set resident ahead of use. A load that waits
// in the memory budget while no unit is in flight is given up with
// ErrNoMemory: the budget serves waiters in order, so it would hold up
// every unit behind it, and the memory it waits for may be held by the
// parameters of jobs that only those units can finish.
func (e *Engine) Preload(ctx context.Context, circuitID string) (alreadyLoaded bool, loadTime time.Duration, err error) {
	pctx, cancel := context.WithCancel(ctx)
	defer cancel()
	type result struct {
		already bool
		took    time.Duration
		err     error
	}
	done := make(chan result, 1)
	go func() {
		var r result
		_, r.err = safeStep(func() (struct{}, error) {
			var err error
			r.already, r.took, err = e.preload(pctx, circuitID)
			return struct{}{}, err
		})
		done <- r
	}()
	poll := time.NewTicker(5 * time.Millisecond)
	defer poll.Stop()
	seen := 0 // consecutive polls that saw a hopeless wait
	for {
		select {
		case r := <-done:
			return r.already, r.took, r.err
		case <-poll.C:
			if e.inflight.Load() != 0 || e.budget.Waiting() == 0 {
				seen = 0
				continue
			}
			if seen++; seen < 2 {
				continue
			}
			cancel()
			if r := <-done; r.err == nil { // it got there meanwhile
				return r.already, r.took, nil
			}
			return false, 0, fmt.Errorf("%w: preloading %q: %d of %d bytes are held by parameters in use and no partition is in flight to free more",
				ErrNoMemory, circuitID, e.budget.Limit()-e.budget.Available(), e.budget.Limit())
		}
	}
}

func (e *Engine) preload(ctx context.Context, circuitID string) (bool, time.Duration, error) {
	if c, ok := e.cfg.Params.(ParamsCache); ok {
		return c.Preload(ctx, circuitID)
	}
	t0 := time.Now()
	_, release, err := e.cfg.Params.Acquire(ctx, circuitID)
	if err != nil {
		return false, 0, err
	}
	if release != nil {
		release()
	}
	return false, time.Since(t0), nil
}

// Evict drops a parameter set from residency if nobody uses it.
func (e *Engine) Evict(circuitID string) (wasLoaded bool, freedBytes uint64, err error) {
	if c, ok := e.cfg.Params.(ParamsCache); ok {
		return c.Evict(circuitID)
	}
	return false, 0, nil
}

// Status is a snapshot of the engine's state.
func (e *Engine) Status() Snapshot {
	s := Snapshot{
		Uptime:      time.Since(e.start),
		MemoryUsed:  e.budget.Used(),
		MemoryLimit: e.budget.Limit(),
	}
	for i, d := range e.devs {
		ds := DeviceStatus{Ordinal: uint32(i)}
		if n, ok := d.dev.(Named); ok {
			ds.Name = n.Name()
		}
		if j := d.current.Load(); j != nil {
			ds.CurrentJobID, ds.CurrentProofKind = j.id, j.kind.String()
		}
		s.Devices = append(s.Devices, ds)
	}
	if c, ok := e.cfg.Params.(ParamsCache); ok {
		s.SRS = c.Status()
	}
	e.mu.Lock()
	s.ProofsCompleted, s.ProofsFailed = e.completed, e.failed
	jobs := make([]*job, 0, len(e.jobs))
	for _, j := range e.jobs {
		jobs = append(jobs, j)
	}
	e.mu.Unlock()
	byKind := map[ProofKind]*QueueStatus{}
	var order []ProofKind
	for _, j := range jobs {
		j.mu.Lock()
		st := j.state
		j.mu.Unlock()
		if st == stateDone {
			continue
		}
		q := byKind[j.kind]
		if q == nil {
			q = &QueueStatus{ProofKind: j.kind.String()}
			byKind[j.kind] = q
			order = append(order, j.kind)
		}
		if st == stateRunning {
			q.InProgress++
		} else {
			q.Pending++
		}
	}
	for _, k := range []ProofKind{KindWinningPoSt, KindWindowPoStPartition, KindPoRepSealCommit, KindSnapDealsUpdate} {
		if q := byKind[k]; q != nil {
			s.Queues = append(s.Queues, *q)
		}
	}
	return s
}

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

// MaxRequestIDLen bounds a request id (it becomes the job id, in every
// timeline event and log line).
const MaxRequestIDLen = 256

func checkRequestID(id string) error {
	if len(id) > MaxRequestIDLen {
		return fmt.Errorf("%w: request id is %d bytes, at most %d", ErrInvalidRequest, len(id), MaxRequestIDLen)
	}
	for i, r := range id {
		if r < 0x20 || r == 0x7f || r == utf8.RuneError {
			return fmt.Errorf("%w: request id has a control or invalid character at byte %d", ErrInvalidRequest, i)
		}
	}
	return nil
}

// contentSeed keys Request.content; contents are compared only within
// one process.
var contentSeed = maphash.MakeSeed()

// content hashes every field that says what to prove (not RequestID, not
// Priority), each length-prefixed so that no two requests encode alike.
func (r *Request) content() uint64 {
	var h maphash.Hash
	h.SetSeed(contentSeed)
	num := func(v uint64) {
		var b [8]byte
		binary.LittleEndian.PutUint64(b[:], v)
		h.Write(b[:])
	}
	bytes := func(b []byte) {
		num(uint64(len(b)))
		h.Write(b)
	}
	num(uint64(r.Kind))
	num(r.SectorSize)
	num(r.RegisteredProof)
	bytes(r.VanillaProof)
	num(uint64(len(r.VanillaProofs)))
	for _, v := range r.VanillaProofs {
		bytes(v)
	}
	num(r.SectorNumber)
	num(r.MinerID)
	bytes(r.Randomness)
	num(uint64(r.PartitionIndex))
	bytes(r.CommROld)
	bytes(r.CommRNew)
	bytes(r.CommDNew)
	return h.Sum64()
}

func unknownCircuit(id string) error { return fmt.Errorf("%w: %q", ErrUnknownCircuit, id) }
