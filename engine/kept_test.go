package engine

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cuzk-project/cuzk/device/sim"
	"github.com/cuzk-project/cuzk/groth16"
	"github.com/cuzk-project/cuzk/memory"
)

// keepingDevice is a sim device that keeps a staging of stagingBytes after
// every Run as the CUDA device keeps its a, b staging: with the share the
// engine hands it (groth16.RunReport.KeepStaging), taken by the next Prepare (the share
// closed) and freed by EvictKept.
type keepingDevice struct {
	*sim.Device
	mu      sync.Mutex
	kept    []*memory.Reservation
	shares  []*memory.Reservation // every share handed, nil among them
	reused  int
	evicted uint64
}

const stagingBytes = 300

type keepingPartial struct {
	groth16.Partial
	d    *keepingDevice
	kept bool // the Run kept its staging while in flight (groth16.StagingDone)
}

func (d *keepingDevice) Profile() groth16.Profile {
	p := d.Device.Profile()
	p.Ran = func(x groth16.Partial) groth16.RunReport {
		if x.(*keepingPartial).kept {
			return groth16.RunReport{}
		}
		return groth16.RunReport{StagingBytes: stagingBytes, KeepStaging: d.keep}
	}
	p.KeptBytes, p.EvictKept = d.keptBytes, d.evictKept
	return p
}

// keep keeps a staging with share (RunReport.KeepStaging).
func (d *keepingDevice) keep(share *memory.Reservation) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.shares = append(d.shares, share)
	if share != nil {
		d.kept = append(d.kept, share)
	}
}

func (d *keepingDevice) Prepare(ctx context.Context, a *groth16.Assignment, p *groth16.Params) (groth16.Prepared, error) {
	d.mu.Lock()
	if n := len(d.kept); n > 0 {
		d.kept[n-1].Close() // this unit's reservation counts the staging now
		d.kept = d.kept[:n-1]
		d.reused++
	}
	d.mu.Unlock()
	return d.Device.Prepare(ctx, a, p)
}

func (d *keepingDevice) Run(ctx context.Context, w groth16.Prepared) (groth16.Partial, error) {
	p, err := d.Device.Run(ctx, w)
	if err != nil {
		return nil, err
	}
	return &keepingPartial{Partial: p, d: d}, nil
}

func (d *keepingDevice) Finish(ctx context.Context, p groth16.Partial) (*groth16.Sums, error) {
	return d.Device.Finish(ctx, p.(*keepingPartial).Partial)
}

func (d *keepingDevice) keptBytes() (n uint64) {
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, r := range d.kept {
		n += r.Held()
	}
	return n
}

func (d *keepingDevice) evictKept() (freed uint64) {
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, r := range d.kept {
		freed += r.Held()
		r.Close()
	}
	d.kept = nil
	d.evicted += freed
	return freed
}

func (d *keepingDevice) counts() (kept, reused int, evicted uint64) {
	d.mu.Lock()
	defer d.mu.Unlock()
	return len(d.kept), d.reused, d.evicted
}

