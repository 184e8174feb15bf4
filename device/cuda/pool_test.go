package cuda

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
	"time"
	"unsafe"

	"github.com/cuzk-project/cuzk/memory"
)

// fakePool is a pool over buffers of the sizes asked for that hold no
// memory (the pool never reads them): it records what it frees.
func fakePool(keep *int64, freed *[]uint64) *pinnedPool {
	var anchor byte
	return &pinnedPool{
		keep:    keep,
		alloc:   func(n uint64) (pinned, error) { return pinned{unsafe.Pointer(&anchor), n}, nil },
		release: func(b pinned) { *freed = append(*freed, b.n) },
	}
}

// TestPinnedPoolKeep: the pool keeps free buffers up to its cap in bytes,
// freeing the largest first and at once a buffer larger than the cap.
func TestPinnedPoolKeep(t *testing.T) {
	const gib = 1 << 30
	i64 := func(v int64) *int64 { return &v }
	for _, tc := range []struct {
		name      string
		keep      *int64
		puts      []uint64
		drain     bool // drain before the puts
		wantKept  []uint64
		wantFreed []uint64
	}{
		{"default: under the cap", nil, []uint64{gib, gib / 2}, false, []uint64{gib / 2, gib}, nil},
		{"default: the largest goes", i64(0), []uint64{gib, gib / 2, 3 * gib / 4}, false, []uint64{gib / 2, 3 * gib / 4}, []uint64{gib}},
		{"default: a 4 GiB witness is freed at put", nil, []uint64{4 * gib, 1 << 20}, false, []uint64{1 << 20}, []uint64{4 * gib}},
		{"explicit cap", i64(100), []uint64{60, 50, 40}, false, []uint64{40, 50}, []uint64{60}},
		{"exactly the cap", i64(100), []uint64{100}, false, []uint64{100}, nil},
		{"negative keeps none", i64(-1), []uint64{1, 64}, false, nil, []uint64{1, 64}},
		{"drained", nil, []uint64{64}, true, nil, []uint64{64}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var freed []uint64
			p := fakePool(tc.keep, &freed)
			if tc.drain {
				p.drain()
			}
			for _, n := range tc.puts {
				b, err := p.alloc(n) // a buffer of its own, not one the pool kept
				if err != nil {
					t.Fatal(err)
				}
				p.put(b)
			}
			var kept []uint64
			var sum uint64
			for _, b := range p.free {
				kept = append(kept, b.n)
				sum += b.n
			}
			if !slices.Equal(kept, tc.wantKept) {
				t.Errorf("kept %v, want %v", kept, tc.wantKept)
			}
			if sum != p.kept {
				t.Errorf("kept bytes %d, the buffers sum to %d", p.kept, sum)
			}
			if !slices.Equal(freed, tc.wantFreed) {
				t.Errorf("freed %v, want %v", freed, tc.wantFreed)
			}
		})
	}
}

// TestPinnedPoolReuse: get takes a kept buffer of at least the size asked
// for and at most twice it (and 1 MiB), else allocates.
func TestPinnedPoolReuse(t *testing.T) {
	var freed []uint64
	p := fakePool(nil, &freed)
	allocs := 0
	alloc := p.alloc
	p.alloc = func(n uint64) (pinned, error) { allocs++; return alloc(n) }
	b, _ := p.get(4 << 20)
	p.put(b)
	for _, tc := range []struct {
		n     uint64
		reuse bool
	}{
		{3 << 20, true},  // within 2n + 1 MiB
		{1 << 20, false}, // the kept buffer is too large for it
		{5 << 20, false}, // too small
		{4 << 20, true},
	} {
		before := allocs
		b, err := p.get(tc.n)
		if err != nil {
			t.Fatal(err)
		}
		if b.n < tc.n {
			t.Errorf("get(%d): a buffer of %d", tc.n, b.n)
		}
		if reused := allocs == before; reused != tc.reuse {
			t.Errorf("get(%d): reused %v, want %v", tc.n, reused, tc.reuse)
		}
		p.put(b)
	}
	if len(freed) != 0 {
		t.Errorf("freed %v under the cap", freed)
	}
}

