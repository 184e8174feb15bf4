package cluster

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cuzk-project/cuzk/cluster/pgtest"
	"github.com/cuzk-project/cuzk/engine"
)

// fakeEngine proves after a delay with random bytes (as Groth16 proofs
// are randomized), or fails when fail says so.
type fakeEngine struct {
	delay time.Duration
	fail  func(req engine.Request) string

	mu    sync.Mutex
	jobs  map[string]*fakeJob
	order []engine.Request // as submitted
}

type fakeJob struct {
	done   chan struct{}
	once   sync.Once
	result engine.Result
}

func newFake(delay time.Duration) *fakeEngine {
	return &fakeEngine{delay: delay, jobs: map[string]*fakeJob{}}
}

func (f *fakeEngine) Submit(ctx context.Context, r engine.Request) (string, int, error) {
	if r.Kind == engine.KindUnspecified {
		return "", 0, fmt.Errorf("%w: no kind", engine.ErrInvalidRequest)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if j, ok := f.jobs[r.RequestID]; ok {
		select {
		case <-j.done:
			if j.result.Status == engine.StatusCompleted {
				return r.RequestID, 0, nil
			}
		default:
			return r.RequestID, 0, nil
		}
	}
	j := &fakeJob{done: make(chan struct{})}
	f.jobs[r.RequestID] = j
	f.order = append(f.order, r)
	go func() {
		time.Sleep(f.delay)
		res := engine.Result{JobID: r.RequestID, Status: engine.StatusCompleted, Proof: make([]byte, 192), Total: f.delay}
		_, _ = rand.Read(res.Proof)
		f.mu.Lock()
		fail := f.fail
		f.mu.Unlock()
		if fail != nil {
			if msg := fail(r); msg != "" {
				// "invalid request: …" is a failure of the request's own
				// fault, as an engine reports one found past Submit.
				res = engine.Result{JobID: r.RequestID, Status: engine.StatusFailed, Error: msg,
					Invalid: strings.HasPrefix(msg, "invalid request")}
			}
		}
		j.end(res)
	}()
	return r.RequestID, 0, nil
}

func (f *fakeEngine) setFail(fail func(engine.Request) string) {
	f.mu.Lock()
	f.fail = fail
	f.mu.Unlock()
}

func (j *fakeJob) end(r engine.Result) {
	j.once.Do(func() { j.result = r; close(j.done) })
}

func (f *fakeEngine) Await(ctx context.Context, id string, timeout time.Duration) (engine.Result, error) {
	f.mu.Lock()
	j, ok := f.jobs[id]
	f.mu.Unlock()
	if !ok {
		return engine.Result{}, engine.ErrNotFound
	}
	select {
	case <-j.done:
		return j.result, nil
	case <-ctx.Done():
		return engine.Result{}, ctx.Err()
	}
}

func (f *fakeEngine) Cancel(id string) (bool, error) {
	f.mu.Lock()
	j, ok := f.jobs[id]
	f.mu.Unlock()
	if !ok {
		return false, engine.ErrNotFound
	}
	j.end(engine.Result{JobID: id, Status: engine.StatusCancelled, Error: "cancelled"})
	return true, nil
}

func (f *fakeEngine) Status() engine.Snapshot { return engine.Snapshot{} }
func (f *fakeEngine) Preload(context.Context, string) (bool, time.Duration, error) {
	return false, 0, nil
}
func (f *fakeEngine) Evict(string) (bool, uint64, error) { return false, 0, nil }

func (f *fakeEngine) submitted() []engine.Request {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]engine.Request(nil), f.order...)
}

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

// startCluster starts a daemon's cluster part on url; local nil makes a
// frontend.
func startCluster(t *testing.T, url string, local Engine, tweak func(*Options)) *Cluster {
	t.Helper()
	o := Options{
		DatabaseURL: url, Migrate: true, Local: local, Capacity: 2, PollInterval: 200 * time.Millisecond,
		Timeouts: map[engine.ProofKind]time.Duration{engine.KindWinningPoSt: 5 * time.Second},
		Log:      quiet,
	}
	if tweak != nil {
		tweak(&o)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c, err := New(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close(5 * time.Second) })
	return c
}

func postReq(id string, prio engine.Priority, content string) engine.Request {
	return engine.Request{RequestID: id, Kind: engine.KindWindowPoStPartition, Priority: prio,
		VanillaProofs: [][]byte{[]byte(content)}, Randomness: make([]byte, 32)}
}