// TestKeptStaging: after Run the engine hands the device the staging's
// share of the unit's reservation; the budget counts the kept staging
// between jobs, the next job's Prepare takes it (its own reservation
// counts it then), and where a unit does not fit beside it with nothing in
// flight, the engine evicts it rather than wait or fail, before asking the
// budget's evictor (the parameter cache's: a reload is dear).
func TestKeptStaging(t *testing.T) {
	const reserve = 1000 // testPlanner: half of it a, b, c
	for _, tc := range []struct {
		name        string
		budget      uint64
		wantReused  int    // by the second job's Prepare
		wantEvicted uint64 // to let the second job's unit in
	}{
		{"room for both: reused", 10 * reserve, 1, 0},
		{"room for the unit alone: evicted", reserve + stagingBytes - 1, 0, stagingBytes},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dev := &keepingDevice{Device: sim.New(sim.Config{})}
			var asked atomic.Int32
			env := newTestEnv(t, sim.Config{}, func(c *Config) {
				c.Devices = []groth16.Device{dev}
				c.Budget = memory.New(tc.budget)
				c.Budget.SetEvictor(func(uint64) uint64 { asked.Add(1); return 0 })
				c.WorkersPerDevice = 1
			})
			for i, id := range []string{"first", "second"} {
				jid := env.submit(t, id, KindPoRepSealCommit, PriorityNormal, testJob{Tag: uint64(7 + i), Parts: 1, Reserve: reserve})
				if r := env.await(t, jid); r.Status != StatusCompleted {
					t.Fatalf("%s: job %v: %s", id, r.Status, r.Error)
				}
				// Nothing in flight once the unit is retired (after its
				// reservation ends): the next job's unit then finds no unit
				// that will give memory back, the case under test.
				waitFor(t, "the unit's reservation to end and the unit to retire", func() bool {
					return env.budget.Used() == stagingBytes && env.e.inflight.Load() == 0
				})
			}
			if got := env.e.Status().Devices[0].KeptBytes; got != stagingBytes {
				t.Errorf("status: %d bytes kept, want %d", got, stagingBytes)
			}
			if n := asked.Load(); n != 0 {
				t.Errorf("the budget's evictor was asked %d times", n)
			}
			kept, reused, evicted := dev.counts()
			if kept != 1 || reused != tc.wantReused || evicted != tc.wantEvicted {
				t.Errorf("kept %d, reused %d, evicted %d bytes; want 1, %d, %d", kept, reused, evicted, tc.wantReused, tc.wantEvicted)
			}
			for i, s := range dev.shares {
				if s == nil || s.Size() != stagingBytes {
					t.Errorf("share %d: %v, want %d bytes of the unit's reservation", i, s, stagingBytes)
				}
			}
			if freed := env.e.evictIdle(); freed != stagingBytes || env.budget.Used() != 0 {
				t.Errorf("evictIdle freed %d, the budget holds %d; want %d freed and empty", freed, env.budget.Used(), stagingBytes)
			}
		})
	}
}

// TestKeptStagingCritical: a unit whose memory came from the CRITICAL
// headroom hands the device no share (kept buffers must not hold the
// headroom); one from the budget hands the staging's bytes.
func TestKeptStagingCritical(t *testing.T) {
	dev := &keepingDevice{Device: sim.New(sim.Config{})}
	env := newTestEnv(t, sim.Config{}, func(c *Config) { c.Devices = []groth16.Device{dev} })
	head := memory.New(1000)
	for _, tc := range []struct {
		name  string
		from  *memory.Budget
		share uint64 // 0: nil
	}{
		{"budget", env.budget, stagingBytes},
		{"headroom", head, 0},
	} {
		res, ok := tc.from.TryReserve(500)
		if !ok {
			t.Fatal("no room")
		}
		dev.shares = nil
		env.e.keepStaging(&unit{res: res}, dev.Profile().OfRun(&keepingPartial{d: dev}))
		switch s := dev.shares; {
		case len(s) != 1:
			t.Fatalf("%s: %d shares handed", tc.name, len(s))
		case tc.share == 0 && s[0] != nil, tc.share != 0 && (s[0] == nil || s[0].Size() != tc.share):
			t.Errorf("%s: share %v, want %d bytes", tc.name, s[0], tc.share)
		}
		dev.evictKept()
		res.Close()
	}
	if head.Used() != 0 || env.budget.Used() != 0 {
		t.Fatalf("budgets hold %d and %d bytes", env.budget.Used(), head.Used())
	}
}

// TestKeptStagingConcurrent: jobs of several partitions at once on two
// workers, under budgets that hold one to three units beside the kept
// stagings (run with -race): every job completes, nothing waits for good
// behind memory a kept staging holds, the stagings are reused, and at the
// end the budget holds the kept stagings' shares alone.
func TestKeptStagingConcurrent(t *testing.T) {
	const reserve = 1000
	for _, budget := range []uint64{reserve + 2*stagingBytes, 3*reserve + stagingBytes} {
		t.Run(fmt.Sprintf("budget%d", budget), func(t *testing.T) {
			dev := &keepingDevice{Device: sim.New(sim.Config{})}
			env := proveKeptJobs(t, dev, budget, reserve)
			waitFor(t, "the units' reservations to end", func() bool { return env.budget.Used() == dev.keptBytes() })
			_, reused, _ := dev.counts()
			if reused == 0 {
				t.Error("no Prepare reused a kept staging")
			}
			t.Logf("24 partitions: %d Prepares reused a kept staging, %d bytes kept at the end, peak %d of %d", reused,
				dev.keptBytes(), env.budget.Peak(), budget)
		})
	}
}

