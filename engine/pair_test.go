package engine

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cuzk-project/cuzk/device/sim"
	"github.com/cuzk-project/cuzk/groth16"
	"github.com/cuzk-project/cuzk/timeline"
)

// pairingDevice is a sim device that pairs the partitions of the circuits
// in pairs (groth16.Profile.Pairs): RunPair runs both with Run, counts the
// pairs and the partitions they held, and fails where fail says so.
type pairingDevice struct {
	*sim.Device
	pairs map[*groth16.Params]bool
	fail  error         // RunPair's error, if set
	hold  chan struct{} // Prepare waits for it to close (release)
	once  sync.Once

	mu            sync.Mutex
	pairRuns      int
	paired        map[*groth16.Assignment]bool
	singles       int
	concurrent    int
	maxConcurrent int
}

func (d *pairingDevice) release() { d.once.Do(func() { close(d.hold) }) }

func (d *pairingDevice) Prepare(ctx context.Context, a *groth16.Assignment, p *groth16.Params) (groth16.Prepared, error) {
	<-d.hold
	return d.Device.Prepare(ctx, a, p)
}

func (d *pairingDevice) Run(ctx context.Context, w groth16.Prepared) (groth16.Partial, error) {
	d.mu.Lock()
	d.singles++
	d.mu.Unlock()
	return d.Device.Run(ctx, w)
}

func (d *pairingDevice) Profile() groth16.Profile {
	p := d.Device.Profile()
	p.Pairs = func(params *groth16.Params) bool { return d.pairs[params] }
	p.RunPair = func(ctx context.Context, w0, w1 groth16.Prepared) (groth16.Partial, groth16.Partial, error) {
		d.mu.Lock()
		d.pairRuns++
		d.concurrent++
		d.maxConcurrent = max(d.maxConcurrent, d.concurrent)
		d.mu.Unlock()
		defer func() {
			d.mu.Lock()
			d.concurrent--
			d.mu.Unlock()
		}()
		if d.fail != nil {
			groth16.Discard(d.Device, w0)
			groth16.Discard(d.Device, w1)
			return nil, nil, d.fail
		}
		p0, err := d.Device.Run(ctx, w0)
		if err != nil {
			return nil, nil, err
		}
		p1, err := d.Device.Run(ctx, w1)
		if err != nil {
			return nil, nil, err
		}
		return p0, p1, nil
	}
	return p
}

func newPairingEnv(t *testing.T, fail error, workers int) (*testEnv, *pairingDevice) {
	params := testParams()
	params["other"] = &groth16.Params{VK: params["test"].VK}
	dev := &pairingDevice{Device: sim.New(sim.Config{}), pairs: map[*groth16.Params]bool{params["test"]: true}, fail: fail,
		hold: make(chan struct{})}
	env := newTestEnv(t, sim.Config{}, func(c *Config) {
		c.Devices = []groth16.Device{dev}
		c.Params = params
		c.WorkersPerDevice = workers
	})
	t.Cleanup(dev.release) // (before the engine's Close, which waits for the workers)
	return env, dev
}

func TestPairedRuns(t *testing.T) {
	for _, workers := range []int{1, 2} {
		t.Run(fmt.Sprintf("workers=%d", workers), func(t *testing.T) {
			env, dev := newPairingEnv(t, nil, workers)
			var ids []string
			for i := range 3 {
				ids = append(ids, env.submit(t, fmt.Sprintf("porep-%d", i), KindPoRepSealCommit, PriorityUnspecified,
					testJob{Tag: uint64(10 + i), Parts: 5}))
			}
			other := env.submit(t, "other", KindPoRepSealCommit, PriorityUnspecified, testJob{Tag: 20, Parts: 3, Circuit: "other"})
			// the workers' first units wait in Prepare until others are
			// queued for the device (as many as the memory budget admits)
			waitFor(t, "partitions to queue", func() bool { return env.e.devQ.len() >= 4 })
			dev.release()
			for _, id := range append(ids, other) {
				if r := env.await(t, id); r.Status != StatusCompleted {
					t.Fatalf("%s: %v %s", id, r.Status, r.Error)
				}
			}
			dev.mu.Lock()
			defer dev.mu.Unlock()
			// 15 partitions of the paired circuit, 3 of the other: at least
			// some pairs, every partition of "other" alone
			if dev.pairRuns == 0 {
				t.Fatalf("no paired run (%d single runs)", dev.singles)
			}
			if got := 2*dev.pairRuns + dev.singles; got != 18 {
				t.Fatalf("%d pairs and %d runs for 18 partitions", dev.pairRuns, dev.singles)
			}
			if dev.singles < 3 {
				t.Fatalf("%d runs outside pairs: the other circuit's 3 partitions must run alone", dev.singles)
			}
			if dev.maxConcurrent > 1 {
				t.Fatalf("%d paired runs at once under one device lock", dev.maxConcurrent)
			}
		})
	}
}

