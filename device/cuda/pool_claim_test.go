package cuda

import (
	"testing"

	"github.com/cuzk-project/cuzk/memory"
)

// TestPinnedPoolClaim: a claim takes the share of a kept a, b staging of
// about its size (never a split's or a witness's, never one too small or
// too large), leaving the staging claimed: the budget unchanged, the
// staging outside EvictKept's and KeptBytes' reach, and the next get of
// its size taking it before any kept with a share. Its end: given back,
// the share returns to a claimed staging left (or is closed where a get
// took it); joined, a claimed staging no open claim is left for is let go.
func TestPinnedPoolClaim(t *testing.T) {
	const n = 8 << 30
	for _, tc := range []struct {
		name        string
		claimN      uint64 // the claim's size
		kind        keptKind
		wantClaim   bool
		getFirst    bool // a get of n takes the claimed staging before the claim ends
		back        bool // the share given back, not joined
		wantShared  int  // stagings kept with a share at the end
		wantFreed   int  // buffers freed at the end (before EvictKept)
		wantBudget  uint64
		wantGetKept bool // a get of n after the claim ended finds a kept staging
	}{
		{"a, b staging, joined, its Prepare takes it", n, keptAB, true, true, false, 0, 0, 0, false},
		{"a, b staging, joined, taken by no Prepare: let go", n, keptAB, true, false, false, 0, 1, 0, false},
		{"a, b staging, given back: kept again", n, keptAB, true, false, true, 1, 0, n, true},
		{"a, b staging, given back after a get took it: share closed", n, keptAB, true, true, true, 0, 0, 0, false},
		{"a little smaller claim fits", n - n/16, keptAB, true, false, true, 1, 0, n, true},
		{"a larger claim does not fit", n + 1, keptAB, false, false, false, 1, 0, n, true},
		{"a much smaller claim does not fit", n / 2, keptAB, false, false, false, 1, 0, n, true},
		{"a witness staging is never claimed", n, keptWitness, false, false, false, 1, 0, n, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, _, freed := oneWorkerPool(1 << 10)
			budget := memory.New(1 << 40)
			giveBack(p, budget, n, tc.kind, p.newSet(), sizeClass(n))
			share := p.claim(tc.claimN)
			if (share != nil) != tc.wantClaim {
				t.Fatalf("claim of %d: %v, want a claim %v", tc.claimN, share, tc.wantClaim)
			}
			if share != nil {
				if share.Held() != n || budget.Used() != n {
					t.Fatalf("claim: share holds %d, the budget %d; want %d both", share.Held(), budget.Used(), n)
				}
				if p.sharedBytes() != 0 || p.evictShared() != 0 || len(*freed) != 0 {
					t.Fatalf("a claimed staging counted as kept or evicted (freed %v)", *freed)
				}
				if tc.getFirst {
					b, kept, err := p.getKept(n)
					if err != nil || !kept || b.n != n {
						t.Fatalf("get of the claimed size: %d bytes, kept %v, %v; want the claimed staging", b.n, kept, err)
					}
				}
				done := p.claimDone(tc.claimN, share)
				done(tc.back)
				done(tc.back) // once
				if !tc.back {
					share.Close() // the claimer's reservation, which joined it, ends
				}
			}
			p.bg.Wait()
			if got := len(p.shared); got != tc.wantShared || len(*freed) != tc.wantFreed || budget.Used() != tc.wantBudget {
				t.Errorf("kept %d with a share, freed %v, budget %d; want %d, %d freed, %d", got, *freed, budget.Used(),
					tc.wantShared, tc.wantFreed, tc.wantBudget)
			}
			if p.claims != 0 || len(p.claimed) != 0 {
				t.Errorf("%d claims open, %d stagings claimed at the end", p.claims, len(p.claimed))
			}
			if _, kept, _ := p.getKept(n); kept != tc.wantGetKept {
				t.Errorf("a get of %d after the claim: kept %v, want %v", n, kept, tc.wantGetKept)
			}
		})
	}
}