// TestPinnedPoolConcurrent: gets and puts, with and without a share of a
// budget, from several goroutines keep the books (run with -race): at the
// end the pool keeps at most its cap of unshared buffers, what it counts
// is what it holds, and the budget holds the shared buffers' bytes.
func TestPinnedPoolConcurrent(t *testing.T) {
	keep := int64(1 << 20)
	var mu sync.Mutex
	var freed []uint64
	p := fakePool(&keep, &freed)
	release := p.release
	p.release = func(b pinned) { mu.Lock(); release(b); mu.Unlock() }
	budget := memory.New(1 << 40)
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			r := rand.New(rand.NewPCG(uint64(g), 7))
			for range 500 {
				b, err := p.get(uint64(1 + r.IntN(1<<19)))
				if err != nil {
					t.Error(err)
					return
				}
				if g%2 == 0 {
					p.put(b)
					continue
				}
				share, _ := budget.TryReserve(b.n)
				p.putShared(b, share)
			}
		})
	}
	wg.Wait()
	p.bg.Wait() // the stagings beyond the bound are freed off the callers' paths
	if n, most := len(p.shared), p.keptSets()*splitBufs; n > most {
		t.Fatalf("%d buffers kept with a share, more than %d workers' splits (%d)", n, p.keptSets(), most)
	}
	var sum, shared uint64
	for _, b := range p.free {
		sum += b.n
	}
	for _, s := range p.shared {
		shared += s.b.n
	}
	if sum != p.kept || p.kept > uint64(keep) {
		t.Fatalf("kept %d bytes, counted %d, cap %d", sum, p.kept, keep)
	}
	if held := p.heldBytes(); held != sum+shared {
		t.Fatalf("held %d bytes, the pool keeps %d and %d shared, and none is in use", held, sum, shared)
	}
	if used := budget.Used(); used != shared {
		t.Fatalf("the budget holds %d bytes, the shared buffers %d", used, shared)
	}
}

// TestPinnedPoolHeld: the pool counts the bytes of every buffer it
// allocated and has not freed, in use or kept; after drain, none.
func TestPinnedPoolHeld(t *testing.T) {
	keep := int64(100)
	var freed []uint64
	p := fakePool(&keep, &freed)
	check := func(what string, want uint64) {
		t.Helper()
		if got := p.heldBytes(); got != want {
			t.Errorf("%s: held %d, want %d", what, got, want)
		}
	}
	a, _ := p.get(60)
	b, _ := p.get(50)
	check("two in use", 110)
	p.put(a)
	check("one kept, one in use", 110)
	c, _ := p.get(40) // reuses the 60-byte buffer
	check("reused", 110)
	p.put(b)
	p.put(c) // 110 > 100 kept: the largest (60) is freed
	check("the cap", 50)
	big, _ := p.get(200)
	check("a buffer over the cap in use", 250)
	p.put(big) // freed at once
	check("over the cap, given back", 50)
	p.drain()
	check("drained", 0)
}