func TestPairedRunFails(t *testing.T) {
	// one worker: whether it takes its first unit alone or with a partner,
	// the units queued while it waits in Prepare make a pair after
	env, dev := newPairingEnv(t, errors.New("pair went wrong"), 1)
	id := env.submit(t, "porep", KindPoRepSealCommit, PriorityUnspecified, testJob{Tag: 1, Parts: 4})
	waitFor(t, "the partitions to queue", func() bool { return len(env.events(timeline.DevQueue)) == 4 })
	dev.release()
	r := env.await(t, id)
	if r.Status != StatusFailed || !strings.Contains(r.Error, "pair went wrong") {
		t.Fatalf("want the pair's error, got %v %q", r.Status, r.Error)
	}
	// the engine serves on
	id = env.submit(t, "other", KindPoRepSealCommit, PriorityUnspecified, testJob{Tag: 2, Parts: 2, Circuit: "other"})
	if r := env.await(t, id); r.Status != StatusCompleted {
		t.Fatalf("after a failed pair: %v %s", r.Status, r.Error)
	}
}

// cancellingPairDevice cancels job cancel (through the engine) in the
// Prepare of that job's partition.
type cancellingPairDevice struct {
	*pairingDevice
	e      *Engine
	cancel string
	tag    uint64
}

func (d *cancellingPairDevice) Prepare(ctx context.Context, a *groth16.Assignment, p *groth16.Params) (groth16.Prepared, error) {
	w, err := d.pairingDevice.Prepare(ctx, a, p)
	if err == nil && isUnit(a, d.tag, 0) {
		if _, err := d.e.Cancel(d.cancel); err != nil {
			return nil, err
		}
	}
	return w, err
}

// TestPairedRunCancelled: one of two paired partitions' job is cancelled
// before the lock is taken; the other runs alone and completes.
func TestPairedRunCancelled(t *testing.T) {
	params := testParams()
	params["other"] = &groth16.Params{VK: params["test"].VK}
	pd := &pairingDevice{Device: sim.New(sim.Config{}), pairs: map[*groth16.Params]bool{params["test"]: true},
		hold: make(chan struct{})}
	t.Cleanup(pd.release)
	dev := &cancellingPairDevice{pairingDevice: pd, cancel: "b", tag: 2}
	env := newTestEnv(t, sim.Config{}, func(c *Config) {
		c.Devices = []groth16.Device{dev}
		c.Params = params
		c.WorkersPerDevice = 1
	})
	dev.e = env.e
	// the first job's unit (another set) holds the worker in Prepare until a's and b's are queued
	first := env.submit(t, "first", KindPoRepSealCommit, PriorityUnspecified, testJob{Tag: 3, Parts: 1, Circuit: "other"})
	waitFor(t, "the first unit to reach the worker", func() bool { return len(env.events(timeline.DevPickup)) == 1 })
	a := env.submit(t, "a", KindPoRepSealCommit, PriorityUnspecified, testJob{Tag: 1, Parts: 1})
	b := env.submit(t, "b", KindPoRepSealCommit, PriorityUnspecified, testJob{Tag: 2, Parts: 1})
	waitFor(t, "a and b to queue", func() bool { return env.e.devQ.len() == 2 })
	pd.release()
	if r := env.await(t, first); r.Status != StatusCompleted {
		t.Fatalf("first: %v %s", r.Status, r.Error)
	}
	if r := env.await(t, a); r.Status != StatusCompleted {
		t.Fatalf("a: %v %s", r.Status, r.Error)
	}
	if r := env.await(t, b); r.Status != StatusCancelled {
		t.Fatalf("b: %v %s, want cancelled", r.Status, r.Error)
	}
	pd.mu.Lock()
	defer pd.mu.Unlock()
	// a and b were taken together (b's Prepare ran: it cancelled b), then a ran alone
	if pd.pairRuns != 0 || pd.singles != 2 {
		t.Fatalf("%d pairs, %d runs: want the first unit and a, alone", pd.pairRuns, pd.singles)
	}
	if n := env.count(timeline.PrepEnd, b); n != 1 {
		t.Fatalf("b prepared %d times, want once (as a's partner)", n)
	}
	var bPrep, aHeld time.Duration = -1, -1
	for _, e := range env.events(timeline.PrepEnd) {
		if e.Job == b {
			bPrep = e.At
		}
	}
	for _, e := range env.events(timeline.LockHeld) {
		if e.Job == a {
			aHeld = e.At
		}
	}
	if bPrep < 0 || aHeld < 0 || bPrep > aHeld {
		t.Fatalf("b prepared at %v, a's lock held at %v: b was not taken with a", bPrep, aHeld)
	}
}
