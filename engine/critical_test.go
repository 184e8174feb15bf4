package engine

import (
	"fmt"
	"testing"
	"time"

	"github.com/cuzk-project/cuzk/device/sim"
	"github.com/cuzk-project/cuzk/groth16"
	"github.com/cuzk-project/cuzk/memory"
	"github.com/cuzk-project/cuzk/timeline"
)

// TestWinningPoStDoesNotWaitBehindBulkWork admits PoRep partitions until
// every synthesis slot is held by a synthesis that does not end (gated),
// more PoRep units are queued for synthesis, and the device is busy with a
// queue of synthesized ones (a Run in flight, the other workers holding
// prepared units). A WinningPoSt submitted then, at its kind's default
// priority, must synthesize at once (the reserved slot), get its memory
// even when bulk units hold the budget (the headroom), be prepared at once
// (the CRITICAL device worker) and take the device lock next: no other
// unit's Run starts between its submission and its own, so all it waits
// for is the Run in flight when it came.
func TestWinningPoStDoesNotWaitBehindBulkWork(t *testing.T) {
	const run = 300 * time.Millisecond
	tests := []struct {
		name         string
		workers      int    // device workers besides the CRITICAL one
		deviceUnits  int    // PoRep units synthesized ahead, for the device
		gatedReserve uint64 // reservation of the two gated PoRep units
		budget       uint64
		headroom     int64
		handle       bool // a CRITICAL handle on the device (CriticalDevices)
		laneRows     int  // CriticalLaneRows (0: the default)
	}{
		{name: "device busy, two workers", workers: 2, deviceUnits: 6, gatedReserve: testReserve, budget: 1 << 20, headroom: -1},
		{name: "device busy, one worker", workers: 1, deviceUnits: 4, gatedReserve: testReserve, budget: 1 << 20, headroom: -1},
		{name: "device busy, three workers", workers: 3, deviceUnits: 8, gatedReserve: testReserve, budget: 1 << 20, headroom: -1},
		// The two gated units hold the whole budget but the headroom, and a
		// third waits in the budget for memory that comes back only when
		// the gates open.
		{name: "memory held by bulk units", workers: 2, gatedReserve: 400, budget: 1000, headroom: 200},
		// With its own handle it runs beside the Run in flight.
		{name: "device busy, CRITICAL handle", workers: 2, deviceUnits: 6, gatedReserve: testReserve, budget: 1 << 20, headroom: -1, handle: true},
		// A partition larger than the handle takes (8 constraints against
		// 7) takes the device and its lock next instead.
		{name: "device busy, CRITICAL handle, partition too large for it", workers: 2, deviceUnits: 6, gatedReserve: testReserve, budget: 1 << 20, headroom: -1, handle: true, laneRows: 7},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dcfg := sim.Config{Prepare: 10 * time.Millisecond, Run: run, Finish: 10 * time.Millisecond}
			env := newTestEnv(t, dcfg, func(c *Config) {
				c.SynthesisWorkers = 2
				c.WorkersPerDevice = tc.workers
				c.Budget = memory.New(tc.budget)
				c.CriticalHeadroom = tc.headroom
				if tc.handle {
					c.CriticalDevices = []groth16.Device{sim.New(dcfg)}
				}
				c.CriticalLaneRows = tc.laneRows
			})
			var bulk []string
			if tc.deviceUnits > 0 {
				bulk = append(bulk, env.submit(t, "porep-a", KindPoRepSealCommit, 0, testJob{Tag: 1, Parts: tc.deviceUnits}))
				waitFor(t, "porep-a synthesized", func() bool { return env.count(timeline.SynthEnd, "porep-a") == tc.deviceUnits })
			}
			// Both synthesis slots end up held by the gated partitions 0;
			// porep-c's other partitions stay queued behind them.
			for i, id := range []string{"porep-b", "porep-c"} {
				bulk = append(bulk, env.submit(t, id, KindPoRepSealCommit, 0,
					testJob{Tag: uint64(2 + i), Parts: 3, Gate: "bulk", Reserve: tc.gatedReserve}))
				waitFor(t, id+"/0 synthesizing", func() bool { return env.count(timeline.SynthStart, id) >= 1 })
			}
			queued := env.e.synthQ.len()
			if queued == 0 {
				t.Fatal("no PoRep unit queued for synthesis")
			}
			if tc.deviceUnits > 0 {
				// Submit right after a Run began, so that the Run in
				// flight has all of its length left: a WinningPoSt that
				// waited for one more would wait about twice as long.
				n := len(env.events(timeline.LockHeld))
				waitFor(t, "a Run to begin", func() bool { return len(env.events(timeline.LockHeld)) > n })
			}
			w := env.submit(t, "winning", KindWinningPoSt, PriorityUnspecified, testJob{Tag: 9, Parts: 1})
			r := env.await(t, w)
			if r.Status != StatusCompleted {
				t.Fatalf("winning: %v %s", r.Status, r.Error)
			}
			// It finished with every slot still held and nothing of the
			// synthesis queue started: none of that was in its way.
			if n := env.e.synthQ.len(); n != queued {
				t.Fatalf("%d PoRep units queued after the WinningPoSt, %d before: one started first", n, queued)
			}
			switch {
			case tc.handle && tc.laneRows == 0:
				checkBeside(t, env, w, run)
			case tc.deviceUnits > 0:
				checkLockNext(t, env, w, run)
			}
			close(env.planner.gate("bulk"))
			for _, id := range bulk {
				if r := env.await(t, id); r.Status != StatusCompleted {
					t.Fatalf("%s: %v %s", id, r.Status, r.Error)
				}
			}
		})
	}
}

