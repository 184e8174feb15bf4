package engine

import (
	"strings"
	"testing"
	"time"

	"github.com/cuzk-project/cuzk/device/sim"
)

// Urgent keeps a circuit's parameters while CRITICAL or HIGH work of it
// is queued or running and for UrgentWindow after; NORMAL work keeps
// nothing.
func TestUrgent(t *testing.T) {
	for _, tc := range []struct {
		name      string
		window    time.Duration
		keptAfter bool
	}{
		{"default window", 0, true},
		{"none after", -1, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := newTestEnv(t, sim.Config{}, func(c *Config) { c.UrgentWindow = tc.window })
			if r := env.e.Urgent("test"); r != "" {
				t.Fatalf("before any job: %q", r)
			}
			env.submit(t, "bulk", KindPoRepSealCommit, PriorityNormal, testJob{Tag: 1, Parts: 1})
			if r := env.await(t, "bulk"); r.Status != StatusCompleted {
				t.Fatalf("bulk: %v %s", r.Status, r.Error)
			}
			if r := env.e.Urgent("test"); r != "" {
				t.Fatalf("after NORMAL work: %q", r)
			}
			env.submit(t, "wpost", KindWindowPoStPartition, PriorityUnspecified, testJob{Tag: 2, Parts: 1, Gate: "wpost"})
			if r := env.e.Urgent("test"); !strings.Contains(r, "1 HIGH job(s) queued or running") {
				t.Fatalf("with a HIGH job queued: %q", r)
			}
			if r := env.e.Urgent("other"); r != "" {
				t.Fatalf("another circuit: %q", r)
			}
			close(env.planner.gate("wpost"))
			if r := env.await(t, "wpost"); r.Status != StatusCompleted {
				t.Fatalf("wpost: %v %s", r.Status, r.Error)
			}
			r := env.e.Urgent("test")
			if tc.keptAfter != (r != "") || (tc.keptAfter && !strings.Contains(r, "HIGH work")) {
				t.Fatalf("after the HIGH job: %q, want kept %v", r, tc.keptAfter)
			}
		})
	}
}

// A cancelled CRITICAL job stops keeping its parameters once it ends.
func TestUrgentCancelled(t *testing.T) {
	env := newTestEnv(t, sim.Config{}, func(c *Config) { c.UrgentWindow = -1 })
	env.submit(t, "w", KindWinningPoSt, PriorityUnspecified, testJob{Tag: 1, Parts: 1, Gate: "never"})
	if r := env.e.Urgent("test"); !strings.Contains(r, "CRITICAL") {
		t.Fatalf("queued CRITICAL job: %q", r)
	}
	if _, err := env.e.Cancel("w"); err != nil {
		t.Fatal(err)
	}
	env.await(t, "w")
	if r := env.e.Urgent("test"); r != "" {
		t.Fatalf("after cancel: %q", r)
	}
}
