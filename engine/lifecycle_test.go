package engine

// Tests of job lifecycles at their edges: cancellation at every stage,
// duplicate submissions, panics, Close, Await on finished jobs, memory that
// cannot be had.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cuzk-project/cuzk/device/sim"
	"github.com/cuzk-project/cuzk/groth16"
	"github.com/cuzk-project/cuzk/memory"
	"github.com/cuzk-project/cuzk/timeline"
)

// teeFunc is an io.Writer calling f with every timeline line: a hook that
// runs on the recording goroutine, at the exact point of the event.
type teeFunc func(line []byte)

func (f teeFunc) Write(b []byte) (int, error) { f(b); return len(b), nil }

// TestCancelAsUnitEntersDeviceQueue cancels a job at the moment its
// synthesized unit is about to enter the device queue (DEV_QUEUE). Once the
// job has ended, no unit of it may be left queued, holding its memory until
// a busy device worker gets round to it.
func TestCancelAsUnitEntersDeviceQueue(t *testing.T) {
	env := newTestEnv(t, sim.Config{Run: 5 * time.Second}, func(c *Config) { c.WorkersPerDevice = 1 })
	env.submit(t, "blocker", KindPoRepSealCommit, 0, testJob{Tag: 1, Parts: 1})
	waitFor(t, "the blocker on the device", func() bool { return len(env.events(timeline.LockHeld)) == 1 })

	var once sync.Once
	env.rec.Tee(teeFunc(func(line []byte) {
		if !bytes.Contains(line, []byte("DEV_QUEUE")) || !bytes.Contains(line, []byte("victim")) {
			return
		}
		once.Do(func() {
			env.e.mu.Lock()
			j := env.e.jobs["victim"]
			env.e.mu.Unlock()
			go env.e.Cancel("victim")
			<-j.done
		})
	}))
	defer env.rec.Tee(nil)
	victim := env.submit(t, "victim", KindPoRepSealCommit, 0, testJob{Tag: 2, Parts: 1})
	if r := env.await(t, victim); r.Status != StatusCancelled {
		t.Fatalf("victim: %v %s", r.Status, r.Error)
	}
	waitFor(t, "the synthesis slots to be free", func() bool { return len(env.e.slots) == cap(env.e.slots) })
	if n := env.e.devQ.len(); n != 0 {
		t.Fatalf("%d units of an ended job left in the device queue", n)
	}
	if u := env.budget.Used(); u != testReserve {
		t.Fatalf("budget holds %d bytes with only the blocker's unit (%d) live", u, testReserve)
	}
}

// TestDuplicateJoinsAFailingPlan: a second Submit with the request id of a
// job still being planned must not report success when that planning then
// fails (the id would lead nowhere: Await says NotFound). It gets the
// planner's error, like the first.
func TestDuplicateJoinsAFailingPlan(t *testing.T) {
	env := newTestEnv(t, sim.Config{}, nil)
	b, _ := json.Marshal(testJob{Parts: 1, PlanGate: "plan", FailPlan: true})
	req := Request{RequestID: "dup", Kind: KindPoRepSealCommit, VanillaProof: b}
	errs := make(chan error, 2)
	submit := func() {
		_, _, err := env.e.Submit(context.Background(), req)
		errs <- err
	}
	go submit()
	waitFor(t, "the first submit to be planning", func() bool { return env.planner.calls.Load() == 1 })
	go submit()
	time.Sleep(20 * time.Millisecond) // let the duplicate reach the job
	close(env.planner.gate("plan"))
	for i := 0; i < 2; i++ {
		if err := <-errs; !errors.Is(err, ErrInvalidRequest) {
			t.Fatalf("submit %d: err = %v, want the planner's ErrInvalidRequest", i, err)
		}
	}
	if n := env.planner.calls.Load(); n != 1 {
		t.Fatalf("planned %d times, want 1", n)
	}
}

// blockingParams is a ParamsSource whose Acquire waits for its context.
type blockingParams struct{ called chan struct{} }

func (p blockingParams) Acquire(ctx context.Context, id string) (*groth16.Params, func(), error) {
	close(p.called)
	<-ctx.Done()
	return nil, nil, ctx.Err()
}

