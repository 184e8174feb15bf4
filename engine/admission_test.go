package engine

// Tests of admission: when a job's parameters are acquired, and what
// happens when parameters and units cannot all be resident at once. The
// parameters come from the real srs cache, charged to the budget and
// evicted by it when idle, as in the daemon.

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cuzk-project/cuzk/device/sim"
	"github.com/cuzk-project/cuzk/groth16"
	"github.com/cuzk-project/cuzk/memory"
	"github.com/cuzk-project/cuzk/srs"
	"github.com/cuzk-project/cuzk/timeline"
)

// srsEnv is a test engine whose parameters come from an srs cache over the
// circuits ids, each a copy of the test parameters, charged to the budget
// at their decoded size.
type srsEnv struct {
	*testEnv
	cache *srs.Cache
	size  uint64 // bytes one parameter set holds
}

// newSRSEnv builds the engine with a budget of limit(size) bytes, where
// size is what one parameter set is charged.
func newSRSEnv(t *testing.T, ids []string, limit func(size uint64) uint64, mod func(*Config)) *srsEnv {
	t.Helper()
	p := testParams()["test"]
	size := srs.ParamsBytes(p)
	b := memory.New(limit(size))
	sources := map[string]srs.Source{}
	for _, id := range ids {
		sources[id] = srs.Source{Path: id, Size: size}
	}
	cache := srs.New(srs.Config{
		Circuits: sources,
		Budget:   b,
		Load: func(ctx context.Context, id, path string) (*groth16.Params, error) {
			q := *p
			return &q, nil
		},
	})
	b.SetEvictor(cache.EvictIdle)
	env := newTestEnv(t, sim.Config{Run: time.Millisecond}, func(c *Config) {
		c.Budget = b
		c.Params = cache
		if mod != nil {
			mod(c)
		}
	})
	return &srsEnv{testEnv: env, cache: cache, size: size}
}

// watchBudget fails the test if the budget is ever seen above its limit
// at a synthesis start.
func watchBudget(t *testing.T, env *testEnv) func() {
	var once sync.Once
	var over uint64
	env.planner.onSynth = func() {
		if u := env.budget.Used(); u > env.budget.Limit() {
			once.Do(func() { over = u })
		}
	}
	return func() {
		t.Helper()
		if over != 0 || env.budget.Peak() > env.budget.Limit() {
			t.Fatalf("budget exceeded: used %d, peak %d, limit %d", over, env.budget.Peak(), env.budget.Limit())
		}
	}
}

// drained waits until the budget holds nothing once idle parameter sets
// are evicted (a job's last unit gives its set back just after the job's
// result is out).
func (env *srsEnv) drained(t *testing.T) {
	t.Helper()
	waitFor(t, "memory back to zero", func() bool {
		env.cache.EvictIdle(^uint64(0))
		return env.budget.Used() == 0
	})
}

// awaitBounded waits for a job at most 10 s: a deadlock reads as a
// timeout, not a hung test.
func (env *testEnv) awaitBounded(t *testing.T, id string) Result {
	t.Helper()
	r, err := env.e.Await(context.Background(), id, 10*time.Second)
	if err != nil {
		t.Fatalf("await %s: %v", id, err)
	}
	return r
}

