package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cuzk-project/cuzk/device/sim"
	"github.com/cuzk-project/cuzk/groth16"
	"github.com/cuzk-project/cuzk/memory"
	"github.com/cuzk-project/cuzk/timeline"
)

func TestAssembler(t *testing.T) {
	proof := func(b byte) []byte {
		p := make([]byte, groth16.ProofSize)
		p[0] = b
		return p
	}
	tests := []struct {
		name    string
		n       int
		inserts []int // partition indexes, in insertion order
		sizes   map[int]int
		wantErr int // index into inserts of the insert that must fail, -1 none
	}{
		{"in order", 3, []int{0, 1, 2}, nil, -1},
		{"out of order", 3, []int{2, 0, 1}, nil, -1},
		{"duplicate", 3, []int{1, 1}, nil, 1},
		{"out of range", 2, []int{2}, nil, 0},
		{"negative", 2, []int{-1}, nil, 0},
		{"short proof", 2, []int{0}, map[int]int{0: 191}, 0},
		{"long proof", 2, []int{1}, map[int]int{1: 193}, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a := NewAssembler(tc.n)
			for k, i := range tc.inserts {
				p := proof(byte(i))
				if n, ok := tc.sizes[i]; ok {
					p = make([]byte, n)
				}
				err := a.Insert(i, p)
				if k == tc.wantErr {
					if !errors.Is(err, ErrBadPartition) {
						t.Fatalf("insert %d: err = %v, want ErrBadPartition", i, err)
					}
					return
				}
				if err != nil {
					t.Fatalf("insert %d: %v", i, err)
				}
			}
			out, err := a.Assemble()
			if err != nil {
				t.Fatal(err)
			}
			if len(out) != tc.n*groth16.ProofSize {
				t.Fatalf("assembled %d bytes", len(out))
			}
			for i := 0; i < tc.n; i++ {
				if out[i*groth16.ProofSize] != byte(i) {
					t.Fatalf("partition %d out of place", i)
				}
			}
		})
	}
	if _, err := NewAssembler(2).Assemble(); err == nil {
		t.Fatal("an incomplete assembler assembled")
	}
}

func TestQueueOrderHasNoCollisions(t *testing.T) {
	q := newUnitQueue()
	j := &job{}
	keys := []unitKey{
		{PriorityNormal, 1, 0}, {PriorityNormal, 1, 1}, {PriorityNormal, 2, 0},
		{PriorityCritical, 3, 0}, {PriorityLow, 0, 0}, {PriorityHigh, 4, 2}, {PriorityHigh, 4, 1},
	}
	for _, k := range keys {
		q.push(&unit{job: j, key: k})
	}
	want := []unitKey{
		{PriorityCritical, 3, 0}, {PriorityHigh, 4, 1}, {PriorityHigh, 4, 2},
		{PriorityNormal, 1, 0}, {PriorityNormal, 1, 1}, {PriorityNormal, 2, 0}, {PriorityLow, 0, 0},
	}
	for _, w := range want {
		u, _ := q.pop(context.Background(), PriorityUnspecified)
		if u.key != w {
			t.Fatalf("popped %+v, want %+v", u.key, w)
		}
	}
	if q.len() != 0 {
		t.Fatal("units left over")
	}
}

