package srs

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/cuzk-project/cuzk/memory"
)

// KeepWhile's rule keeps an entry from EvictIdle: the least recently used
// set that the rule keeps (CRITICAL or HIGH work due) stays and the next
// one goes; Status says why; an operator's Evict still evicts it.
func TestKeepWhile(t *testing.T) {
	f := &fakeLoader{}
	budget := memory.New(2 * unit)
	c := newCache(t, budget, f, "winning", "porep", "snap")
	c.KeepWhile(func(id string) string {
		if id == "winning" {
			return "CRITICAL work due"
		}
		return ""
	})
	use := func(id string) { t.Helper(); useSet(t, c, id) }
	use("winning") // the least recently used from here on
	use("porep")
	use("snap") // the budget holds two: porep, not winning, makes room
	tr := tiers(c)
	if tr["winning"] != Hot || tr["porep"] != Cold || tr["snap"] != Hot {
		t.Fatalf("tiers %v: want winning kept hot, porep evicted, snap hot", tr)
	}
	for _, e := range c.Status() {
		if want := map[string]string{"winning": "CRITICAL work due"}[e.CircuitID]; e.Kept != want {
			t.Fatalf("%s: Kept %q, want %q", e.CircuitID, e.Kept, want)
		}
	}
	if was, _, err := c.Evict("winning"); err != nil || !was {
		t.Fatalf("operator Evict of a kept set: %v, %v", was, err)
	}
	c.KeepWhile(nil)
	use("winning")
	use("porep") // nothing kept: snap, the least recently used, goes
	if tr := tiers(c); tr["snap"] != Cold || tr["winning"] != Hot || tr["porep"] != Hot {
		t.Fatalf("without the rule: tiers %v, want snap evicted", tr)
	}
}

// EvictLRU, which a loader short of device memory calls, evicts one set at
// a time, the least recently used first, never one that is referenced, kept
// (KeepWhile), younger than MinIdle or the one being loaded (it may be
// called from inside that load).
func TestEvictLRU(t *testing.T) {
	now := time.Unix(1000, 0)
	f := &fakeLoader{}
	c := New(Config{
		Circuits: map[string]Source{"a": {Size: unit}, "b": {Size: unit}, "held": {Size: unit}, "kept": {Size: unit},
			"young": {Size: unit}, "loading": {Size: unit}},
		Load: f.load, MinIdle: time.Minute, Now: func() time.Time { return now },
	})
	c.KeepWhile(func(id string) string {
		if id == "kept" {
			return "HIGH work queued"
		}
		return ""
	})
	use := func(id string) { t.Helper(); useSet(t, c, id) }
	use("kept")
	use("a")
	use("b")
	_, releaseHeld, err := c.Acquire(context.Background(), "held")
	if err != nil {
		t.Fatal(err)
	}
	defer releaseHeld()
	now = now.Add(2 * time.Minute) // all of them idle for MinIdle
	use("young")
	var inside []string
	f.fail = func(id string, _ int) error {
		if id == "loading" {
			for {
				got, _ := c.EvictLRU()
				if got == "" {
					break
				}
				inside = append(inside, got)
			}
		}
		return nil
	}
	use("loading")
	if want := []string{"a", "b"}; !slices.Equal(inside, want) {
		t.Fatalf("evicted %v from inside a load, want %v (least recently used first)", inside, want)
	}
	tr := tiers(c)
	for id, want := range map[string]Tier{"a": Cold, "b": Cold, "held": Hot, "kept": Hot, "young": Hot, "loading": Hot} {
		if tr[id] != want {
			t.Errorf("%s: %v, want %v", id, tr[id], want)
		}
	}
	if id, freed := c.EvictLRU(); id != "" || freed != 0 {
		t.Fatalf("EvictLRU with nothing evictable: %q, %d", id, freed)
	}
}

// useSet acquires id's parameters from c and releases them at once.
func useSet(t *testing.T, c *Cache, id string) {
	t.Helper()
	_, release, err := c.Acquire(context.Background(), id)
	if err != nil {
		t.Fatalf("acquire %s: %v", id, err)
	}
	release()
}
