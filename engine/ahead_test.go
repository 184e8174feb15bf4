package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cuzk-project/cuzk/device/sim"
	"github.com/cuzk-project/cuzk/groth16"
	"github.com/cuzk-project/cuzk/memory"
)

// aheadDevice is a claimingDevice whose Prepare reports the staging its
// Run will keep (groth16.PrepareReport.Keeps) and waits for that staging
// (groth16.AwaitStaging) before it takes one, after the part of its work
// that needs none (before), as the CUDA device does, unless noAwait;
// whose Run, where early > 0, keeps its staging that long after it begins
// (groth16.StagingDone), as the CUDA device does once a and b are
// uploaded; and whose nth Run first calls gate(n), failing with its error.
type aheadDevice struct {
	*claimingDevice
	before, early time.Duration
	noAwait       bool
	runs          atomic.Int32
	prepares      atomic.Int32 // Prepares begun
	prepared      atomic.Int32 // Prepares returned
	gate          func(n int32) error
}

func newAheadDevice(gate func(n int32) error) *aheadDevice {
	return &aheadDevice{claimingDevice: newClaimingDevice(sim.Config{}), gate: gate}
}

func (d *aheadDevice) Prepare(ctx context.Context, a *groth16.Assignment, p *groth16.Params) (groth16.Prepared, error) {
	d.prepares.Add(1)
	time.Sleep(d.before)
	if !d.noAwait {
		if err := groth16.AwaitStaging(ctx); err != nil {
			return nil, err
		}
	}
	defer d.prepared.Add(1)
	return d.claimingDevice.Prepare(ctx, a, p)
}

func (d *aheadDevice) Profile() groth16.Profile {
	p := d.claimingDevice.Profile()
	p.Prepared = func(groth16.Prepared) groth16.PrepareReport { return groth16.PrepareReport{Keeps: stagingBytes} }
	return p
}

func (d *aheadDevice) Run(ctx context.Context, w groth16.Prepared) (groth16.Partial, error) {
	kept := make(chan bool, 1)
	if d.early > 0 {
		go func() {
			time.Sleep(d.early)
			kept <- groth16.StagingDone(ctx, groth16.RunReport{StagingBytes: stagingBytes, KeepStaging: d.keep})
		}()
	} else {
		kept <- false
	}
	p, err := d.run(ctx, w)
	if k := <-kept; k && p != nil {
		p.(*keepingPartial).kept = true
	}
	return p, err
}

func (d *aheadDevice) run(ctx context.Context, w groth16.Prepared) (groth16.Partial, error) {
	if n := d.runs.Add(1); d.gate != nil {
		if err := d.gate(n); err != nil {
			return nil, err
		}
	}
	return d.claimingDevice.Run(ctx, w)
}

// within reports whether cond holds before d passes.
func within(d time.Duration, cond func() bool) bool {
	for end := time.Now().Add(d); !cond(); time.Sleep(time.Millisecond) {
		if time.Now().After(end) {
			return false
		}
	}
	return true
}

