package engine

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/cuzk-project/cuzk/device/sim"
	"github.com/cuzk-project/cuzk/groth16"
)

// TestDeviceLostMovesItsUnits: a device lost mid-run (its steps fail with
// groth16.ErrDeviceLost from then on) gets no more units; the units it held
// are synthesized again and proved on the other device; every job
// completes and the status names the loss.
func TestDeviceLostMovesItsUnits(t *testing.T) {
	second := sim.New(sim.Config{Name: "sim-1", Run: 3 * time.Millisecond, Finish: time.Millisecond})
	env := newTestEnv(t, sim.Config{Name: "sim-0", Run: 3 * time.Millisecond, Finish: time.Millisecond}, func(c *Config) {
		c.Devices = append(c.Devices, second)
		c.SynthesisWorkers = 4
	})
	lost := make(chan int64)
	go func() {
		for second.Runs() < 3 {
			time.Sleep(100 * time.Microsecond)
		}
		second.Lose()
		lost <- second.Runs()
	}()
	var ids []string
	for i := range 4 {
		id := fmt.Sprintf("job-%d", i)
		env.submit(t, id, KindPoRepSealCommit, PriorityUnspecified, testJob{Tag: uint64(i + 1), Parts: 8})
		ids = append(ids, id)
	}
	for _, id := range ids {
		if r := env.await(t, id); r.Status != StatusCompleted {
			t.Fatalf("%s: %v %s", id, r.Status, r.Error)
		}
	}
	atLoss := <-lost
	// More work after the loss goes to the first device only.
	env.submit(t, "after", KindPoRepSealCommit, PriorityUnspecified, testJob{Tag: 9, Parts: 6})
	if r := env.await(t, "after"); r.Status != StatusCompleted {
		t.Fatalf("after the loss: %v %s", r.Status, r.Error)
	}
	if n := second.Runs(); n > atLoss+2 { // Runs in flight when it was lost may still count
		t.Errorf("the lost device ran %d units after the loss (%d at the loss)", n, atLoss)
	}
	st := env.e.Status()
	if st.Devices[0].Lost != "" || !strings.Contains(st.Devices[1].Lost, groth16.ErrDeviceLost.Error()) {
		t.Fatalf("status: device 0 lost %q, device 1 lost %q", st.Devices[0].Lost, st.Devices[1].Lost)
	}
	if env.dev.Runs() < 6 {
		t.Fatalf("the first device ran only %d units", env.dev.Runs())
	}
}

// TestEveryDeviceLost: with the only device lost, jobs fail with an error
// that says so instead of waiting for a device forever.
func TestEveryDeviceLost(t *testing.T) {
	env := newTestEnv(t, sim.Config{}, nil)
	env.dev.Lose()
	for _, id := range []string{"first", "second"} {
		env.submit(t, id, KindPoRepSealCommit, PriorityUnspecified, testJob{Tag: 1, Parts: 3})
		r := env.await(t, id)
		if r.Status != StatusFailed || !strings.Contains(r.Error, "no proving device is left") {
			t.Fatalf("%s: %v %q, want a failure naming the lost devices", id, r.Status, r.Error)
		}
	}
	// The failed units give their memory back as they retire, just after
	// the job's result (the test budget is too small for a CRITICAL
	// headroom).
	for deadline := time.Now().Add(5 * time.Second); env.budget.Used() != 0 && time.Now().Before(deadline); {
		time.Sleep(time.Millisecond)
	}
	if used := env.budget.Used(); used != 0 {
		t.Errorf("the budget holds %d bytes after the failures", used)
	}
}
