package srs

import (
	"context"
	"testing"

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
	use := func(id string) {
		t.Helper()
		_, release, err := c.Acquire(context.Background(), id)
		if err != nil {
			t.Fatalf("acquire %s: %v", id, err)
		}
		release()
	}
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