// TestCancelAtEachStage cancels a job from inside each stage of one of its
// units: the job ends cancelled once, another job is unaffected, and the
// budget comes back to zero.
func TestCancelAtEachStage(t *testing.T) {
	for _, step := range []sim.Step{sim.StepPrepare, sim.StepRun, sim.StepFinish} {
		t.Run(step.String(), func(t *testing.T) {
			var env *testEnv
			var once sync.Once
			dcfg := sim.Config{Fail: func(s sim.Step, a *groth16.Assignment) bool {
				if s == step && isUnit(a, 1, 1) {
					once.Do(func() { env.e.Cancel("victim") })
				}
				return false
			}}
			env = newTestEnv(t, dcfg, nil)
			victim := env.submit(t, "victim", KindPoRepSealCommit, 0, testJob{Tag: 1, Parts: 4})
			other := env.submit(t, "other", KindPoRepSealCommit, 0, testJob{Tag: 2, Parts: 3})
			if r := env.await(t, victim); r.Status != StatusCancelled {
				t.Fatalf("victim: %v %s", r.Status, r.Error)
			}
			if r := env.await(t, other); r.Status != StatusCompleted {
				t.Fatalf("other: %v %s", r.Status, r.Error)
			}
			waitFor(t, "memory back to zero", func() bool { return env.budget.Used() == 0 })
			if n := env.count(timeline.JobDone, victim); n != 1 {
				t.Fatalf("victim ended %d times", n)
			}
		})
	}
	t.Run("acquire", func(t *testing.T) {
		p := blockingParams{called: make(chan struct{})}
		env := newTestEnv(t, sim.Config{}, func(c *Config) { c.Params = p })
		id := env.submit(t, "victim", KindPoRepSealCommit, 0, testJob{Tag: 1, Parts: 4})
		<-p.called
		if _, err := env.e.Cancel(id); err != nil {
			t.Fatal(err)
		}
		if r := env.await(t, id); r.Status != StatusCancelled {
			t.Fatalf("victim: %v %s", r.Status, r.Error)
		}
		if env.budget.Used() != 0 {
			t.Fatalf("%d bytes reserved", env.budget.Used())
		}
		// Nothing of the request stays with the result: the plan's
		// closures hold the vanilla proof.
		env.e.mu.Lock()
		j := env.e.jobs[id]
		env.e.mu.Unlock()
		waitFor(t, "the plan to be dropped", func() bool {
			j.mu.Lock()
			defer j.mu.Unlock()
			return j.plan == nil
		})
	})
	t.Run("synthesis", func(t *testing.T) {
		env := newTestEnv(t, sim.Config{}, nil)
		id := env.submit(t, "victim", KindPoRepSealCommit, 0, testJob{Tag: 1, Parts: 4, Gate: "never"})
		waitFor(t, "synthesis", func() bool { return len(env.events(timeline.SynthStart)) > 0 })
		if _, err := env.e.Cancel(id); err != nil {
			t.Fatal(err)
		}
		if r := env.await(t, id); r.Status != StatusCancelled {
			t.Fatalf("victim: %v %s", r.Status, r.Error)
		}
		waitFor(t, "memory back to zero", func() bool { return env.budget.Used() == 0 })
	})
}

// TestPanicsFailOnlyTheirJob: a panicking planner rejects the request; a
// panicking synthesizer, device or verifier fails its job once; the engine keeps
// serving and the budget comes back to zero.
func TestPanicsFailOnlyTheirJob(t *testing.T) {
	dcfg := sim.Config{Fail: func(s sim.Step, a *groth16.Assignment) bool {
		if s == sim.StepRun && isUnit(a, 3, 2) {
			panic("test device panics")
		}
		return false
	}}
	env := newTestEnv(t, dcfg, nil)
	b, _ := json.Marshal(testJob{Parts: 1, Panic: "plan"})
	if _, _, err := env.e.Submit(context.Background(), Request{Kind: KindPoRepSealCommit, VanillaProof: b}); !errors.Is(err, ErrInvalidRequest) {
		t.Fatalf("panicking planner: err = %v, want ErrInvalidRequest", err)
	}
	synth := env.submit(t, "synth", KindPoRepSealCommit, 0, testJob{Tag: 2, Parts: 3, Panic: "synth"})
	verify := env.submit(t, "verify", KindPoRepSealCommit, 0, testJob{Tag: 5, Parts: 2, Panic: "verify"})
	dev := env.submit(t, "dev", KindPoRepSealCommit, 0, testJob{Tag: 3, Parts: 3})
	ok := env.submit(t, "ok", KindPoRepSealCommit, 0, testJob{Tag: 4, Parts: 3})
	for id, want := range map[string]string{synth: "partition 1: synthesis: panic", dev: "partition 2: run: panic", verify: "verification: panic"} {
		if r := env.await(t, id); r.Status != StatusFailed || !strings.Contains(r.Error, want) {
			t.Fatalf("%s: %v %q, want FAILED with %q", id, r.Status, r.Error, want)
		}
	}
	if r := env.await(t, ok); r.Status != StatusCompleted {
		t.Fatalf("ok: %v %s", r.Status, r.Error)
	}
	waitFor(t, "memory back to zero", func() bool { return env.budget.Used() == 0 })
	if s := env.e.Status(); s.ProofsFailed != 3 {
		t.Fatalf("%d failed, want 3", s.ProofsFailed)
	}
}