// TestPinnedPoolClaimTwo: two claims of two kept stagings; the first
// claimer's Prepare takes one, the second claimer never prepares here:
// its end lets the other go. A claim while none is kept gets nothing, and
// a drained pool frees what is claimed and claims nothing.
func TestPinnedPoolClaimTwo(t *testing.T) {
	const n = 1 << 30
	p, _, freed := oneWorkerPool(1 << 10)
	p.workers.Store(2)
	budget := memory.New(1 << 40)
	b1, _ := p.get(n)
	b2, _ := p.get(n)
	for _, b := range []pinned{b1, b2} {
		share, _ := budget.TryReserve(b.n)
		p.putKept(b, share, keptAB, p.newSet(), sizeClass(n))
	}
	s1, s2 := p.claim(n), p.claim(n)
	if s1 == nil || s2 == nil || p.claim(n) != nil {
		t.Fatalf("claims: %v, %v; want two and no third", s1, s2)
	}
	if _, kept, _ := p.getKept(n); !kept {
		t.Fatal("the first claimer's get found no claimed staging")
	}
	p.claimDone(n, s1)(false)
	if len(p.claimed) != 1 || len(*freed) != 0 {
		t.Fatalf("after the first claim's end: %d claimed, freed %v; want 1 claimed for the open claim", len(p.claimed), *freed)
	}
	p.claimDone(n, s2)(false)
	p.bg.Wait()
	if len(p.claimed) != 0 || len(*freed) != 1 {
		t.Fatalf("after the second claim's end: %d claimed, freed %v; want it let go", len(p.claimed), *freed)
	}
	s1.Close()
	s2.Close()
	giveBack(p, budget, n, keptAB, p.newSet(), sizeClass(n))
	if p.claim(n) == nil {
		t.Fatal("no claim of a kept staging")
	}
	p.drain()
	if len(p.claimed) != 0 || len(*freed) != 2 || p.claim(n) != nil {
		t.Fatalf("drained: %d claimed, freed %v; want it freed and no claim", len(p.claimed), *freed)
	}
}

// TestDeviceClaimKept: the device claims a kept a, b staging for a
// classic partition of the rows whose Prepare takes it (64 bytes a row),
// never for a partition of another size, and its claim's Done ends it
// once. No GPU: the pool's buffers are fake; under a memory limit every
// partition takes the classic path.
func TestDeviceClaimKept(t *testing.T) {
	const rows = 1 << 20
	for _, tc := range []struct {
		name      string
		rows      int
		wantClaim bool
	}{
		{"its rows", rows, true},
		{"a few rows fewer (a staging up to an eighth larger serves)", rows - rows/20, true},
		{"more rows", rows + 1, false},
		{"half the rows", rows / 2, false},
		{"no rows", 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var freed []uint64
			keep := int64(1 << 10)
			d := &Device{MemoryLimit: 16 << 30}
			fp := fakePool(&keep, &freed)
			d.pool.keep, d.pool.alloc, d.pool.release = fp.keep, fp.alloc, fp.release
			d.pool.workers.Store(1)
			budget := memory.New(1 << 40)
			giveBack(&d.pool, budget, 2*rows*32, keptAB, d.pool.newSet(), sizeClass(2*rows*32))
			c := d.Profile().ClaimKept(tc.rows, tc.rows+10)
			if (c != nil) != tc.wantClaim {
				t.Fatalf("claim for %d rows: %v, want one %v", tc.rows, c, tc.wantClaim)
			}
			if c == nil {
				return
			}
			if c.Share.Held() != 2*rows*32 || !c.Share.Of(budget) {
				t.Fatalf("claim share %d bytes, want the staging's %d of the budget", c.Share.Held(), 2*rows*32)
			}
			c.Done(true)
			c.Done(false) // once: the first end stands
			if d.KeptBytes() != 2*rows*32 || len(freed) != 0 {
				t.Fatalf("after the share came back: %d kept, freed %v; want the staging kept again", d.KeptBytes(), freed)
			}
		})
	}
}