// TestPinnedPoolShared: a buffer given back with a share of the budget
// that covers it is kept outside the cap (the budget counts it) until a
// get takes it, which closes the share; a share too small for the buffer,
// or none, leaves the cap's rule; EvictKept, keptIdle and drain free the
// shared buffers and give their shares back.
func TestPinnedPoolShared(t *testing.T) {
	const big = 1 << 30
	keep := int64(1 << 20) // below every staging here
	share := func(b *memory.Budget, n uint64) *memory.Reservation {
		t.Helper()
		r, ok := b.TryReserve(n)
		if !ok {
			t.Fatalf("%d bytes do not fit the budget", n)
		}
		return r
	}
	t.Run("kept, then taken", func(t *testing.T) {
		var freed []uint64
		p := fakePool(&keep, &freed)
		budget := memory.New(4 * big)
		b, _ := p.get(big)
		p.putShared(b, share(budget, big))
		if len(freed) != 0 || budget.Used() != big || p.heldBytes() != big {
			t.Fatalf("after putShared: freed %v, budget %d, held %d; want kept and counted", freed, budget.Used(), p.heldBytes())
		}
		half, _ := p.get(big / 2) // would fit an unshared buffer, not a shared one
		if half.n != big/2 || budget.Used() != big {
			t.Fatalf("get(%d) took a %d-byte buffer, budget %d: want a new one, the kept one still counted", big/2, half.n, budget.Used())
		}
		again, _ := p.get(big - big/10) // within an eighth: the same buffer
		if again.n != big || budget.Used() != 0 {
			t.Fatalf("get took a %d-byte buffer, budget %d: want the kept one and its share closed", again.n, budget.Used())
		}
		p.putShared(again, share(budget, big))
		if got := p.evictShared(); got != big || budget.Used() != 0 || !slices.Equal(freed, []uint64{big}) {
			t.Fatalf("evict: %d bytes, budget %d, freed %v", got, budget.Used(), freed)
		}
		if got := p.evictShared(); got != 0 {
			t.Fatalf("evicting twice gave %d bytes", got)
		}
	})
	t.Run("share too small or none", func(t *testing.T) {
		var freed []uint64
		p := fakePool(&keep, &freed)
		budget := memory.New(4 * big)
		a, _ := p.get(big)
		p.putShared(a, share(budget, big-1))
		b, _ := p.get(big)
		p.putShared(b, nil)
		if !slices.Equal(freed, []uint64{big, big}) || budget.Used() != 0 {
			t.Fatalf("freed %v, budget %d: want both freed at once (over the cap), the share closed", freed, budget.Used())
		}
		small, _ := p.get(4096)
		p.putShared(small, nil) // under the cap: kept as put keeps it
		if len(p.free) != 1 || p.kept != small.n {
			t.Fatalf("kept %d bytes in %d buffers, want the small one under the cap", p.kept, len(p.free))
		}
	})
	t.Run("idle", func(t *testing.T) {
		old := keptIdle
		keptIdle = 0
		defer func() { keptIdle = old }()
		var freed []uint64
		p := fakePool(&keep, &freed)
		budget := memory.New(4 * big)
		a, _ := p.get(big)
		p.putShared(a, share(budget, big))
		time.Sleep(time.Millisecond)
		small, _ := p.get(4096) // any later use frees what idled
		p.put(small)
		if !slices.Equal(freed, []uint64{big}) || budget.Used() != 0 {
			t.Fatalf("freed %v, budget %d: want the idle staging freed", freed, budget.Used())
		}
	})
	t.Run("drained or keeping none", func(t *testing.T) {
		none := int64(-1)
		for _, k := range []*int64{&keep, &none} {
			var freed []uint64
			p := fakePool(k, &freed)
			budget := memory.New(4 * big)
			a, _ := p.get(big)
			b, _ := p.get(big)
			p.putShared(a, share(budget, big))
			if k == &keep {
				p.drain()
			}
			p.putShared(b, share(budget, big))
			if len(freed) != 2 || budget.Used() != 0 || p.heldBytes() != 0 {
				t.Fatalf("keep %d: freed %v, budget %d, held %d; want all freed and given back", *k, freed, budget.Used(), p.heldBytes())
			}
		}
	})
}

// BenchmarkPinnedAlloc times what the pool saves: allocating and freeing a
// page-locked buffer of a partition's staging sizes (cudaHostAlloc and
// cudaFreeHost; the 32 GiB PoRep's a, b staging is 8.3 GB, larger than the
// pool keeps by default, so the classic path pays this at every Prepare),
// against a get and put the pool serves from what it keeps.
func BenchmarkPinnedAlloc(b *testing.B) {
	if !Available() {
		b.Skip(skipReason())
	}
	for _, n := range []uint64{256 << 20, 1 << 30, 8 << 30} {
		b.Run(fmt.Sprintf("alloc-free/%dMiB", n>>20), func(b *testing.B) {
			var alloc, free time.Duration
			for b.Loop() {
				t0 := time.Now()
				p, err := allocPinned(n)
				if err != nil {
					b.Fatal(err)
				}
				t1 := time.Now()
				p.free()
				alloc, free = alloc+t1.Sub(t0), free+time.Since(t1)
			}
			b.ReportMetric(float64(n)*float64(b.N)/alloc.Seconds()/1e9, "alloc-GB/s")
			b.ReportMetric(float64(n)*float64(b.N)/free.Seconds()/1e9, "free-GB/s")
		})
		b.Run(fmt.Sprintf("pool/%dMiB", n>>20), func(b *testing.B) {
			keep := int64(n)
			p := &pinnedPool{keep: &keep}
			defer p.drain()
			first, err := p.get(n)
			if err != nil {
				b.Fatal(err)
			}
			p.put(first)
			for b.Loop() {
				buf, err := p.get(n)
				if err != nil {
					b.Fatal(err)
				}
				p.put(buf)
			}
		})
	}
}