// proveKeptJobs proves 6 jobs of 4 partitions of reserve bytes each on
// dev, 2 workers and 4 syntheses under a budget of budget bytes, and
// returns once every job completed.
func proveKeptJobs(t *testing.T, dev groth16.Device, budget, reserve uint64) *testEnv {
	t.Helper()
	env := newTestEnv(t, sim.Config{}, func(c *Config) {
		c.Devices = []groth16.Device{dev}
		c.Budget = memory.New(budget)
		c.WorkersPerDevice = 2
		c.SynthesisWorkers = 4
	})
	var ids []string
	for i := range 6 {
		ids = append(ids, env.submit(t, fmt.Sprintf("job-%d", i), KindPoRepSealCommit, PriorityNormal,
			testJob{Tag: uint64(20 + i), Parts: 4, Reserve: reserve}))
	}
	for _, id := range ids {
		if r := env.await(t, id); r.Status != StatusCompleted {
			t.Fatalf("%s: job %v: %s", id, r.Status, r.Error)
		}
	}
	return env
}

// gatedKeeping is a keepingDevice whose EvictKept, once entered, says so
// on entered and waits for release: a page-locked free that takes long.
type gatedKeeping struct {
	*keepingDevice
	entered, release chan struct{}
}

func (d *gatedKeeping) Profile() groth16.Profile {
	p := d.keepingDevice.Profile()
	p.EvictKept = func() uint64 {
		close(d.entered)
		<-d.release
		return d.evictKept()
	}
	return p
}

// TestCriticalNotBehindKeptEviction: while the kept stagings are freed to
// make room for a NORMAL unit (nothing in flight, the budget full), a
// CRITICAL job arriving meanwhile completes before the frees end: they run
// off the dispatcher's path, and the NORMAL unit's wait for their room
// yields to it. Then the NORMAL job completes.
func TestCriticalNotBehindKeptEviction(t *testing.T) {
	const reserve, headroom = 1000, 200
	dev := &gatedKeeping{keepingDevice: &keepingDevice{Device: sim.New(sim.Config{})},
		entered: make(chan struct{}), release: make(chan struct{})}
	env := newTestEnv(t, sim.Config{}, func(c *Config) {
		c.Devices = []groth16.Device{dev}
		c.Budget = memory.New(reserve + stagingBytes - 1 + headroom) // the unit fits, not beside the staging
		c.CriticalHeadroom = headroom
		c.WorkersPerDevice = 1
	})
	first := env.submit(t, "first", KindPoRepSealCommit, PriorityNormal, testJob{Tag: 7, Parts: 1, Reserve: reserve})
	if r := env.await(t, first); r.Status != StatusCompleted {
		t.Fatalf("first: %v: %s", r.Status, r.Error)
	}
	waitFor(t, "the first unit to retire, its staging kept", func() bool {
		return env.e.inflight.Load() == 0 && dev.keptBytes() == stagingBytes
	})
	second := env.submit(t, "second", KindPoRepSealCommit, PriorityNormal, testJob{Tag: 8, Parts: 1, Reserve: reserve})
	select {
	case <-dev.entered:
	case <-time.After(10 * time.Second):
		t.Fatal("the kept staging was never evicted for the second job")
	}
	crit := env.submit(t, "winning", KindWinningPoSt, PriorityUnspecified, testJob{Tag: 9, Parts: 1, Reserve: headroom})
	done := make(chan Result, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		r, err := env.e.Await(ctx, crit, 0)
		if err != nil {
			r.Error = err.Error()
		}
		done <- r
	}()
	r := <-done
	close(dev.release)
	if r.Status != StatusCompleted {
		t.Fatalf("the CRITICAL job while the staging was being freed: %v %q, want it completed meanwhile", r.Status, r.Error)
	}
	if r := env.await(t, second); r.Status != StatusCompleted {
		t.Fatalf("second: %v: %s", r.Status, r.Error)
	}
}