func TestCluster(t *testing.T) {
	pg := pgtest.Start(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	t.Run("frontend and worker", func(t *testing.T) {
		url := pg.NewDB(t)
		front := startCluster(t, url, nil, nil)
		other := startCluster(t, url, nil, nil)
		w := newFake(50 * time.Millisecond)
		startCluster(t, url, w, nil)

		res, err := front.Prove(ctx, postReq("a", 0, "x"))
		if err != nil || res.Status != engine.StatusCompleted || len(res.Proof) != 192 {
			t.Fatalf("prove: %+v %v", res, err)
		}
		// The same id at another frontend: the same job and proof.
		again, err := other.Prove(ctx, postReq("a", engine.PriorityLow, "x"))
		if err != nil || string(again.Proof) != string(res.Proof) {
			t.Fatalf("second prove: %+v %v", again, err)
		}
		if n := len(w.submitted()); n != 1 {
			t.Errorf("worker proved %d jobs, want 1", n)
		}
		// Other content under a used id is refused.
		if _, _, err := other.Submit(ctx, postReq("a", 0, "y")); !errors.Is(err, engine.ErrInvalidRequest) {
			t.Errorf("other content under a used id: %v", err)
		}
		// Concurrent submits of one id make one job.
		var wg sync.WaitGroup
		errs := make(chan error, 8)
		for i := range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				c := front
				if i%2 == 1 {
					c = other
				}
				_, _, err := c.Submit(ctx, postReq("b", 0, "z"))
				errs <- err
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			if err != nil {
				t.Errorf("concurrent submit: %v", err)
			}
		}
		var jobs int
		if err := front.Pool().QueryRow(ctx, "SELECT count(*) FROM river_job WHERE args->>'request_id' = 'b'").Scan(&jobs); err != nil || jobs != 1 {
			t.Errorf("%d River jobs for one request id (%v)", jobs, err)
		}
		if res, err := other.Await(ctx, "b", 0); err != nil || res.Status != engine.StatusCompleted {
			t.Errorf("await b: %+v %v", res, err)
		}
		if _, err := front.Await(ctx, "nope", 0); !errors.Is(err, engine.ErrNotFound) {
			t.Errorf("await of an unknown id: %v", err)
		}
		// A payload is deleted when its job ends.
		var payloads int
		if err := front.Pool().QueryRow(ctx, "SELECT count(*) FROM cuzk_payload").Scan(&payloads); err != nil || payloads != 0 {
			t.Errorf("%d payloads left (%v)", payloads, err)
		}
		st := front.Status()
		if st.Cluster == nil || st.Cluster.Error != "" || len(st.Cluster.Workers) != 3 {
			t.Errorf("status: %+v", st.Cluster)
		}
	})

	t.Run("priorities, cancel, timeout", func(t *testing.T) {
		url := pg.NewDB(t)
		front := startCluster(t, url, nil, nil)
		prios := []engine.Priority{engine.PriorityLow, engine.PriorityNormal, engine.PriorityHigh, engine.PriorityCritical}
		for i := range 12 {
			if _, _, err := front.Submit(ctx, postReq(fmt.Sprintf("p%d", i), prios[i%4], fmt.Sprint(i))); err != nil {
				t.Fatal(err)
			}
		}
		if _, _, err := front.Submit(ctx, postReq("gone", engine.PriorityCritical, "c")); err != nil {
			t.Fatal(err)
		}
		if res, _ := front.Await(ctx, "gone", 10*time.Millisecond); res.Status != engine.StatusTimeout {
			t.Errorf("await with a timeout: %+v", res)
		}
		if was, err := front.Cancel("gone"); err != nil || was {
			t.Errorf("cancel of a queued job: %v %v", was, err)
		}
		if res, err := front.Await(ctx, "gone", 0); err != nil || res.Status != engine.StatusCancelled {
			t.Errorf("await after cancel: %+v %v", res, err)
		}
		st := front.Status()
		if len(st.Cluster.Pending) != 4 || st.Cluster.Pending[0].Priority != engine.PriorityCritical || st.Cluster.Pending[0].Count != 3 {
			t.Errorf("pending by priority: %+v", st.Cluster.Pending)
		}
		w := newFake(10 * time.Millisecond)
		startCluster(t, url, w, func(o *Options) { o.Capacity = 1 })
		for i := range 12 {
			if res, err := front.Await(ctx, fmt.Sprintf("p%d", i), 0); err != nil || res.Status != engine.StatusCompleted {
				t.Fatalf("p%d: %+v %v", i, res, err)
			}
		}
		got := w.submitted()
		for i := 1; i < len(got); i++ {
			if got[i].Priority > got[i-1].Priority {
				t.Errorf("started %s (%v) after %s (%v)", got[i].RequestID, got[i].Priority, got[i-1].RequestID, got[i-1].Priority)
			}
		}
	})

	t.Run("failures", func(t *testing.T) {
		url := pg.NewDB(t)
		front := startCluster(t, url, nil, func(o *Options) { o.MaxAttempts = 2 }) // the inserting daemon's
		w := newFake(time.Millisecond)
		var mu sync.Mutex
		tries := map[string]int{}
		w.setFail(func(r engine.Request) string {
			mu.Lock()
			defer mu.Unlock()
			tries[r.RequestID]++
			if r.RequestID == "flaky" && tries[r.RequestID] == 1 {
				return "transient"
			}
			if r.RequestID == "bad" {
				return "always broken"
			}
			if r.RequestID == "invalid" {
				return "invalid request: a path does not reach its root"
			}
			return ""
		})
		startCluster(t, url, w, nil)
		res, err := front.Prove(ctx, postReq("flaky", 0, "f"))
		if err != nil || res.Status != engine.StatusCompleted {
			t.Errorf("flaky: %+v %v", res, err)
		}
		res, err = front.Prove(ctx, postReq("bad", 0, "b"))
		if err != nil || res.Status != engine.StatusFailed || res.Error != "always broken" {
			t.Errorf("bad: %+v %v", res, err)
		}
		// A failure of the request's own fault is not tried elsewhere.
		res, err = front.Prove(ctx, postReq("invalid", 0, "i"))
		if err != nil || res.Status != engine.StatusFailed || res.Error != "invalid request: a path does not reach its root" {
			t.Errorf("invalid: %+v %v", res, err)
		}
		mu.Lock()
		if tries["bad"] != 2 {
			t.Errorf("bad tried %d times, want 2", tries["bad"])
		}
		if tries["invalid"] != 1 {
			t.Errorf("invalid tried %d times, want 1", tries["invalid"])
		}
		mu.Unlock()
		// Curio retries a failed request under its id: a new job.
		w.setFail(nil)
		res, err = front.Prove(ctx, postReq("bad", 0, "b"))
		if err != nil || res.Status != engine.StatusCompleted {
			t.Errorf("bad retried: %+v %v", res, err)
		}
	})

	t.Run("cancel running", func(t *testing.T) {
		url := pg.NewDB(t)
		front := startCluster(t, url, nil, nil)
		w := newFake(time.Minute)
		worker := startCluster(t, url, w, nil)
		if _, _, err := front.Submit(ctx, postReq("long", 0, "l")); err != nil {
			t.Fatal(err)
		}
		for len(w.submitted()) == 0 {
			time.Sleep(10 * time.Millisecond)
		}
		if st := front.Status(); len(st.Queues) != 1 || st.Queues[0].InProgress != 1 {
			t.Errorf("frontend's queues: %+v", st.Queues)
		}
		if was, err := front.Cancel("long"); err != nil || !was {
			t.Errorf("cancel of a running job: %v %v", was, err)
		}
		if res, err := worker.Await(ctx, "long", 0); err != nil || res.Status != engine.StatusCancelled {
			t.Errorf("await after cancel: %+v %v", res, err)
		}
		// The worker's local job ends through River's remote cancellation.
		w.mu.Lock()
		j := w.jobs["long"]
		w.mu.Unlock()
		select {
		case <-j.done:
		case <-time.After(20 * time.Second):
			t.Error("the worker's local job still runs after Cancel")
		}
	})

	t.Run("shutdown hands jobs back", func(t *testing.T) {
		url := pg.NewDB(t)
		front := startCluster(t, url, nil, nil)
		w1 := newFake(time.Minute)
		first := startCluster(t, url, w1, nil)
		if _, _, err := front.Submit(ctx, postReq("handoff", 0, "h")); err != nil {
			t.Fatal(err)
		}
		for len(w1.submitted()) == 0 {
			time.Sleep(10 * time.Millisecond)
		}
		if err := first.Close(100 * time.Millisecond); err != nil {
			t.Fatalf("close: %v", err)
		}
		w2 := newFake(time.Millisecond)
		startCluster(t, url, w2, nil)
		if res, err := front.Await(ctx, "handoff", 0); err != nil || res.Status != engine.StatusCompleted {
			t.Fatalf("after the first worker stopped: %+v %v", res, err)
		}
		var attempt int
		if err := front.Pool().QueryRow(ctx, "SELECT attempt FROM river_job WHERE args->>'request_id' = 'handoff'").Scan(&attempt); err != nil || attempt != 1 {
			t.Errorf("attempt %d after a hand-back (%v), want 1: a shutdown is not the job's failure", attempt, err)
		}
	})

	t.Run("routes and queues", func(t *testing.T) {
		url := pg.NewDB(t)
		route := func(o *Options) { o.Routes = map[engine.ProofKind]string{engine.KindPoRepSealCommit: "porep"} }
		front := startCluster(t, url, nil, route)
		general, porep := newFake(time.Millisecond), newFake(time.Millisecond)
		startCluster(t, url, general, route)
		startCluster(t, url, porep, func(o *Options) { route(o); o.Queues = map[string]int{"cuzk": 0, "porep": 1} })
		pr := engine.Request{RequestID: "seal", Kind: engine.KindPoRepSealCommit, VanillaProof: []byte("c1")}
		for _, r := range []engine.Request{pr, postReq("post", 0, "p")} {
			if res, err := front.Prove(ctx, r); err != nil || res.Status != engine.StatusCompleted {
				t.Fatalf("%s: %+v %v", r.RequestID, res, err)
			}
		}
		if g, p := general.submitted(), porep.submitted(); len(g) != 1 || g[0].RequestID != "post" || len(p) != 1 || p[0].RequestID != "seal" {
			t.Errorf("general queue's worker proved %v, porep queue's %v", g, p)
		}
		st := front.Status()
		total := 0
		for _, j := range st.Cluster.Jobs { // River marks a job completed just after its result is out
			total += j.Count
		}
		if strings.Join(st.Cluster.Queues, ",") != "cuzk,porep" || total != 2 {
			t.Errorf("status: %+v", st.Cluster)
		}
	})

	t.Run("silent worker", func(t *testing.T) {
		url := pg.NewDB(t)
		front := startCluster(t, url, nil, nil)
		stuck := newFake(time.Hour)
		// Its only heartbeat is the one at Start: to the others it dies.
		silent := startCluster(t, url, stuck, func(o *Options) { o.Heartbeat = time.Hour })
		if _, _, err := front.Submit(ctx, postReq("orphan", 0, "o")); err != nil {
			t.Fatal(err)
		}
		for len(stuck.submitted()) == 0 {
			time.Sleep(10 * time.Millisecond)
		}
		w := newFake(time.Millisecond)
		alive := startCluster(t, url, w, func(o *Options) { o.Heartbeat, o.DeadAfter = 100*time.Millisecond, time.Second })
		res, err := front.Await(ctx, "orphan", 0)
		if err != nil || res.Status != engine.StatusCompleted {
			t.Fatalf("orphan: %+v %v", res, err)
		}
		var worker string
		if err := front.Pool().QueryRow(ctx, "SELECT worker FROM cuzk_request WHERE request_id = 'orphan'").Scan(&worker); err != nil || worker != alive.ID() {
			t.Errorf("proved by %q (%v), want %s (the silent one is %s)", worker, err, alive.ID(), silent.ID())
		}
		silent.Close(10 * time.Millisecond)
	})

	t.Run("bad payload, local kinds", func(t *testing.T) {
		url := pg.NewDB(t)
		front := startCluster(t, url, nil, nil)
		if _, _, err := front.Submit(ctx, postReq("corrupt", 0, "c")); err != nil {
			t.Fatal(err)
		}
		if _, err := front.Pool().Exec(ctx, `UPDATE cuzk_payload SET data = data || '\x00'::bytea`); err != nil {
			t.Fatal(err)
		}
		w := newFake(time.Millisecond)
		worker := startCluster(t, url, w, func(o *Options) { o.LocalKinds = []engine.ProofKind{engine.KindWinningPoSt} })
		res, err := front.Await(ctx, "corrupt", 0)
		if err != nil || res.Status != engine.StatusFailed || !strings.Contains(res.Error, "sha256") {
			t.Errorf("corrupt payload: %+v %v", res, err)
		}
		if len(w.submitted()) != 0 {
			t.Error("a corrupt payload reached the engine")
		}
		// A local kind on a daemon with a worker never enters the queue.
		win := engine.Request{RequestID: "win", Kind: engine.KindWinningPoSt, VanillaProofs: [][]byte{[]byte("w")}}
		if res, err := worker.Prove(ctx, win); err != nil || res.Status != engine.StatusCompleted {
			t.Fatalf("local winning-post: %+v %v", res, err)
		}
		var n int
		if err := front.Pool().QueryRow(ctx, "SELECT count(*) FROM cuzk_request WHERE request_id = 'win'").Scan(&n); err != nil || n != 0 {
			t.Errorf("local kind queued (%d rows, %v)", n, err)
		}
		// A frontend queues it.
		win.RequestID = "win2"
		if res, err := front.Prove(ctx, win); err != nil || res.Status != engine.StatusCompleted {
			t.Errorf("queued winning-post: %+v %v", res, err)
		}
	})
}