// TestKeepStagingSplits: KeepStaging hands the a, b staging to the pool
// with its part of the share and leaves the rest to the splits, which
// release (Finish, Discard) gives back each with its own part: every
// buffer ends kept with a share of its size, the budget holds them all,
// and evicting them gives it all back. No GPU: the pool's buffers are
// fake.
func TestKeepStagingSplits(t *testing.T) {
	var freed []uint64
	keep := int64(1 << 10) // keeps no unshared buffer of these sizes
	d := &Device{}
	fp := fakePool(&keep, &freed)
	d.pool.keep, d.pool.alloc, d.pool.release = fp.keep, fp.alloc, fp.release
	w := &prepared{}
	var err error
	if w.ab, err = d.pool.get(64 << 20); err != nil {
		t.Fatal(err)
	}
	sizes := [3][3]uint64{{4 << 10, 32 << 20, 4 << 20}, {4 << 10, 16 << 20, 2 << 20}, {4 << 10, 8 << 20, 1 << 20}}
	var want uint64 = 64 << 20
	for q, s := range sizes {
		w.st[q].bits, _ = d.pool.get(s[0])
		w.st[q].scal, _ = d.pool.get(s[1])
		w.st[q].idx, _ = d.pool.get(s[2])
		want += s[0] + s[1] + s[2]
	}
	p := &Partial{d: d, w: w}
	if got := p.StagingBytes(); got != want {
		t.Fatalf("StagingBytes %d, want %d", got, want)
	}
	budget := memory.New(1 << 40)
	share, _ := budget.TryReserve(want + 100) // more than the staging: the rest is closed
	p.KeepStaging(share)
	d.release(w) // Finish's
	deadline := time.Now().Add(5 * time.Second)
	for d.pool.sharedBytes() != want && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond) // the a, b staging goes back on a goroutine
	}
	if got, n := d.pool.sharedBytes(), len(d.pool.shared); got != want || n != 10 || budget.Used() != want || len(freed) != 0 {
		t.Fatalf("kept %d bytes in %d shared buffers, budget %d, freed %v; want %d in 10, the budget the same, none freed",
			got, n, budget.Used(), freed, want)
	}
	for _, s := range d.pool.shared {
		if s.share.Held() != s.b.n {
			t.Errorf("a %d-byte buffer kept with a share of %d", s.b.n, s.share.Held())
		}
	}
	if got := d.EvictKept(); got != want || budget.Used() != 0 || d.PinnedBytes() != 0 {
		t.Fatalf("EvictKept gave back %d, the budget holds %d, the pool %d; want %d, 0, 0", got, budget.Used(), d.PinnedBytes(), want)
	}
}

// TestPinnedPoolBound: of the stagings given back with a share, the pool
// keeps at most one of each kind per worker (an a, b staging, a witness
// staging of several buffers, a partition's splitBufs splits), freeing the
// oldest beyond that off the caller's path and giving their shares back.
// No GPU: the pool's buffers are fake.
func TestPinnedPoolBound(t *testing.T) {
	type staging struct {
		kind keptKind
		bufs int // buffers in one staging
		n    uint64
	}
	ab := staging{keptAB, 1, 8 << 30}
	wit := staging{keptWitness, 3, 1 << 30}
	splits := staging{keptSplit, splitBufs, 16 << 20}
	for _, tc := range []struct {
		name    string
		workers int // 0: DefaultWorkers
		st      staging
		puts    int // stagings given back
		want    int // stagings kept
	}{
		{"ab: under the default", 0, ab, 1, 1},
		{"ab: the default", 0, ab, 5, DefaultWorkers},
		{"ab: one worker", 1, ab, 3, 1},
		{"ab: three workers", 3, ab, 3, 3},
		{"witness: one worker", 1, wit, 4, 1},
		{"witness: two workers", 2, wit, 4, 2},
		{"splits: one worker", 1, splits, 3, 1},
		{"splits: four workers", 4, splits, 6, 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			keep := int64(1 << 10) // keeps no unshared buffer of these sizes
			var mu sync.Mutex
			var freed []uint64
			p := fakePool(&keep, &freed)
			release := p.release
			p.release = func(b pinned) { mu.Lock(); release(b); mu.Unlock() }
			d := &Device{}
			if tc.workers > 0 {
				d.SetWorkers(tc.workers)
			}
			p.workers.Store(d.pool.workers.Load())
			budget := memory.New(1 << 50)
			var order []uint64 // the first buffer's size of each staging, to tell them apart
			for i := range tc.puts {
				set := p.newSet()
				for j := range tc.st.bufs {
					n := tc.st.n + uint64(i)<<20 + uint64(j)<<10
					if j == 0 {
						order = append(order, n)
					}
					giveBack(p, budget, n, tc.st.kind, set, sizeClass(tc.st.n))
				}
			}
			p.bg.Wait()
			kept := map[uint64]bool{}
			var bytes uint64
			for _, s := range p.shared {
				kept[s.b.n] = true
				bytes += s.b.n
			}
			if len(p.shared) != tc.want*tc.st.bufs || budget.Used() != bytes || p.heldBytes() != bytes {
				t.Fatalf("kept %d buffers (%d bytes), budget %d, held %d; want %d stagings of %d buffers, the budget and pool holding them",
					len(p.shared), bytes, budget.Used(), p.heldBytes(), tc.want, tc.st.bufs)
			}
			if len(freed) != (tc.puts-tc.want)*tc.st.bufs {
				t.Fatalf("freed %d buffers, want %d", len(freed), (tc.puts-tc.want)*tc.st.bufs)
			}
			for i, n := range order {
				if newest := i >= tc.puts-tc.want; kept[n] != newest {
					t.Errorf("staging %d of %d: kept %v, want %v (the newest kept)", i, tc.puts, kept[n], newest)
				}
			}
		})
	}
}