// checkLockNext checks that no other unit took the device lock between
// job w's submission and its own turn, and that w waited for about one Run
// (the one in flight) and not two.
func checkLockNext(t *testing.T, env *testEnv, w string, run time.Duration) {
	t.Helper()
	at := func(k timeline.Kind) time.Duration {
		for _, e := range env.events(k) {
			if e.Job == w {
				return e.At
			}
		}
		t.Fatalf("no %v event for %s", k, w)
		return 0
	}
	submit, held := at(timeline.JobSubmit), at(timeline.LockHeld)
	for _, e := range env.events(timeline.LockHeld) {
		if e.Job != w && e.At > submit && e.At < held {
			t.Fatalf("%s/%d took the device lock %v after the WinningPoSt was submitted, %v before it did",
				e.Job, e.Partition, e.At-submit, held-e.At)
		}
	}
	// Its own stages are ~30 ms; one Run more than the one in flight
	// would make it 2 × run.
	if wait := held - submit; wait > run*3/2 {
		t.Fatalf("the WinningPoSt got the lock %v after submission; the Run in flight is %v", wait, run)
	}
}

// checkBeside checks that job w, run on the CRITICAL handle, took no lock
// and ran while another unit's Run was in flight.
func checkBeside(t *testing.T, env *testEnv, w string, run time.Duration) {
	t.Helper()
	if n := env.count(timeline.LockWait, w); n != 0 {
		t.Fatalf("%d lock waits on the CRITICAL handle", n)
	}
	var ks, submit time.Duration
	for _, e := range env.events(timeline.KernelStart) {
		if e.Job == w {
			ks = e.At
		}
	}
	for _, e := range env.events(timeline.JobSubmit) {
		if e.Job == w {
			submit = e.At
		}
	}
	if wait := ks - submit; ks == 0 || wait > run/2 {
		t.Fatalf("the WinningPoSt's Run began %v after submission; the Run in flight is %v", wait, run)
	}
	var beside bool
	ivs, _ := timeline.Pair(env.rec.Events())
	for _, iv := range ivs {
		if iv.Stage == timeline.StageKernel && iv.Job != w && iv.Start < ks && iv.End > ks {
			beside = true
		}
	}
	if !beside {
		t.Fatal("no bulk Run was in flight when the WinningPoSt's began")
	}
}