func TestCriticalJobJumpsTheQueue(t *testing.T) {
	env := newTestEnv(t, sim.Config{Run: 50 * time.Millisecond}, func(c *Config) { c.SynthesisWorkers = 1 })
	var normal []string
	for i := 0; i < 5; i++ {
		tj := testJob{Tag: uint64(i + 1), Parts: 3}
		if i == 0 {
			tj.Gate = "first"
		}
		normal = append(normal, env.submit(t, fmt.Sprintf("normal-%d", i), KindPoRepSealCommit, PriorityUnspecified, tj))
		if i == 0 {
			// The single synthesis worker is now busy until the gate opens.
			waitFor(t, "the first NORMAL unit to synthesize", func() bool { return len(env.events(timeline.SynthStart)) == 1 })
		}
	}
	waitFor(t, "the NORMAL units to be queued", func() bool { return env.e.synthQ.len() == 2+4*3 })
	// WinningPoSt defaults to CRITICAL.
	crit := env.submit(t, "critical", KindWinningPoSt, PriorityUnspecified, testJob{Tag: 9, Parts: 3})
	// The critical job does not wait for the busy slot: it has its own.
	waitFor(t, "the critical job to finish", func() bool { return len(env.events(timeline.JobDone)) == 1 })
	if n := env.e.synthQ.len(); n != 2+4*3 {
		t.Fatalf("%d NORMAL units queued, want 14 (none may start before the critical job)", n)
	}
	close(env.planner.gate("first"))

	for _, id := range append([]string{crit}, normal...) {
		if r := env.await(t, id); r.Status != StatusCompleted {
			t.Fatalf("%s: %v %s", id, r.Status, r.Error)
		}
	}
	starts := env.events(timeline.SynthStart)
	var order []string
	for _, e := range starts[:4] {
		order = append(order, fmt.Sprintf("%s/%d", e.Job, e.Partition))
	}
	if want := "normal-0/0 critical/0 critical/1 critical/2"; strings.Join(order, " ") != want {
		t.Fatalf("synthesis order %v, want %s", order, want)
	}
	if first := env.events(timeline.JobDone)[0].Job; first != crit {
		for _, e := range timeline.SortByTime(env.rec.Events()) {
			t.Log(e)
		}
		t.Fatalf("first job done: %s, want %s", first, crit)
	}
}

func TestCancelQueuedJob(t *testing.T) {
	env := newTestEnv(t, sim.Config{}, func(c *Config) { c.SynthesisWorkers = 1 })
	a := env.submit(t, "a", KindPoRepSealCommit, 0, testJob{Tag: 1, Parts: 2, Gate: "a"})
	waitFor(t, "a synthesizing", func() bool { return len(env.events(timeline.SynthStart)) == 1 })
	b := env.submit(t, "b", KindPoRepSealCommit, 0, testJob{Tag: 2, Parts: 3})
	waitFor(t, "b queued", func() bool { return env.e.synthQ.len() == 1+3 })

	wasRunning, err := env.e.Cancel(b)
	if err != nil || wasRunning {
		t.Fatalf("Cancel(b) = %v, %v; want false, nil", wasRunning, err)
	}
	if n := env.e.synthQ.len(); n != 1 {
		t.Fatalf("%d units queued after cancel, want 1 (a's second)", n)
	}
	r, err := env.e.Await(context.Background(), b, time.Second)
	if err != nil || r.Status != StatusCancelled {
		t.Fatalf("b: %v %v", r.Status, err)
	}
	close(env.planner.gate("a"))
	if r := env.await(t, a); r.Status != StatusCompleted {
		t.Fatalf("a: %v %s", r.Status, r.Error)
	}
	for _, e := range env.events(timeline.SynthStart) {
		if e.Job == b {
			t.Fatal("a cancelled job was synthesized")
		}
	}
	if _, err := env.e.Cancel("nope"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Cancel(unknown) = %v", err)
	}
}

func TestCancelRunningJob(t *testing.T) {
	env := newTestEnv(t, sim.Config{Run: time.Second}, nil)
	id := env.submit(t, "x", KindPoRepSealCommit, 0, testJob{Tag: 1, Parts: 6})
	waitFor(t, "a unit to hold the device", func() bool { return len(env.events(timeline.LockHeld)) > 0 })

	t0 := time.Now()
	wasRunning, err := env.e.Cancel(id)
	if err != nil || !wasRunning {
		t.Fatalf("Cancel = %v, %v; want true, nil", wasRunning, err)
	}
	r := env.await(t, id)
	if r.Status != StatusCancelled || !strings.Contains(r.Error, ErrCancelled.Error()) {
		t.Fatalf("result %v %q", r.Status, r.Error)
	}
	if el := time.Since(t0); el > 500*time.Millisecond {
		t.Fatalf("await after cancel took %v: it waited for the running kernel", el)
	}
	// The running unit stops at its next boundary; nothing more runs.
	waitFor(t, "memory back to zero", func() bool { return env.budget.Used() == 0 })
	time.Sleep(100 * time.Millisecond)
	if n := env.dev.Runs(); n > 1 {
		t.Fatalf("%d units ran after cancel, want at most the one running", n)
	}
}