// TestCircuitsTakeTurnsInMemory: two jobs of different circuits whose
// parameter sets cannot both be resident next to a unit's reservation, but
// fit one after the other. Both complete, the first submitted first (FIFO
// within a priority); the budget is never exceeded and holds nothing once
// the idle parameters are evicted. Acquiring every job's parameters at
// submission deadlocked (the second load queued in the budget ahead of the
// first job's units, which it waited for) or failed one job for memory.
func TestCircuitsTakeTurnsInMemory(t *testing.T) {
	for _, tc := range []struct {
		name string
		prio [2]Priority
	}{
		{"fifo", [2]Priority{PriorityNormal, PriorityNormal}},
		{"second is lower", [2]Priority{PriorityHigh, PriorityLow}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var unit uint64
			// One set and two units fit; two sets and a unit do not.
			env := newSRSEnv(t, []string{"circuit-a", "circuit-b"}, func(size uint64) uint64 {
				unit = size / 2
				return size + 2*unit
			}, nil)
			check := watchBudget(t, env.testEnv)
			first := env.submit(t, "first", KindPoRepSealCommit, tc.prio[0], testJob{Tag: 1, Parts: 3, Circuit: "circuit-a", Reserve: unit})
			second := env.submit(t, "second", KindPoRepSealCommit, tc.prio[1], testJob{Tag: 2, Parts: 3, Circuit: "circuit-b", Reserve: unit})
			for _, id := range []string{first, second} {
				if r := env.awaitBounded(t, id); r.Status != StatusCompleted {
					t.Fatalf("%s: %v %q, want COMPLETED", id, r.Status, r.Error)
				}
			}
			waitFor(t, "both JOB_DONE events", func() bool { return len(env.events(timeline.JobDone)) == 2 })
			if done := env.events(timeline.JobDone); done[0].Job != first {
				t.Fatalf("jobs done in order %v, want first, second", done)
			}
			// The two sets are never resident together with a unit: the
			// second job starts once the first has given its set back.
			for _, e := range env.events(timeline.SynthStart) {
				if e.Job == second && e.At < env.events(timeline.JobDone)[0].At {
					t.Fatalf("second synthesized before first was done")
				}
			}
			check()
			env.drained(t)
		})
	}
}

// TestHigherPriorityCircuitWaitsForPinnedParameters: a HIGH job of another
// circuit arrives while a NORMAL job holds its parameters and has units
// left. The two sets cannot be resident together with a unit, so the HIGH
// job waits for the NORMAL job to end (its parameters cannot be taken from
// it) instead of deadlocking or failing either; then it runs. Later NORMAL
// jobs of the first circuit are not admitted meanwhile: they would keep
// its set held, and the HIGH job would wait until no such job is left.
func TestHigherPriorityCircuitWaitsForPinnedParameters(t *testing.T) {
	var unit uint64
	env := newSRSEnv(t, []string{"circuit-a", "circuit-b"}, func(size uint64) uint64 {
		unit = size / 2
		return size + 2*unit
	}, func(c *Config) { c.SynthesisWorkers = 1 })
	check := watchBudget(t, env.testEnv)
	normal := env.submit(t, "normal", KindPoRepSealCommit, PriorityNormal, testJob{Tag: 1, Parts: 3, Circuit: "circuit-a", Reserve: unit, Gate: "normal"})
	waitFor(t, "normal/0 synthesizing", func() bool { return len(env.events(timeline.SynthStart)) == 1 })
	high := env.submit(t, "high", KindPoRepSealCommit, PriorityHigh, testJob{Tag: 2, Parts: 2, Circuit: "circuit-b", Reserve: unit})
	var later []string
	for i, id := range []string{"later-1", "later-2"} {
		later = append(later, env.submit(t, id, KindPoRepSealCommit, PriorityNormal, testJob{Tag: uint64(3 + i), Parts: 2, Circuit: "circuit-a", Reserve: unit}))
	}
	close(env.planner.gate("normal"))
	for _, id := range append([]string{normal, high}, later...) {
		if r := env.awaitBounded(t, id); r.Status != StatusCompleted {
			t.Fatalf("%s: %v %q, want COMPLETED", id, r.Status, r.Error)
		}
	}
	waitFor(t, "every JOB_DONE event", func() bool { return len(env.events(timeline.JobDone)) == 4 })
	var order []string
	for _, e := range env.events(timeline.JobDone) {
		order = append(order, e.Job)
	}
	// The later jobs share a set and run side by side: either may end
	// first.
	if got := strings.Join(order[:2], " "); got != "normal high" {
		t.Fatalf("jobs done in order %v, want normal, high, then the later ones", order)
	}
	check()
	env.drained(t)
}

