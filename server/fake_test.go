package server

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/cuzk-project/cuzk/engine"
)

// fakeEngine is an in-memory Engine. Jobs finish when the test says so
// (finish), or at once when autoFinish is set. Vanilla proofs starting
// with "garbage" are rejected as the real engine rejects undecodable
// input; a request id of "panic" makes Submit and Prove panic.
type fakeEngine struct {
	mu         sync.Mutex
	jobs       map[string]*fakeJob
	order      []string
	seq        int
	autoFinish bool
	snapshot   engine.Snapshot
	srs        map[string]uint64 // known circuits → size; loaded if in loaded
	loaded     map[string]bool
	tries      map[string]int // jobs started under each id
}

type fakeJob struct {
	req     engine.Request
	running bool
	done    chan struct{}
	res     engine.Result
}

func newFakeEngine() *fakeEngine {
	return &fakeEngine{
		jobs:   map[string]*fakeJob{},
		srs:    map[string]uint64{"porep-32g": 44 << 30, "synthetic": 1 << 20},
		loaded: map[string]bool{},
		tries:  map[string]int{},
	}
}

func (f *fakeEngine) check(req engine.Request) error {
	if req.RequestID == "panic" {
		panic("fake engine: asked to panic")
	}
	if len(req.VanillaProof) >= 7 && string(req.VanillaProof[:7]) == "garbage" {
		return fmt.Errorf("%w: vanilla_proof: not C1 output JSON (byte 0: invalid character 'g')", engine.ErrInvalidRequest)
	}
	return nil
}

func (f *fakeEngine) Submit(ctx context.Context, req engine.Request) (string, int, error) {
	if err := f.check(req); err != nil {
		return "", 0, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	id := req.RequestID
	if id == "" {
		f.seq++
		id = "job-" + strconv.Itoa(f.seq)
	}
	if j, ok := f.jobs[id]; ok && !j.retryable() { // idempotent
		return id, 0, nil
	}
	j := &fakeJob{req: req, done: make(chan struct{})}
	f.jobs[id] = j
	f.tries[id]++
	f.order = append(f.order, id)
	pos := len(f.order) - 1
	if f.autoFinish {
		f.finishLocked(id, engine.Result{Status: engine.StatusCompleted, Proof: make([]byte, 192), Total: 1500 * time.Millisecond})
	}
	return id, pos, nil
}

// retryable: like the engine, a new request under the id of a job that
// ended FAILED or CANCELLED starts a new job.
func (j *fakeJob) retryable() bool {
	select {
	case <-j.done:
		return j.res.Status == engine.StatusFailed || j.res.Status == engine.StatusCancelled
	default:
		return false
	}
}

// finish ends a job with res (JobID is filled in).
func (f *fakeEngine) finish(id string, res engine.Result) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.finishLocked(id, res)
}

func (f *fakeEngine) finishLocked(id string, res engine.Result) {
	j := f.jobs[id]
	select {
	case <-j.done:
		return
	default:
	}
	res.JobID = id
	j.res = res
	close(j.done)
}

func (f *fakeEngine) Await(ctx context.Context, id string, timeout time.Duration) (engine.Result, error) {
	f.mu.Lock()
	j, ok := f.jobs[id]
	f.mu.Unlock()
	if !ok {
		return engine.Result{}, fmt.Errorf("await %q: %w", id, engine.ErrNotFound)
	}
	var tc <-chan time.Time
	if timeout > 0 {
		t := time.NewTimer(timeout)
		defer t.Stop()
		tc = t.C
	}
	select {
	case <-j.done:
		return j.res, nil
	case <-tc:
		return engine.Result{JobID: id, Status: engine.StatusTimeout}, nil
	case <-ctx.Done():
		return engine.Result{}, ctx.Err()
	}
}

func (f *fakeEngine) Prove(ctx context.Context, req engine.Request) (engine.Result, error) {
	id, _, err := f.Submit(ctx, req)
	if err != nil {
		return engine.Result{}, err
	}
	return f.Await(ctx, id, 0)
}

func (f *fakeEngine) Cancel(id string) (bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	j, ok := f.jobs[id]
	if !ok {
		return false, fmt.Errorf("cancel %q: %w", id, engine.ErrNotFound)
	}
	f.finishLocked(id, engine.Result{Status: engine.StatusCancelled, Error: "cancelled by request"})
	return j.running, nil
}

func (f *fakeEngine) Status() engine.Snapshot {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.snapshot
}

func (f *fakeEngine) Preload(ctx context.Context, id string) (bool, time.Duration, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, ok := f.srs[id]; !ok {
		return false, 0, fmt.Errorf("preload %q: %w", id, engine.ErrUnknownCircuit)
	}
	if f.loaded[id] {
		return true, 0, nil
	}
	f.loaded[id] = true
	return false, 1234 * time.Millisecond, nil
}

func (f *fakeEngine) Evict(id string) (bool, uint64, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	size, ok := f.srs[id]
	if !ok {
		return false, 0, fmt.Errorf("evict %q: %w", id, engine.ErrUnknownCircuit)
	}
	if !f.loaded[id] {
		return false, 0, nil
	}
	delete(f.loaded, id)
	return true, size, nil
}

func (f *fakeEngine) setAutoFinish(on bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.autoFinish = on
}

func (f *fakeEngine) setRunning(id string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.jobs[id].running = true
}

func (f *fakeEngine) request(id string) engine.Request {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.jobs[id].req
}

// attempts is how many jobs were started under id.
func (f *fakeEngine) attempts(id string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.tries[id]
}