func TestAwaitTimeout(t *testing.T) {
	env := newTestEnv(t, sim.Config{}, nil)
	id := env.submit(t, "slow", KindPoRepSealCommit, 0, testJob{Tag: 1, Parts: 1, Gate: "g"})
	t0 := time.Now()
	r, err := env.e.Await(context.Background(), id, 30*time.Millisecond)
	if err != nil || r.Status != StatusTimeout || r.JobID != id {
		t.Fatalf("Await with timeout = %+v, %v", r, err)
	}
	if el := time.Since(t0); el < 30*time.Millisecond || el > 2*time.Second {
		t.Fatalf("timeout after %v", el)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel()
	if _, err := env.e.Await(ctx, id, 0); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Await with done ctx = %v", err)
	}
	close(env.planner.gate("g"))
	if r := env.await(t, id); r.Status != StatusCompleted || len(r.Proof) != groth16.ProofSize {
		t.Fatalf("after timeout the job did not complete: %v %s", r.Status, r.Error)
	}
	if _, err := env.e.Await(context.Background(), "unknown", 0); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Await(unknown) = %v", err)
	}
}

func TestFailureInjection(t *testing.T) {
	const victim = 1
	tests := []struct {
		name      string
		failSynth int
		failStep  sim.Step
		failPart  int
		synthW    int
		wantErr   string
		wantSynth int // victim syntheses that may start at most (0: unchecked)
	}{
		{name: "synthesis", failSynth: 1, synthW: 2, wantErr: "partition 1: synthesis"},
		{name: "synthesis skips the rest", failSynth: 0, synthW: 1, wantErr: "partition 0: synthesis", wantSynth: 1},
		{name: "prepare", failStep: sim.StepPrepare, failPart: 2, synthW: 2, wantErr: "partition 2: prepare"},
		{name: "run", failStep: sim.StepRun, failPart: 2, synthW: 2, wantErr: "partition 2: run"},
		{name: "finish", failStep: sim.StepFinish, failPart: 3, synthW: 2, wantErr: "partition 3: finish"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dcfg := sim.Config{Run: time.Millisecond, Fail: func(s sim.Step, a *groth16.Assignment) bool {
				return s == tc.failStep && isUnit(a, victim, tc.failPart)
			}}
			env := newTestEnv(t, dcfg, func(c *Config) { c.SynthesisWorkers = tc.synthW })
			fs := 0
			if tc.failStep == 0 {
				fs = tc.failSynth + 1
			}
			bad := env.submit(t, "victim", KindPoRepSealCommit, 0, testJob{Tag: victim, Parts: 4, FailSynth: fs, SynthMS: 1})
			var good []string
			for i := 0; i < 3; i++ {
				good = append(good, env.submit(t, fmt.Sprint("ok-", i), KindPoRepSealCommit, 0, testJob{Tag: uint64(10 + i), Parts: 3}))
			}
			r := env.await(t, bad)
			if r.Status != StatusFailed || !strings.Contains(r.Error, tc.wantErr) || len(r.Proof) != 0 {
				t.Fatalf("victim: %v %q, want FAILED with %q", r.Status, r.Error, tc.wantErr)
			}
			for _, id := range good {
				if r := env.await(t, id); r.Status != StatusCompleted {
					t.Fatalf("%s: %v %s", id, r.Status, r.Error)
				}
			}
			waitFor(t, "memory back to zero", func() bool { return env.budget.Used() == 0 })
			if done := env.count(timeline.JobDone, bad); done != 1 {
				t.Fatalf("victim ended %d times", done)
			}
			if s := env.e.Status(); s.ProofsFailed != 1 || s.ProofsCompleted != 3 {
				t.Fatalf("counters: %d failed, %d completed", s.ProofsFailed, s.ProofsCompleted)
			}
			if tc.wantSynth > 0 {
				if n := env.count(timeline.SynthStart, bad); n > tc.wantSynth {
					t.Fatalf("%d victim units synthesized after the failure, want ≤ %d", n, tc.wantSynth)
				}
			}
		})
	}
}

