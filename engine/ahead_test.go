package engine

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cuzk-project/cuzk/device/sim"
	"github.com/cuzk-project/cuzk/groth16"
	"github.com/cuzk-project/cuzk/memory"
)

// aheadDevice is a claimingDevice whose Prepare reports the staging its
// Run will keep (groth16.PrepareReport.Keeps), as the CUDA device does,
// and whose nth Run first calls gate(n), failing with its error.
type aheadDevice struct {
	*claimingDevice
	runs atomic.Int32
	gate func(n int32) error
}

func newAheadDevice(gate func(n int32) error) *aheadDevice {
	return &aheadDevice{claimingDevice: &claimingDevice{keepingDevice: &keepingDevice{Device: sim.New(sim.Config{})}}, gate: gate}
}

func (d *aheadDevice) Profile() groth16.Profile {
	p := d.claimingDevice.Profile()
	p.Prepared = func(groth16.Prepared) groth16.PrepareReport { return groth16.PrepareReport{Keeps: stagingBytes} }
	return p
}

func (d *aheadDevice) Run(ctx context.Context, w groth16.Prepared) (groth16.Partial, error) {
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
// that Run returns); the first Run's staging is claimed for it and its
// Prepare takes it. Where the first Run fails, the second reserves the
// rest itself; where the second job is cancelled while it waits, the share
// goes back to the staging, kept. Every claim ends, and at the end the
// budget holds the last kept staging's share alone.
func TestReserveAhead(t *testing.T) {
	const reserve = 1000 // testPlanner: half of it a, b, c
	errRun := errors.New("the first Run failed")
	for _, tc := range []struct {
		name               string
		fail, cancel       bool
		wantA, wantB       Status
		wantMade, wantBack int
		wantReused         int
	}{
		{"overlaps the Run", false, false, StatusCompleted, StatusCompleted, 1, 0, 1},
		{"the Run fails", true, false, StatusFailed, StatusCompleted, 0, 0, 0},
		{"the awaiting job is cancelled", false, true, StatusCompleted, StatusCancelled, 1, 1, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var env *testEnv
			secondID := make(chan string, 1)
			overlapped := make(chan bool, 1)
			dev := newAheadDevice(func(n int32) error {
				if n != 1 {
					return nil
				}
				both := within(5*time.Second, func() bool { return env.e.inflight.Load() == 2 })
				overlapped <- both
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
			waitFor(t, "the units to retire, the staging kept", func() bool {
				return env.e.inflight.Load() == 0 && env.budget.Used() == dev.keptBytes()
			})
			dev.mu.Lock()
			made, back, claimed, claims, reused := dev.made, dev.back, dev.claimed, dev.claims, dev.reused
			dev.mu.Unlock()
			if made != tc.wantMade || back != tc.wantBack || reused != tc.wantReused {
				t.Errorf("claims %d (back %d), reused %d; want %d (%d), %d", made, back, reused, tc.wantMade, tc.wantBack, tc.wantReused)
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