// TestCriticalHeadroom: the headroom is held from the budget while the
// engine lives, only CRITICAL units take from it, a non-CRITICAL unit that
// could fit only with it is refused at plan time, and Close gives it back.
func TestCriticalHeadroom(t *testing.T) {
	tests := []struct {
		name     string
		budget   uint64
		headroom int64
		want     uint64 // headroom held
		newErr   bool
	}{
		{"explicit", 1000, 200, 200, false},
		{"none", 1000, -1, 0, false},
		{"auto, small budget", 1000, 0, 0, false},
		{"auto, 16 GiB budget", 16 << 30, 0, DefaultCriticalHeadroom, false},
		{"more than half the budget", 1000, 600, 0, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := memory.New(tc.budget)
			e, err := New(Config{Devices: []groth16.Device{sim.New(sim.Config{})}, Budget: b, Planner: &testPlanner{},
				Params: testParams(), Rand: zeroReader{}, CriticalHeadroom: tc.headroom})
			if tc.newErr {
				if err == nil {
					e.Close()
					t.Fatal("New accepted the headroom")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := b.Used(); got != tc.want {
				t.Fatalf("budget used %d, want the headroom %d", got, tc.want)
			}
			if s := e.Status(); s.MemoryUsed != 0 {
				t.Fatalf("status reports %d bytes used by an idle engine", s.MemoryUsed)
			}
			e.Close()
			if b.Used() != 0 {
				t.Fatalf("%d bytes held after Close", b.Used())
			}
		})
	}

	env := newTestEnv(t, sim.Config{}, func(c *Config) {
		c.Budget = memory.New(1000)
		c.CriticalHeadroom = 200
	})
	for _, tc := range []struct {
		kind    ProofKind
		reserve uint64
		ok      bool
	}{
		{KindPoRepSealCommit, 800, true},
		{KindPoRepSealCommit, 801, false}, // fits the budget only with the headroom
		{KindWinningPoSt, 800, true},
	} {
		b := []byte(fmt.Sprintf(`{"tag":1,"parts":1,"reserve":%d}`, tc.reserve))
		_, _, err := env.e.Submit(t.Context(), Request{Kind: tc.kind, VanillaProof: b})
		if (err == nil) != tc.ok {
			t.Fatalf("%v reserving %d: err = %v, want ok = %v", tc.kind, tc.reserve, err, tc.ok)
		}
	}
}

// TestCriticalOnHandleWhicheverWorker: with a CRITICAL handle, a CRITICAL
// unit runs on it without the device lock whichever worker takes it. Two
// WinningPoSts arrive together while a bulk Run holds the lock and a bulk
// worker is idle: the CRITICAL worker takes one, the idle bulk worker the
// other (the CRITICAL one is busy), and neither waits for the lock.
func TestCriticalOnHandleWhicheverWorker(t *testing.T) {
	const run = 800 * time.Millisecond
	dcfg := sim.Config{Prepare: 5 * time.Millisecond, Run: run, Finish: 5 * time.Millisecond}
	lane := sim.Config{Prepare: 5 * time.Millisecond, Run: 100 * time.Millisecond, Finish: 5 * time.Millisecond}
	env := newTestEnv(t, dcfg, func(c *Config) {
		c.WorkersPerDevice = 2
		c.CriticalDevices = []groth16.Device{sim.New(lane)}
	})
	bulk := env.submit(t, "porep", KindPoRepSealCommit, 0, testJob{Tag: 1, Parts: 1})
	waitFor(t, "the bulk Run to begin", func() bool { return env.count(timeline.LockHeld, bulk) == 1 })
	w1 := env.submit(t, "winning-1", KindWinningPoSt, PriorityUnspecified, testJob{Tag: 2, Parts: 1})
	w2 := env.submit(t, "winning-2", KindWinningPoSt, PriorityUnspecified, testJob{Tag: 3, Parts: 1})
	for _, w := range []string{w1, w2} {
		if r := env.await(t, w); r.Status != StatusCompleted {
			t.Fatalf("%s: %v %s", w, r.Status, r.Error)
		}
	}
	var bulkFree time.Duration
	for _, e := range env.events(timeline.LockFree) {
		if e.Job == bulk {
			bulkFree = e.At
		}
	}
	pickers := map[int]bool{}
	for _, w := range []string{w1, w2} {
		if n := env.count(timeline.LockWait, w); n != 0 {
			t.Errorf("%s waited for the device lock (%d times)", w, n)
		}
		for _, e := range env.events(timeline.KernelEnd) {
			if e.Job == w && bulkFree != 0 && e.At > bulkFree {
				t.Errorf("%s's Run ended %v after the bulk Run's lock was freed", w, e.At-bulkFree)
			}
		}
		for _, e := range env.events(timeline.DevPickup) {
			if e.Job == w {
				pickers[e.Worker] = true
			}
		}
	}
	if len(pickers) != 2 {
		t.Logf("one worker took both WinningPoSts (%v): the bulk worker's path was not exercised", pickers)
	}
	if r := env.await(t, bulk); r.Status != StatusCompleted {
		t.Fatalf("porep: %v %s", r.Status, r.Error)
	}
}