// TestFailedInvalid: a job that fails through its request's own fault,
// found past Submit (its unit's error wraps ErrInvalidRequest), says so
// in its result, so that a cluster does not try it elsewhere; any other
// failure does not.
func TestFailedInvalid(t *testing.T) {
	dcfg := sim.Config{Run: time.Millisecond, Fail: func(s sim.Step, a *groth16.Assignment) bool {
		return s == sim.StepRun && isUnit(a, 3, 0)
	}}
	env := newTestEnv(t, dcfg, nil)
	for _, tc := range []struct {
		id      string
		job     testJob
		invalid bool
		err     string
	}{
		{"bad-input", testJob{Tag: 1, Parts: 2, FailSynth: 2, BadInput: true}, true, "invalid request: injected: a path does not reach its root"},
		{"synthesis", testJob{Tag: 2, Parts: 2, FailSynth: 2}, false, "injected synthesis failure"},
		{"device", testJob{Tag: 3, Parts: 2}, false, "partition 0: run"},
	} {
		r := env.await(t, env.submit(t, tc.id, KindWindowPoStPartition, 0, tc.job))
		if r.Status != StatusFailed || r.Invalid != tc.invalid || !strings.Contains(r.Error, tc.err) {
			t.Errorf("%s: %v invalid=%v %q, want FAILED invalid=%v with %q", tc.id, r.Status, r.Invalid, r.Error, tc.invalid, tc.err)
		}
	}
	if r := env.await(t, env.submit(t, "fine", KindWindowPoStPartition, 0, testJob{Tag: 4, Parts: 2})); r.Status != StatusCompleted || r.Invalid {
		t.Errorf("fine: %v invalid=%v", r.Status, r.Invalid)
	}
}

func TestIdempotentRequestID(t *testing.T) {
	env := newTestEnv(t, sim.Config{}, nil)
	tj := testJob{Tag: 5, Parts: 2, Gate: "g"}
	id1 := env.submit(t, "req-1", KindPoRepSealCommit, 0, tj)
	id2 := env.submit(t, "req-1", KindPoRepSealCommit, 0, tj)
	if id1 != "req-1" || id2 != id1 {
		t.Fatalf("ids %q %q", id1, id2)
	}
	close(env.planner.gate("g"))
	r1 := env.await(t, id1)
	vanilla, _ := json.Marshal(tj) // the same request again (other content would be refused)
	r3, err := env.e.Prove(context.Background(), Request{RequestID: "req-1", Kind: KindPoRepSealCommit, VanillaProof: vanilla})
	if err != nil {
		t.Fatal(err)
	}
	if r1.Status != StatusCompleted || string(r1.Proof) != string(r3.Proof) {
		t.Fatalf("joined results differ: %v / %v", r1.Status, r3.Status)
	}
	if n := env.planner.calls.Load(); n != 1 {
		t.Fatalf("planned %d times, want 1", n)
	}
	if n := env.dev.Runs(); n != 2 {
		t.Fatalf("%d device runs, want 2", n)
	}
	// Without a request id every submit is a new job.
	a := env.submit(t, "", KindPoRepSealCommit, 0, testJob{Tag: 6, Parts: 1})
	b := env.submit(t, "", KindPoRepSealCommit, 0, testJob{Tag: 6, Parts: 1})
	if a == b || a == "" {
		t.Fatalf("generated ids %q %q", a, b)
	}
}

func TestResultsArePruned(t *testing.T) {
	env := newTestEnv(t, sim.Config{}, func(c *Config) { c.ResultTTL = 20 * time.Millisecond })
	id := env.submit(t, "p", KindPoRepSealCommit, 0, testJob{Tag: 1, Parts: 1})
	if r := env.await(t, id); r.Status != StatusCompleted {
		t.Fatal(r.Error)
	}
	waitFor(t, "the result to be pruned", func() bool {
		_, err := env.e.Await(context.Background(), id, time.Millisecond)
		return errors.Is(err, ErrNotFound)
	})
}