// TestReserveAhead: two jobs of one partition under a budget that holds
// the second beside the first only without the staging the first's Run
// will keep: the second reserves ahead (all but that staging) and is
// synthesized while the first's Run is in flight (both in flight before
// that Run returns), and its Prepare begins during that Run and waits for
// the staging before it takes one; the first Run's staging is claimed for
// it and its Prepare takes it. Where the first Run fails, the second
// reserves the rest itself; where the second job is cancelled while it
// waits, the share goes back to the staging, kept; where the device never
// waits for the staging, the engine waits after its Prepare (which took a
// staging of its own: the claimed one is let go). Every claim ends, and
// at the end the budget holds the last kept staging's share alone.
func TestReserveAhead(t *testing.T) {
	const reserve = 1000 // testPlanner: half of it a, b, c
	errRun := errors.New("the first Run failed")
	for _, tc := range []struct {
		name                  string
		fail, cancel, noAwait bool
		early                 bool // the first Run keeps its staging while in flight
		wantA, wantB          Status
		wantMade, wantBack    int
		wantReused            int
		wantCounts            ClaimCounts
	}{
		{"overlaps the Run", false, false, false, false, StatusCompleted, StatusCompleted, 1, 0, 1, ClaimCounts{Ahead: 1}},
		{"the Run fails", true, false, false, false, StatusFailed, StatusCompleted, 0, 0, 0, ClaimCounts{Ahead: 1, Missed: 1}},
		{"the awaiting job is cancelled", false, true, false, false, StatusCompleted, StatusCancelled, 1, 1, 0, ClaimCounts{Ahead: 1}},
		{"the device never waits", false, false, true, false, StatusCompleted, StatusCompleted, 1, 0, 0, ClaimCounts{Ahead: 1}},
		{"the Run keeps its staging early", false, false, false, true, StatusCompleted, StatusCompleted, 1, 0, 1, ClaimCounts{Ahead: 1}},
		{"the Run fails after keeping its staging", true, false, false, true, StatusFailed, StatusCompleted, 1, 0, 1, ClaimCounts{Ahead: 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var env *testEnv
			secondID := make(chan string, 1)
			overlapped, prepared := make(chan bool, 1), make(chan bool, 1)
			var dev *aheadDevice
			dev = newAheadDevice(func(n int32) error {
				if n != 1 {
					return nil
				}
				both := within(5*time.Second, func() bool { return env.e.inflight.Load() == 2 })
				overlapped <- both
				if tc.early { // the second Prepare took the staging kept early
					prepared <- within(5*time.Second, func() bool { return dev.prepared.Load() == 2 })
				} else {
					prepared <- within(5*time.Second, func() bool { return dev.prepares.Load() == 2 })
				}
				if tc.cancel && both {
					if _, err := env.e.Cancel(<-secondID); err != nil {
						t.Errorf("cancel: %v", err)
					}
					within(5*time.Second, func() bool { return env.e.inflight.Load() == 1 })
				}
				if tc.fail {
					return errRun
				}
				return nil
			})
			dev.noAwait = tc.noAwait
			if tc.early {
				dev.early = time.Millisecond
			}
			env = newTestEnv(t, sim.Config{}, func(c *Config) {
				c.Devices = []groth16.Device{dev}
				c.Budget = memory.New(2*reserve - stagingBytes) // the second fits beside the first less its staging
				c.WorkersPerDevice = 2
			})
			first := env.submit(t, "first", KindPoRepSealCommit, PriorityNormal, testJob{Tag: 7, Parts: 1, Reserve: reserve})
			second := env.submit(t, "second", KindPoRepSealCommit, PriorityNormal, testJob{Tag: 8, Parts: 1, Reserve: reserve})
			secondID <- second
			ra, rb := env.await(t, first), env.await(t, second)
			if ra.Status != tc.wantA || rb.Status != tc.wantB {
				t.Fatalf("first %v (%s), second %v (%s); want %v, %v", ra.Status, ra.Error, rb.Status, rb.Error, tc.wantA, tc.wantB)
			}
			if !<-overlapped {
				t.Errorf("the second job's unit was not in flight while the first's Run was")
			}
			if !<-prepared {
				t.Errorf("the second job's Prepare did not %s while the first's Run was in flight",
					map[bool]string{false: "begin", true: "end"}[tc.early])
			}
			waitFor(t, "the units to retire, the staging kept", func() bool {
				return env.e.inflight.Load() == 0 && env.budget.Used() == dev.keptBytes()
			})
			dev.mu.Lock()
			made, back, claimed, claims, reused, letGo := dev.made, dev.back, dev.claimed, dev.claims, dev.reused, dev.letGo
			dev.mu.Unlock()
			if wantLetGo := map[bool]int{true: 1}[tc.noAwait]; letGo != wantLetGo {
				t.Errorf("%d claimed stagings let go, want %d", letGo, wantLetGo)
			}
			if made != tc.wantMade || back != tc.wantBack || reused != tc.wantReused {
				t.Errorf("claims %d (back %d), reused %d; want %d (%d), %d", made, back, reused, tc.wantMade, tc.wantBack, tc.wantReused)
			}
			if got := env.e.Status().Claims; got != tc.wantCounts {
				t.Errorf("Status().Claims %+v, want %+v", got, tc.wantCounts)
			}
			if claimed != 0 || claims != 0 || env.budget.Used() != stagingBytes {
				t.Errorf("at the end: %d claimed stagings, %d open claims, budget %d; want 0, 0, %d", claimed, claims,
					env.budget.Used(), stagingBytes)
			}
		})
	}
}

