package cuda

import (
	"slices"
	"testing"
)

// TestPinnedPoolRetiredWhileRunning: what the pool lets go while a Run is
// in flight is kept, still counted by its share, until a Run ends with
// nothing else in flight; EvictKept and drain free it at once.
func TestPinnedPoolRetiredWhileRunning(t *testing.T) {
	const big = 1 << 30
	for _, tc := range []struct {
		name string
		// after the staging is retired with the device Run in flight: what
		// ends it (returns the bytes EvictKept gave back, -1 when none ran)
		end      func(p *pinnedPool) int64
		wantFree bool
	}{
		{"the device's Run ends", func(p *pinnedPool) int64 { p.runEnd(true); return -1 }, true},
		{"a lane's Run ends, the device's still runs", func(p *pinnedPool) int64 {
			p.runStart()
			p.runEnd(false)
			return -1
		}, false},
		{"the device's Run ends while a lane's runs", func(p *pinnedPool) int64 {
			p.runStart() // the lane's
			p.runEnd(true)
			return -1
		}, false},
		{"the device's Run ends while a lane's runs, then the lane's", func(p *pinnedPool) int64 {
			p.runStart()
			p.runEnd(true)
			p.runEnd(false) // nothing else in flight: freed off the lane's path
			return -1
		}, true},
		{"the lane's ends, then the device's next", func(p *pinnedPool) int64 {
			p.runStart()
			p.runEnd(true)
			p.runEnd(false)
			p.runStart()
			p.runEnd(true)
			return -1
		}, true},
		{"EvictKept", func(p *pinnedPool) int64 { return int64(p.evictShared()) }, true},
		{"drain", func(p *pinnedPool) int64 { p.drain(); return -1 }, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, budget, freed := oneWorkerPool(3 << 30)
			var inFlight []uint64
			p.inFlightFree = func(n uint64) { inFlight = append(inFlight, n) }
			putStaging := func() { giveBack(p, budget, big, keptWitness, p.newSet(), sizeClass(big)) }
			putStaging()
			p.runStart() // the device's Run
			b, _ := p.get(big)
			putStaging() // the first taken: a new one beside b
			share, _ := budget.TryReserve(b.n)
			p.putKept(b, share, keptWitness, p.newSet(), sizeClass(big)) // over the bound: retired
			// unshared, within the cap: the second given back evicts one
			// from the free list, retired
			x1, _ := p.get(2 << 30)
			x2, _ := p.get(2 << 30)
			p.put(x1)
			p.put(x2)
			huge, _ := p.get(4 << 30)
			p.put(huge) // unshared, over the cap: freed at once, not held uncounted
			p.bg.Wait()
			if !slices.Equal(*freed, []uint64{4 << 30}) || budget.Used() != 2*big || p.sharedBytes() != 2*big {
				t.Fatalf("while running: freed %v, budget %d, kept shares %d; want only the buffer over the cap freed, both stagings counted",
					*freed, budget.Used(), p.sharedBytes())
			}
			if !slices.Equal(inFlight, []uint64{4 << 30}) {
				t.Fatalf("frees told while a Run is in flight: %v, want the one over the cap", inFlight)
			}
			*freed = (*freed)[:0]
			gave := tc.end(p)
			p.bg.Wait()
			if !tc.wantFree {
				if len(*freed) != 0 {
					t.Fatalf("freed %v with a Run still in flight", *freed)
				}
				return
			}
			want := []uint64{big, 2 << 30} // the retired ones
			if tc.name == "drain" || tc.name == "EvictKept" {
				want = append(want, big) // and the kept staging
			}
			if tc.name == "drain" {
				want = append(want, 2<<30) // and the free list's
			}
			slices.Sort(*freed)
			slices.Sort(want)
			if !slices.Equal(*freed, want) {
				t.Fatalf("freed %v, want %v", *freed, want)
			}
			if gave >= 0 && uint64(gave) != 2*big {
				t.Errorf("EvictKept gave back %d bytes, want %d (the kept staging and the retired one)", gave, 2*big)
			}
			if wantUsed := uint64(big); tc.name != "drain" && gave < 0 && budget.Used() != wantUsed {
				t.Errorf("budget %d after the frees, want %d (the staging still kept)", budget.Used(), wantUsed)
			}
		})
	}
}