func TestInvalidRequests(t *testing.T) {
	env := newTestEnv(t, sim.Config{}, nil)
	tests := []struct {
		name string
		req  Request
	}{
		{"unknown kind", Request{Kind: 9, VanillaProof: []byte(`{"parts":1}`)}},
		{"unspecified kind", Request{VanillaProof: []byte(`{"parts":1}`)}},
		{"bad priority", Request{Kind: KindPoRepSealCommit, Priority: 7, VanillaProof: []byte(`{"parts":1}`)}},
		{"garbage vanilla proof", Request{Kind: KindPoRepSealCommit, VanillaProof: []byte("garbage")}},
		{"empty vanilla proof", Request{Kind: KindPoRepSealCommit}},
		{"no partitions", Request{Kind: KindPoRepSealCommit, VanillaProof: []byte(`{"parts":0}`)}},
		{"long request id", Request{RequestID: strings.Repeat("x", MaxRequestIDLen+1), Kind: KindPoRepSealCommit, VanillaProof: []byte(`{"parts":1}`)}},
		{"control character in request id", Request{RequestID: "a\nb", Kind: KindPoRepSealCommit, VanillaProof: []byte(`{"parts":1}`)}},
		{"invalid UTF-8 in request id", Request{RequestID: "a\xffb", Kind: KindPoRepSealCommit, VanillaProof: []byte(`{"parts":1}`)}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.req.RequestID == "" {
				tc.req.RequestID = tc.name
			}
			if _, _, err := env.e.Submit(context.Background(), tc.req); !errors.Is(err, ErrInvalidRequest) {
				t.Fatalf("err = %v, want ErrInvalidRequest", err)
			}
			if _, err := env.e.Await(context.Background(), tc.req.RequestID, time.Millisecond); !errors.Is(err, ErrNotFound) {
				t.Fatalf("a rejected request left a job: %v", err)
			}
		})
	}
	// The engine keeps serving.
	if r := env.await(t, env.submit(t, "after", KindPoRepSealCommit, 0, testJob{Tag: 1, Parts: 1})); r.Status != StatusCompleted {
		t.Fatal(r.Error)
	}
	env.e.Close()
	if _, _, err := env.e.Submit(context.Background(), Request{Kind: KindPoRepSealCommit}); !errors.Is(err, ErrClosed) {
		t.Fatalf("submit after close = %v", err)
	}
}

func TestUnknownCircuitFailsJob(t *testing.T) {
	env := newTestEnv(t, sim.Config{}, func(c *Config) { c.Params = MapParams{} })
	r := env.await(t, env.submit(t, "x", KindPoRepSealCommit, 0, testJob{Tag: 1, Parts: 1}))
	if r.Status != StatusFailed || !strings.Contains(r.Error, ErrUnknownCircuit.Error()) {
		t.Fatalf("%v %q", r.Status, r.Error)
	}
}

func TestReservationLargerThanBudgetIsRejected(t *testing.T) {
	env := newTestEnv(t, sim.Config{}, func(c *Config) { c.Budget = memory.New(testReserve - 1) })
	_, _, err := env.e.Submit(context.Background(), Request{Kind: KindPoRepSealCommit, VanillaProof: []byte(`{"tag":1,"parts":2}`)})
	// ErrNoMemory (ResourceExhausted) with the bytes, at submit.
	if !errors.Is(err, ErrNoMemory) || !strings.Contains(err.Error(), "memory budget") || !strings.Contains(err.Error(), "needs 100 bytes") {
		t.Fatalf("err = %v, want ErrNoMemory naming the bytes and the memory budget", err)
	}
}