// TestAwaitFinishedJob: a finished job's result is returned whatever the
// timeout (none, negative, a nanosecond) and even when the caller's
// context has already ended; every Await gets its own copy of the proof.
func TestAwaitFinishedJob(t *testing.T) {
	env := newTestEnv(t, sim.Config{}, nil)
	id := env.submit(t, "done", KindPoRepSealCommit, 0, testJob{Tag: 1, Parts: 2})
	first := env.await(t, id)
	if first.Status != StatusCompleted {
		t.Fatalf("%v %s", first.Status, first.Error)
	}
	first.Proof[0] ^= 0xff // must not reach later callers
	done, cancel := context.WithCancel(context.Background())
	cancel()
	for i := 0; i < 20; i++ {
		for _, timeout := range []time.Duration{0, -time.Second, time.Nanosecond} {
			for _, ctx := range []context.Context{context.Background(), done} {
				r, err := env.e.Await(ctx, id, timeout)
				if err != nil || r.Status != StatusCompleted || r.Proof[0] == first.Proof[0] {
					t.Fatalf("Await(timeout %v, ctx err %v) = %v, %v", timeout, ctx.Err(), r.Status, err)
				}
			}
		}
	}
}

// TestConcurrentCloseWaits: every Close returns only when the engine has
// stopped (a signal handler and a deferred Close may race); the budget is
// empty after each.
func TestConcurrentCloseWaits(t *testing.T) {
	env := newTestEnv(t, sim.Config{}, nil)
	env.submit(t, "slow", KindPoRepSealCommit, 0, testJob{Tag: 1, Parts: 1, SynthMS: 300}) // ignores ctx
	waitFor(t, "synthesis", func() bool { return len(env.events(timeline.SynthStart)) == 1 })
	var wg sync.WaitGroup
	used := make([]uint64, 2)
	for i := range used {
		wg.Add(1)
		go func() {
			defer wg.Done()
			env.e.Close()
			used[i] = env.budget.Used()
		}()
	}
	wg.Wait()
	if used[0] != 0 || used[1] != 0 {
		t.Fatalf("budget after each Close returned: %v, want 0 and 0", used)
	}
}

// chargedParams charges each acquisition of its parameters to the budget,
// as the srs cache does: a job holds them from admission to its end.
type chargedParams struct {
	b    *memory.Budget
	size uint64
}

// Circuit ids other than "test" are charged too and resolve to "test".
func (c chargedParams) Acquire(ctx context.Context, id string) (*groth16.Params, func(), error) {
	r, err := c.b.Reserve(ctx, c.size)
	if err != nil {
		return nil, nil, err
	}
	p, _, err := testParams().Acquire(ctx, "test")
	return p, r.Close, err
}

// TestUnitThatCanNeverFitFailsItsJob: the job's own parameters hold so much
// of the budget that its unit cannot fit, and no partition is in flight to
// give memory back. Waiting would stall the dispatcher, and every job behind
// it, for good; the job fails instead, saying why, and gives it all back.
func TestUnitThatCanNeverFitFailsItsJob(t *testing.T) {
	b := memory.New(testReserve + testReserve/2)
	env := newTestEnv(t, sim.Config{}, func(c *Config) {
		c.Budget = b
		c.Params = chargedParams{b, testReserve}
	})
	id := env.submit(t, "stuck", KindPoRepSealCommit, 0, testJob{Tag: 1, Parts: 2})
	r, err := env.e.Await(context.Background(), id, 5*time.Second)
	if err != nil || r.Status != StatusFailed || !strings.Contains(r.Error, "no partition in flight") {
		t.Fatalf("stuck job: %v %v %q, want FAILED for memory", err, r.Status, r.Error)
	}
	waitFor(t, "memory back to zero", func() bool { return b.Used() == 0 })
}

