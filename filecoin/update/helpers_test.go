package update_test

import (
	"context"
	"sync"
	"testing"

	"github.com/cuzk-project/cuzk/filecoin/gen"
	"github.com/cuzk-project/cuzk/filecoin/update"
)

var (
	snapsMu sync.Mutex
	snaps   = map[update.Proof]*gen.Snap{}
)

// generated is filecoin/gen's update of p from seed 1, made once per test
// binary. Sizes above 2 KiB are skipped in -short.
func generated(t testing.TB, p update.Proof) *gen.Snap {
	t.Helper()
	if p != update.StackedDrg2KiBV1 && testing.Short() {
		t.Skipf("%v: not in -short", p)
	}
	snapsMu.Lock()
	defer snapsMu.Unlock()
	if s, ok := snaps[p]; ok {
		return s
	}
	s, err := gen.GenerateSnap(context.Background(), gen.SnapOptions{Proof: p, Seed: 1, Miner: 1000, Sector: 7})
	if err != nil {
		t.Fatal(err)
	}
	snaps[p] = s
	return s
}