// TestReserveAheadConcurrent: proveKeptJobs's 24 partitions on a device
// whose Runs hand their stagings to units reserved ahead, under budgets
// of one unit beside another less its staging and more (run with -race):
// every job completes, every claim ends, and at the end the budget holds
// the kept stagings' shares alone.
func TestReserveAheadConcurrent(t *testing.T) {
	const reserve = 1000
	for _, budget := range []uint64{2*reserve - stagingBytes, 2 * reserve, 3*reserve - stagingBytes} {
		t.Run(fmt.Sprintf("budget%d", budget), func(t *testing.T) {
			dev := newAheadDevice(nil)
			env := proveKeptJobs(t, dev, budget, reserve)
			waitFor(t, "the units' reservations to end", func() bool {
				return env.e.inflight.Load() == 0 && env.budget.Used() == dev.keptBytes()
			})
			dev.mu.Lock()
			defer dev.mu.Unlock()
			if dev.claims != 0 || dev.claimed != 0 {
				t.Errorf("%d claims never ended, %d claimed stagings left", dev.claims, dev.claimed)
			}
			if env.budget.Peak() > budget {
				t.Errorf("peak %d over the budget %d", env.budget.Peak(), budget)
			}
			t.Logf("24 partitions: %d claims (%d given back, %d let go), %d Prepares reused a staging, peak %d of %d",
				dev.made, dev.back, dev.letGo, dev.reused, env.budget.Peak(), budget)
		})
	}
}

// BenchmarkReserveAhead: 2 jobs of 10 partitions under a budget that holds
// one partition beside another less its staging, at the proportions
// measured for a 32 GiB PoRep partition on an H100 under 40 GiB, in
// hundredths (synthesis 12 ms, Prepare 14 ms, Run 17 ms), 2 workers: the
// device reporting the staging its Run keeps (units reserve ahead of it)
// against the same device without (each unit reserved once the last Run
// kept its staging), and the device doing the 6 ms of its Prepare that
// need no staging (the CUDA device's splits: 0.40–0.53 of 0.97–1.29 s
// measured) before it waits for the staging, and besides keeping its
// staging 3 ms into its Run (a and b uploaded: 0.2–0.35 s of the 1.55 s
// estimated from 8.3 GB over the H2D link). Reports ms a job.
func BenchmarkReserveAhead(b *testing.B) {
	const reserve, parts, jobs = 1000, 10, 2
	old := slog.Default()
	slog.SetDefault(slog.New(slog.NewTextHandler(io.Discard, nil))) // each proof's line
	defer slog.SetDefault(old)
	timing := sim.Config{Prepare: 14 * time.Millisecond, Run: 17 * time.Millisecond, Finish: time.Millisecond}
	// 6 of the 14 ms of Prepare before its wait, the staging kept early
	// into the Run (0: when the Run returns)
	splitFirst := func(early time.Duration) func() groth16.Device {
		return func() groth16.Device {
			t := timing
			t.Prepare = 8 * time.Millisecond
			return &aheadDevice{claimingDevice: newClaimingDevice(t), before: 6 * time.Millisecond, early: early}
		}
	}
	for _, tc := range []struct {
		name    string
		synthMS int
		dev     func() groth16.Device
	}{
		{"keeps", 12, func() groth16.Device { return &aheadDevice{claimingDevice: newClaimingDevice(timing)} }},
		{"keeps-split-first", 12, splitFirst(0)},
		{"keeps-early", 12, splitFirst(3 * time.Millisecond)},
		{"no-keeps", 12, func() groth16.Device { return newClaimingDevice(timing) }},
		// the shortest synthesis measured (0.8 s): the wait for the
		// staging is then what the Prepare waits on
		{"synth8/keeps-split-first", 8, splitFirst(0)},
		{"synth8/keeps-early", 8, splitFirst(3 * time.Millisecond)},
	} {
		b.Run(tc.name, func(b *testing.B) {
			for range b.N {
				e, err := New(Config{Devices: []groth16.Device{tc.dev()}, Budget: memory.New(2*reserve - stagingBytes),
					Planner: &testPlanner{}, Params: testParams(), Rand: zeroReader{}, Assemble: cheapAssemble,
					WorkersPerDevice: 2, SynthesisWorkers: 2})
				if err != nil {
					b.Fatal(err)
				}
				var ids []string
				for i := range jobs {
					v, _ := json.Marshal(testJob{Tag: uint64(30 + i), Parts: parts, Reserve: reserve, SynthMS: tc.synthMS})
					id, _, err := e.Submit(context.Background(), Request{Kind: KindPoRepSealCommit, VanillaProof: v})
					if err != nil {
						b.Fatal(err)
					}
					ids = append(ids, id)
				}
				for _, id := range ids {
					if r, err := e.Await(context.Background(), id, 0); err != nil || r.Status != StatusCompleted {
						b.Fatalf("%s: %v %v %s", id, err, r.Status, r.Error)
					}
				}
				e.Close()
			}
			b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N*jobs), "ms/job")
		})
	}
}