// TestParametersAndUnitThatNeverFitFail: a job whose parameters plus one
// of its units can never fit in the budget fails with ErrNoMemory (it
// would otherwise wait for good); a job that fits still runs afterwards.
func TestParametersAndUnitThatNeverFitFail(t *testing.T) {
	var unit uint64
	env := newSRSEnv(t, []string{"big", "small"}, func(size uint64) uint64 {
		unit = size / 2
		return size + unit
	}, nil)
	check := watchBudget(t, env.testEnv)
	big := env.submit(t, "big", KindPoRepSealCommit, 0, testJob{Tag: 1, Parts: 2, Circuit: "big", Reserve: unit + 1})
	r := env.awaitBounded(t, big)
	if r.Status != StatusFailed || !strings.Contains(r.Error, ErrNoMemory.Error()) {
		t.Fatalf("big: %v %q, want FAILED with %q", r.Status, r.Error, ErrNoMemory)
	}
	small := env.submit(t, "small", KindPoRepSealCommit, 0, testJob{Tag: 2, Parts: 2, Circuit: "small", Reserve: unit})
	if r := env.awaitBounded(t, small); r.Status != StatusCompleted {
		t.Fatalf("small: %v %q", r.Status, r.Error)
	}
	check()
	env.drained(t)
}

// panicParams panics in Acquire for the circuit "boom".
type panicParams struct{ MapParams }

func (p panicParams) Acquire(ctx context.Context, id string) (*groth16.Params, func(), error) {
	if id == "boom" {
		panic("test parameter source panics")
	}
	return p.MapParams.Acquire(ctx, id)
}

// TestPanickingParamsSourceFailsOnlyItsJob: a parameter source that panics
// fails the job that asked, with the panic in its error; the engine keeps
// serving, and the budget comes back to zero.
func TestPanickingParamsSourceFailsOnlyItsJob(t *testing.T) {
	env := newTestEnv(t, sim.Config{}, func(c *Config) { c.Params = panicParams{testParams()} })
	boom := env.submit(t, "boom", KindPoRepSealCommit, 0, testJob{Tag: 1, Parts: 2, Circuit: "boom"})
	ok := env.submit(t, "ok", KindPoRepSealCommit, 0, testJob{Tag: 2, Parts: 2})
	if r := env.awaitBounded(t, boom); r.Status != StatusFailed || !strings.Contains(r.Error, "panic") {
		t.Fatalf("boom: %v %q, want FAILED with the panic", r.Status, r.Error)
	}
	if r := env.awaitBounded(t, ok); r.Status != StatusCompleted {
		t.Fatalf("ok: %v %q", r.Status, r.Error)
	}
	waitFor(t, "memory back to zero", func() bool { return env.budget.Used() == 0 })
}

// TestPreloadDoesNotBlockJobs: a Preload whose set cannot fit next to the
// parameters a running job holds waits in the budget ahead of that job's
// next unit. Once nothing is in flight it gives up with ErrNoMemory, and
// the job completes; waiting on would deadlock both.
func TestPreloadDoesNotBlockJobs(t *testing.T) {
	var unit uint64
	env := newSRSEnv(t, []string{"circuit-a"}, func(size uint64) uint64 {
		unit = size / 2
		return size + 2*unit
	}, func(c *Config) { c.SynthesisWorkers = 1 })
	if err := env.cache.Register("circuit-b", srs.Source{Path: "circuit-b", Size: 3 * env.size / 2}); err != nil {
		t.Fatal(err)
	}
	a := env.submit(t, "a", KindPoRepSealCommit, 0, testJob{Tag: 1, Parts: 3, Circuit: "circuit-a", Reserve: unit, Gate: "a"})
	waitFor(t, "a/0 synthesizing", func() bool { return len(env.events(timeline.SynthStart)) == 1 })
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	errc := make(chan error, 1)
	go func() { _, _, err := env.e.Preload(ctx, "circuit-b"); errc <- err }()
	waitFor(t, "the preload to wait for memory", func() bool { return env.budget.Waiting() == 1 })
	close(env.planner.gate("a"))
	if r := env.awaitBounded(t, a); r.Status != StatusCompleted {
		t.Fatalf("a: %v %q, want COMPLETED", r.Status, r.Error)
	}
	if err := <-errc; !errors.Is(err, ErrNoMemory) {
		t.Fatalf("preload: %v, want ErrNoMemory", err)
	}
	env.drained(t)
}