// TestMemoryWaitEndsWhenNothingIsLeftInFlight: a unit that started waiting
// for memory while another was in flight, and still cannot fit once that
// one has retired, fails its job instead of waiting for good.
func TestMemoryWaitEndsWhenNothingIsLeftInFlight(t *testing.T) {
	b := memory.New(150)
	env := newTestEnv(t, sim.Config{}, func(c *Config) {
		c.Budget = b
		c.Params = routeParams{"test": testParams()["test"], "big": chargedParams{b, 60}}
	})
	a := env.submit(t, "a", KindPoRepSealCommit, 0, testJob{Tag: 1, Parts: 1, Reserve: 50, Gate: "a"})
	waitFor(t, "a synthesizing", func() bool { return len(env.events(timeline.SynthStart)) == 1 })
	big := env.submit(t, "big", KindPoRepSealCommit, 0, testJob{Tag: 2, Parts: 1, Circuit: "big"})
	waitFor(t, "big's unit waiting for memory", func() bool { return b.Waiting() == 1 && b.Used() == 110 })
	close(env.planner.gate("a"))
	if r := env.await(t, a); r.Status != StatusCompleted {
		t.Fatalf("a: %v %s", r.Status, r.Error)
	}
	r, err := env.e.Await(context.Background(), big, 5*time.Second)
	if err != nil || r.Status != StatusFailed || !strings.Contains(r.Error, "no partition in flight") {
		t.Fatalf("big: %v %v %q, want FAILED for memory", err, r.Status, r.Error)
	}
	waitFor(t, "memory back to zero", func() bool { return b.Used() == 0 })
}

// routeParams routes circuit ids to parameters or to parameter sources.
type routeParams map[string]any

func (m routeParams) Acquire(ctx context.Context, id string) (*groth16.Params, func(), error) {
	switch s := m[id].(type) {
	case *groth16.Params:
		return s, func() {}, nil
	case ParamsSource:
		return s.Acquire(ctx, id)
	}
	return nil, nil, unknownCircuit(id)
}

// TestNilParametersFailTheJob: a parameter source that returns no
// parameters and no error fails the job; it must not crash the engine
// (Finish takes the verifying key from them).
func TestNilParametersFailTheJob(t *testing.T) {
	env := newTestEnv(t, sim.Config{}, func(c *Config) { c.Params = MapParams{"test": nil} })
	r := env.await(t, env.submit(t, "x", KindPoRepSealCommit, 0, testJob{Tag: 1, Parts: 2}))
	if r.Status != StatusFailed || !strings.Contains(r.Error, "no parameters") {
		t.Fatalf("%v %q, want FAILED (no parameters)", r.Status, r.Error)
	}
	waitFor(t, "memory back to zero", func() bool { return env.budget.Used() == 0 })
}

// nilSums is a device whose Finish returns neither sums nor an error.
type nilSums struct{ *sim.Device }

func (nilSums) Finish(context.Context, groth16.Partial) (*groth16.Sums, error) { return nil, nil }

// TestDeviceWithoutSumsFailsTheJob: a device breaking its contract fails
// the job; it must not crash the engine.
func TestDeviceWithoutSumsFailsTheJob(t *testing.T) {
	env := newTestEnv(t, sim.Config{}, func(c *Config) { c.Devices = []groth16.Device{nilSums{sim.New(sim.Config{})}} })
	r := env.await(t, env.submit(t, "x", KindPoRepSealCommit, 0, testJob{Tag: 1, Parts: 2}))
	if r.Status != StatusFailed || !strings.Contains(r.Error, "finish") {
		t.Fatalf("%v %q, want FAILED in finish", r.Status, r.Error)
	}
	waitFor(t, "memory back to zero", func() bool { return env.budget.Used() == 0 })
}