// TestManyConcurrentJobs submits 200 small jobs from 200 goroutines under a
// budget that admits 4 units at a time: all complete, none is lost, the
// budget is never exceeded, and Close leaves no goroutine behind.
func TestManyConcurrentJobs(t *testing.T) {
	before := runtime.NumGoroutine()
	const jobs = 200
	budget := memory.New(4 * testReserve)
	var over sync.Once
	var overUsed uint64
	planner := &testPlanner{onSynth: func() {
		if u := budget.Used(); u > budget.Limit() {
			over.Do(func() { overUsed = u })
		}
	}}
	// Runs take 1 ms so that one device's workers cannot drain the queue
	// before the other's are scheduled (with instant Runs, a loaded machine
	// sometimes left a device with no work at all).
	devs := []*sim.Device{sim.New(sim.Config{Run: time.Millisecond}), sim.New(sim.Config{Run: time.Millisecond})}
	e, err := New(Config{
		Devices:          []groth16.Device{devs[0], devs[1]},
		SynthesisWorkers: 8,
		Budget:           budget,
		Planner:          planner,
		Params:           testParams(),
		Recorder:         timeline.NewRecorder(1 << 14),
		Rand:             zeroReader{},
	})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	results := make([]Result, jobs)
	for i := 0; i < jobs; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			req := Request{
				RequestID:    fmt.Sprint("job-", i),
				Kind:         []ProofKind{KindPoRepSealCommit, KindWindowPoStPartition, KindWinningPoSt, KindSnapDealsUpdate}[i%4],
				VanillaProof: []byte(fmt.Sprintf(`{"tag":%d,"parts":%d}`, i+1, 1+i%3)),
			}
			r, err := e.Prove(context.Background(), req)
			if err != nil {
				t.Error(err)
			}
			results[i] = r
		}()
	}
	wg.Wait()
	for i, r := range results {
		if r.Status != StatusCompleted || len(r.Proof) != (1+i%3)*groth16.ProofSize {
			t.Fatalf("job %d: %v %q (%d bytes)", i, r.Status, r.Error, len(r.Proof))
		}
	}
	if s := e.Status(); s.ProofsCompleted != jobs {
		t.Fatalf("%d completed, want %d", s.ProofsCompleted, jobs)
	}
	var runs int64
	for i, d := range devs {
		if d.Runs() == 0 || d.MaxConcurrentRuns() != 1 {
			t.Fatalf("device %d: %d runs, %d at once; want > 0 and 1", i, d.Runs(), d.MaxConcurrentRuns())
		}
		runs += d.Runs()
	}
	var want int64
	for i := 0; i < jobs; i++ {
		want += int64(1 + i%3)
	}
	if runs != want {
		t.Fatalf("%d device runs, want one per partition: %d", runs, want)
	}
	if overUsed != 0 || budget.Peak() > budget.Limit() {
		t.Fatalf("budget exceeded: used %d, peak %d, limit %d", overUsed, budget.Peak(), budget.Limit())
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	if budget.Used() != 0 {
		t.Fatalf("%d bytes still reserved after Close", budget.Used())
	}
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > before {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<16)
			t.Fatalf("%d goroutines before, %d after Close:\n%s", before, runtime.NumGoroutine(), buf[:runtime.Stack(buf, true)])
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestCloseCancelsEverything closes an engine with work queued, synthesizing
// and on the device.
func TestCloseCancelsEverything(t *testing.T) {
	before := runtime.NumGoroutine()
	env := newTestEnv(t, sim.Config{Run: 50 * time.Millisecond}, nil)
	ids := []string{
		env.submit(t, "a", KindPoRepSealCommit, 0, testJob{Tag: 1, Parts: 4}),
		env.submit(t, "b", KindPoRepSealCommit, 0, testJob{Tag: 2, Parts: 4, Gate: "never"}),
	}
	waitFor(t, "a kernel", func() bool { return len(env.events(timeline.LockHeld)) > 0 })
	env.e.Close()
	for _, id := range ids {
		r, err := env.e.Await(context.Background(), id, time.Second)
		if err != nil || r.Status != StatusCancelled || !strings.Contains(r.Error, ErrClosed.Error()) {
			t.Fatalf("%s after Close: %v %v %q", id, err, r.Status, r.Error)
		}
	}
	if env.budget.Used() != 0 {
		t.Fatalf("%d bytes still reserved after Close", env.budget.Used())
	}
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > before {
		if time.Now().After(deadline) {
			t.Fatalf("%d goroutines before, %d after Close", before, runtime.NumGoroutine())
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestStatus(t *testing.T) {
	env := newTestEnv(t, sim.Config{Name: "sim0"}, func(c *Config) { c.SynthesisWorkers = 1 })
	env.submit(t, "a", KindPoRepSealCommit, 0, testJob{Tag: 1, Parts: 2, Gate: "g"})
	waitFor(t, "a synthesizing", func() bool { return len(env.events(timeline.SynthStart)) == 1 })
	env.submit(t, "b", KindWindowPoStPartition, 0, testJob{Tag: 2, Parts: 1})
	waitFor(t, "b queued", func() bool { return env.e.synthQ.len() == 2 })
	s := env.e.Status()
	if len(s.Devices) != 1 || s.Devices[0].Name != "sim0" {
		t.Fatalf("devices %+v", s.Devices)
	}
	got := fmt.Sprint(s.Queues)
	if want := "[{window-post 1 0} {porep-c2 0 1}]"; got != want {
		t.Fatalf("queues %s, want %s", got, want)
	}
	if s.MemoryUsed != testReserve || s.MemoryLimit != 10*testReserve {
		t.Fatalf("memory %d / %d", s.MemoryUsed, s.MemoryLimit)
	}
	close(env.planner.gate("g"))
}

func TestDeviceLockHandsOverByPriority(t *testing.T) {
	var l deviceLock
	l.lock(unitKey{PriorityNormal, 1, 0})
	got := make(chan unitKey, 3)
	var wg sync.WaitGroup
	for _, k := range []unitKey{{PriorityNormal, 2, 0}, {PriorityLow, 0, 0}, {PriorityCritical, 3, 1}} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			l.lock(k)
			got <- k
			l.unlock()
		}()
	}
	waitFor(t, "three waiters", func() bool {
		l.mu.Lock()
		defer l.mu.Unlock()
		return len(l.waiters) == 3
	})
	l.unlock()
	wg.Wait()
	close(got)
	var order []unitKey
	for k := range got {
		order = append(order, k)
	}
	want := []unitKey{{PriorityCritical, 3, 1}, {PriorityNormal, 2, 0}, {PriorityLow, 0, 0}}
	if fmt.Sprint(order) != fmt.Sprint(want) {
		t.Fatalf("lock order %v, want %v", order, want)
	}
}

// TestHigherPriorityPreemptsMemoryWait: while the dispatcher waits for
// memory on behalf of a NORMAL unit, a CRITICAL unit that arrives takes the
// memory first.
func TestHigherPriorityPreemptsMemoryWait(t *testing.T) {
	env := newTestEnv(t, sim.Config{}, func(c *Config) {
		c.Budget = memory.New(testReserve) // one unit at a time
		c.SynthesisWorkers = 2
	})
	a := env.submit(t, "a", KindPoRepSealCommit, 0, testJob{Tag: 1, Parts: 2, Gate: "a"})
	waitFor(t, "a/0 synthesizing and a/1 waiting for memory", func() bool {
		return len(env.events(timeline.SynthStart)) == 1 && env.budget.Waiting() == 1
	})
	c := env.submit(t, "c", KindWinningPoSt, 0, testJob{Tag: 2, Parts: 1})
	waitFor(t, "the wait to be re-aimed at c", func() bool { return env.e.synthQ.len() == 1 && env.budget.Waiting() == 1 })
	close(env.planner.gate("a"))
	for _, id := range []string{a, c} {
		if r := env.await(t, id); r.Status != StatusCompleted {
			t.Fatalf("%s: %v %s", id, r.Status, r.Error)
		}
	}
	var order []string
	for _, e := range env.events(timeline.SynthStart) {
		order = append(order, fmt.Sprintf("%s/%d", e.Job, e.Partition))
	}
	if want := "a/0 c/0 a/1"; strings.Join(order, " ") != want {
		t.Fatalf("synthesis order %v, want %s", order, want)
	}
}

// TestCriticalHasAReservedSynthesisSlot: with every synthesis slot busy on
// a long NORMAL synthesis, a CRITICAL job still synthesizes and completes.
func TestCriticalHasAReservedSynthesisSlot(t *testing.T) {
	env := newTestEnv(t, sim.Config{}, func(c *Config) { c.SynthesisWorkers = 1 })
	n := env.submit(t, "normal", KindPoRepSealCommit, 0, testJob{Tag: 1, Parts: 2, Gate: "n"})
	waitFor(t, "the NORMAL synthesis to hold the slot", func() bool { return len(env.events(timeline.SynthStart)) == 1 })
	h := env.submit(t, "high", KindWindowPoStPartition, 0, testJob{Tag: 2, Parts: 1})
	c := env.submit(t, "crit", KindWinningPoSt, 0, testJob{Tag: 3, Parts: 1})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if r, err := env.e.Await(ctx, c, 0); err != nil || r.Status != StatusCompleted {
		t.Fatalf("critical job: %v %v %s", err, r.Status, r.Error)
	}
	// The HIGH job may not use the reserved slot.
	if r, _ := env.e.Await(context.Background(), h, 50*time.Millisecond); r.Status != StatusTimeout {
		t.Fatalf("HIGH job finished (%v) while the only ordinary slot was busy", r.Status)
	}
	close(env.planner.gate("n"))
	for _, id := range []string{n, h} {
		if r := env.await(t, id); r.Status != StatusCompleted {
			t.Fatalf("%s: %v %s", id, r.Status, r.Error)
		}
	}
}
