package main

import (
	"context"
	"io"
	"log/slog"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/cuzk-project/cuzk/circuits"
	"github.com/cuzk-project/cuzk/circuits/synthetic"
	"github.com/cuzk-project/cuzk/engine"
	"github.com/cuzk-project/cuzk/groth16"
	"github.com/cuzk-project/cuzk/memory"
	"github.com/cuzk-project/cuzk/srs"
)

// TestDaemonChargesDevParams: the daemon's synthetic dev parameters are
// charged to the memory budget while resident, so the status's memory
// figure is their size once the job is done; they are listed with that
// size and no reference, evicted on request (the budget back to zero), and
// read again from the user cache directory by the next job.
func TestDaemonChargesDevParams(t *testing.T) {
	dir, err := os.MkdirTemp("", "cuzkm")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	cfg := testDaemonConfig(t, dir)
	eng, _, _, err := newDaemonEngine(cfg, slog.New(slog.NewTextHandler(io.Discard, nil)), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	sc := synthetic.Default(1 << 8)
	id := circuits.SyntheticID(sc)
	prove := func() {
		t.Helper()
		r, err := eng.Prove(context.Background(), engine.Request{Kind: engine.KindPoRepSealCommit, VanillaProof: circuits.SyntheticDescriptor(sc, 2)})
		if err != nil || r.Status != engine.StatusCompleted {
			t.Fatalf("prove: %v %v %q", err, r.Status, r.Error)
		}
	}
	prove()
	s := settled(t, eng)
	if len(s.SRS) != 1 || s.SRS[0].CircuitID != id || s.SRS[0].Tier != engine.TierHot || s.SRS[0].RefCount != 0 {
		t.Fatalf("SRS status %+v, want %s hot with no reference", s.SRS, id)
	}
	if s.MemoryUsed == 0 || s.MemoryUsed != s.SRS[0].SizeBytes {
		t.Fatalf("memory used %d with nothing running, want the dev parameters' %d bytes", s.MemoryUsed, s.SRS[0].SizeBytes)
	}
	was, freed, err := eng.Evict(id)
	if err != nil || !was || freed != s.SRS[0].SizeBytes {
		t.Fatalf("evict: %v %v %d, want %d bytes freed", err, was, freed, s.SRS[0].SizeBytes)
	}
	if used := eng.Budget().Used(); used != 0 {
		t.Fatalf("%d bytes used after evicting the only parameter set", used)
	}
	prove() // loads them again, from the user cache directory
	if s := settled(t, eng); s.MemoryUsed != s.SRS[0].SizeBytes || s.SRS[0].Tier != engine.TierHot {
		t.Fatalf("after reloading: %+v, memory used %d", s.SRS, s.MemoryUsed)
	}
}

// settled is the engine's status once no parameter set is referenced: a
// job's last unit gives its set back just after the job's result is out.
func settled(t *testing.T, eng *engine.Engine) engine.Snapshot {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		s := eng.Status()
		busy := false
		for _, e := range s.SRS {
			busy = busy || e.RefCount != 0
		}
		if !busy || time.Now().After(deadline) {
			return s
		}
		time.Sleep(time.Millisecond)
	}
}

// TestDaemonCountsSystem: with witness-only synthesis the compiled
// system's file mapping is counted in the memory budget while it is in use
// (nothing drops its pages on the CPU device) and in what the Go heap's
// limit leaves out (offHeap): the daemon's resident size showed it beside
// a heap held to the whole budget. Evicting the circuit's parameters ends
// the count; the next job counts it again.
func TestDaemonCountsSystem(t *testing.T) {
	dir, err := os.MkdirTemp("", "cuzkm")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	cfg := testDaemonConfig(t, dir)
	cfg.Synthesis.Witness = "on"
	heap := memory.NewHeapLimit(0) // not started: only its count is read
	eng, _, _, err := newDaemonEngine(cfg, slog.New(slog.NewTextHandler(io.Discard, nil)), heap)
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	sc := synthetic.Default(1 << 8)
	id := circuits.SyntheticID(sc)
	for round := range 2 { // the second after an eviction
		r, err := eng.Prove(context.Background(), engine.Request{Kind: engine.KindPoRepSealCommit, VanillaProof: circuits.SyntheticDescriptor(sc, 2)})
		if err != nil || r.Status != engine.StatusCompleted {
			t.Fatalf("round %d: prove: %v %v %q", round, err, r.Status, r.Error)
		}
		s := settled(t, eng)
		if len(s.SRS) != 1 {
			t.Fatalf("round %d: SRS status %+v, want one set", round, s.SRS)
		}
		system := heap.OffHeap()
		if system == 0 {
			t.Fatalf("round %d: the compiled system is not counted off the heap", round)
		}
		if s.MemoryUsed != s.SRS[0].SizeBytes+system {
			t.Fatalf("round %d: memory used %d with nothing running, want the parameters' %d and the system's %d bytes", round, s.MemoryUsed, s.SRS[0].SizeBytes, system)
		}
		if _, _, err := eng.Evict(id); err != nil {
			t.Fatal(err)
		}
		if used, system := eng.Budget().Used(), heap.OffHeap(); used != 0 || system != 0 {
			t.Fatalf("round %d: after the eviction %d bytes used, %d counted off the heap; want 0 and 0", round, used, system)
		}
	}
}

// TestMakeDeviceRoom: the CUDA loader's MakeRoom evicts the least recently
// used idle set and logs it, and reports false once nothing is evictable.
func TestMakeDeviceRoom(t *testing.T) {
	c := srs.New(srs.Config{
		Circuits: map[string]srs.Source{"old": {Size: 1}, "new": {Size: 1}},
		Load: func(context.Context, string, string) (*groth16.Params, error) {
			return &groth16.Params{}, nil
		},
	})
	for _, id := range []string{"old", "new"} {
		_, release, err := c.Acquire(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		release()
	}
	var logged strings.Builder
	log := slog.New(slog.NewTextHandler(&logged, nil))
	for i, want := range []bool{true, true, false} {
		if got := makeDeviceRoom(c, log); got != want {
			t.Fatalf("call %d: %v, want %v", i, got, want)
		}
	}
	if s := logged.String(); !strings.Contains(s, "circuit_id=old") || strings.Index(s, "circuit_id=old") > strings.Index(s, "circuit_id=new") {
		t.Fatalf("log %q: want old evicted before new", s)
	}
}