// oneWorkerPool is a fake pool keeping keep bytes unshared and one
// staging of each kind and class, the budget its shares come from, and
// what it frees.
func oneWorkerPool(keep int64) (*pinnedPool, *memory.Budget, *[]uint64) {
	freed := new([]uint64)
	p := fakePool(&keep, freed)
	p.workers.Store(1)
	return p, memory.New(1 << 50), freed
}

// giveBack gets a buffer of n bytes from p and gives it back with a share
// of budget that covers it, as part set of a staging of kind and class.
func giveBack(p *pinnedPool, budget *memory.Budget, n uint64, kind keptKind, set uint64, class uint8) {
	b, _ := p.get(n)
	share, _ := budget.TryReserve(b.n)
	p.putKept(b, share, kind, set, class)
}

// TestPinnedPoolBoundKinds: the bound counts each kind apart: a worker's
// a, b staging, splits and witness staging are all kept together.
func TestPinnedPoolBoundKinds(t *testing.T) {
	p, budget, freed := oneWorkerPool(1 << 10)
	giveBack(p, budget, 8<<30, keptAB, p.newSet(), sizeClass(8<<30))
	for q := range splitBufs {
		n := 1<<20 + uint64(q)<<10
		giveBack(p, budget, n, keptSplit, 0, sizeClass(n))
	}
	w, class := p.newSet(), sizeClass(4<<30+64<<20)
	giveBack(p, budget, 4<<30, keptWitness, w, class)
	giveBack(p, budget, 64<<20, keptWitness, w, class)
	p.bg.Wait()
	if len(p.shared) != 1+splitBufs+2 || len(*freed) != 0 {
		t.Fatalf("kept %d buffers, freed %v; want all %d kept", len(p.shared), *freed, 1+splitBufs+2)
	}
}

// TestPinnedPoolBoundClasses: stagings of one kind but another size class
// (another circuit's, proved in turn) are bounded apart: none frees
// another's; a third of one class frees the oldest of that class.
func TestPinnedPoolBoundClasses(t *testing.T) {
	p, budget, freed := oneWorkerPool(1 << 10)
	put := func(n uint64) {
		giveBack(p, budget, n, keptWitness, p.newSet(), sizeClass(n))
		p.bg.Wait()
	}
	porep, snap := uint64(1<<30), uint64(32<<20)
	put(porep)
	put(snap + 1) // each a staging of its own class: the gets above found none to take
	if len(*freed) != 0 || len(p.shared) != 2 {
		t.Fatalf("two classes in turn: freed %v, kept %d; want both kept", *freed, len(p.shared))
	}
	b, _ := p.get(porep) // the next partition of each circuit takes its own class's
	c, _ := p.get(snap)
	if len(p.shared) != 0 || b.n != porep || c.n != snap+1 {
		t.Fatalf("got %d and %d bytes, %d left kept; want each circuit's own staging", b.n, c.n, len(p.shared))
	}
	for _, x := range []pinned{b, c} {
		share, _ := budget.TryReserve(x.n)
		p.putKept(x, share, keptWitness, p.newSet(), sizeClass(x.n))
	}
	put(porep + porep/4) // a third of porep's class (too large to have been taken): the oldest of that class goes
	if !slices.Equal(*freed, []uint64{porep}) {
		t.Fatalf("freed %v, want only the oldest staging of the class given a third, %d", *freed, porep)
	}
}
