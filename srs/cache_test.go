package srs

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-project/cuzk/groth16"
	"github.com/cuzk-project/cuzk/memory"
	"github.com/cuzk-project/cuzk/r1cs"
)

// fakeParams returns parameters of n H points.
func fakeParams(n int) *groth16.Params {
	return &groth16.Params{H: make([]bls12381.G1Affine, n)}
}

// unit is the decoded size of fakeParams(1000).
var unit = ParamsBytes(fakeParams(1000))

// fakeLoader counts loads per id; gate, if set, holds every load until it
// is closed; fail, if set, decides a load's error.
type fakeLoader struct {
	mu        sync.Mutex
	loads     map[string]int
	gate      chan struct{}
	fail      func(id string, n int) error
	sawCancel atomic.Bool
}

func (f *fakeLoader) load(ctx context.Context, id, _ string) (*groth16.Params, error) {
	f.mu.Lock()
	if f.loads == nil {
		f.loads = make(map[string]int)
	}
	f.loads[id]++
	n := f.loads[id]
	f.mu.Unlock()
	if f.gate != nil {
		select {
		case <-f.gate:
		case <-ctx.Done():
			f.sawCancel.Store(true)
			return nil, ctx.Err()
		}
	}
	if f.fail != nil {
		if err := f.fail(id, n); err != nil {
			return nil, err
		}
	}
	return fakeParams(1000), nil
}

func (f *fakeLoader) count(id string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.loads[id]
}

func newCache(t *testing.T, budget *memory.Budget, f *fakeLoader, ids ...string) *Cache {
	t.Helper()
	circuits := make(map[string]Source)
	for _, id := range ids {
		circuits[id] = Source{Path: "/params/" + id + ".params", Size: unit}
	}
	cfg := Config{Circuits: circuits, Load: f.load}
	if budget != nil {
		cfg.Budget = budget
	}
	c := New(cfg)
	if budget != nil {
		budget.SetEvictor(c.EvictIdle)
	}
	return c
}

func tiers(c *Cache) map[string]Tier {
	out := make(map[string]Tier)
	for _, e := range c.Status() {
		out[e.CircuitID] = e.Tier
	}
	return out
}

func TestConcurrentAcquiresLoadOnce(t *testing.T) {
	f := &fakeLoader{gate: make(chan struct{})}
	budget := memory.New(10 * unit)
	c := newCache(t, budget, f, "porep-32g")
	const n = 32
	var wg sync.WaitGroup
	got := make([]*groth16.Params, n)
	releases := make([]func(), n)
	errs := make([]error, n)
	for i := range n {
		wg.Go(func() { got[i], releases[i], errs[i] = c.Acquire(context.Background(), "porep-32g") })
	}
	// Let them pile up on the one load, then let it finish.
	for c.Status()[0].Loading == false || f.count("porep-32g") == 0 {
		time.Sleep(time.Millisecond)
	}
	time.Sleep(20 * time.Millisecond)
	close(f.gate)
	wg.Wait()
	for i := range n {
		if errs[i] != nil || got[i] == nil || got[i] != got[0] {
			t.Fatalf("acquire %d: %p, %v", i, got[i], errs[i])
		}
	}
	if l := f.count("porep-32g"); l != 1 {
		t.Fatalf("%d loads, want 1", l)
	}
	st := c.Status()[0]
	if st.RefCount != n || st.Tier != Hot || st.SizeBytes != unit || st.Loads != 1 {
		t.Fatalf("status %+v, want %d refs, hot, %d bytes", st, n, unit)
	}
	for _, r := range releases {
		r()
		r() // a second call does nothing
	}
	if st := c.Status()[0]; st.RefCount != 0 || st.Tier != Hot {
		t.Fatalf("after release: %+v", st)
	}
	if budget.Used() != unit {
		t.Fatalf("budget used %d, want %d", budget.Used(), unit)
	}
}

func TestLRUEvictionOrder(t *testing.T) {
	f := &fakeLoader{}
	budget := memory.New(3 * unit)
	c := newCache(t, budget, f, "a", "b", "c", "d", "e")
	use := func(id string) {
		t.Helper()
		_, release, err := c.Acquire(context.Background(), id)
		if err != nil {
			t.Fatalf("acquire %s: %v", id, err)
		}
		release()
	}
	use("a")
	use("b")
	use("c")
	use("a") // a is now more recent than b and c
	for _, tc := range []struct {
		use     string
		evicted string
		hot     []string
	}{
		{"d", "b", []string{"a", "c", "d"}},
		{"e", "c", []string{"a", "d", "e"}},
		{"b", "a", []string{"b", "d", "e"}},
	} {
		use(tc.use)
		tr := tiers(c)
		if tr[tc.evicted] != Cold {
			t.Fatalf("after using %s: %s is %v, want it evicted (least recently used); tiers %v", tc.use, tc.evicted, tr[tc.evicted], tr)
		}
		for _, id := range tc.hot {
			if tr[id] != Hot {
				t.Fatalf("after using %s: %s is %v, want hot; tiers %v", tc.use, id, tr[id], tr)
			}
		}
		if budget.Used() != 3*unit {
			t.Fatalf("budget used %d, want %d", budget.Used(), 3*unit)
		}
	}
	if f.count("b") != 2 || f.count("a") != 1 {
		t.Fatalf("loads: b %d (want 2), a %d (want 1)", f.count("b"), f.count("a"))
	}
}

func TestReferencedEntriesAreNeverEvicted(t *testing.T) {
	f := &fakeLoader{}
	budget := memory.New(unit)
	c := newCache(t, budget, f, "a", "b")
	pa, releaseA, err := c.Acquire(context.Background(), "a")
	if err != nil {
		t.Fatal(err)
	}
	if n := c.EvictIdle(unit); n != 0 {
		t.Fatalf("EvictIdle freed %d bytes of a referenced entry", n)
	}
	if _, _, err := c.Evict("a"); !errors.Is(err, ErrInUse) {
		t.Fatalf("Evict of a referenced entry: %v, want ErrInUse", err)
	}

	// b cannot fit while a is held: it waits, and gives up with its context.
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	_, _, err = c.Acquire(ctx, "b")
	cancel()
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("acquire b while a is held: %v, want DeadlineExceeded", err)
	}
	if tiers(c)["a"] != Hot || pa.H == nil {
		t.Fatal("a was evicted while referenced")
	}

	// Once a is released, a waiting b evicts it.
	done := make(chan error, 1)
	go func() {
		_, release, err := c.Acquire(context.Background(), "b")
		if err == nil {
			release()
		}
		done <- err
	}()
	time.Sleep(20 * time.Millisecond)
	select {
	case err := <-done:
		t.Fatalf("b loaded while a was still held: %v", err)
	default:
	}
	releaseA()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("b still waiting after a was released")
	}
	if tr := tiers(c); tr["a"] != Cold || tr["b"] != Hot {
		t.Fatalf("tiers %v, want a cold and b hot", tr)
	}
	if budget.Used() != unit {
		t.Fatalf("budget used %d, want %d", budget.Used(), unit)
	}
}

func TestLoadErrorsPropagateAndAreNotCached(t *testing.T) {
	boom := errors.New("disk on fire")
	f := &fakeLoader{gate: make(chan struct{}), fail: func(id string, n int) error {
		if n == 1 {
			return boom
		}
		return nil
	}}
	budget := memory.New(2 * unit)
	c := newCache(t, budget, f, "a")
	const n = 8
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { _, _, errs[i] = c.Acquire(context.Background(), "a") })
	}
	for f.count("a") == 0 {
		time.Sleep(time.Millisecond)
	}
	time.Sleep(20 * time.Millisecond)
	close(f.gate)
	wg.Wait()
	for i, err := range errs {
		if !errors.Is(err, boom) {
			t.Fatalf("waiter %d: %v, want the load's error", i, err)
		}
	}
	if f.count("a") != 1 {
		t.Fatalf("%d loads for one failure, want 1", f.count("a"))
	}
	if budget.Used() != 0 {
		t.Fatalf("a failed load kept %d bytes reserved", budget.Used())
	}
	if st := c.Status()[0]; st.Tier != Cold || st.Loading || st.RefCount != 0 {
		t.Fatalf("after a failed load: %+v", st)
	}
	// The next Acquire tries again.
	_, release, err := c.Acquire(context.Background(), "a")
	if err != nil {
		t.Fatalf("retry: %v", err)
	}
	release()
	if f.count("a") != 2 || tiers(c)["a"] != Hot {
		t.Fatalf("retry: %d loads, tier %v", f.count("a"), tiers(c)["a"])
	}
}

func TestLoaderPanicIsAnError(t *testing.T) {
	budget := memory.New(2 * unit)
	c := New(Config{
		Circuits: map[string]Source{"a": {Size: unit}},
		Budget:   budget,
		Load:     func(context.Context, string, string) (*groth16.Params, error) { panic("bug") },
	})
	if _, _, err := c.Acquire(context.Background(), "a"); err == nil || budget.Used() != 0 {
		t.Fatalf("panicking loader: %v, %d bytes reserved", err, budget.Used())
	}
	c = New(Config{
		Circuits: map[string]Source{"a": {Size: unit}},
		Load:     func(context.Context, string, string) (*groth16.Params, error) { return nil, nil },
	})
	if _, _, err := c.Acquire(context.Background(), "a"); err == nil {
		t.Fatal("a loader returning nil parameters is not an error")
	}
}

func TestUnknownCircuit(t *testing.T) {
	c := newCache(t, nil, &fakeLoader{}, "a")
	_, _, err := c.Acquire(context.Background(), "porep-64g")
	if !errors.Is(err, ErrUnknownCircuit) {
		t.Fatalf("Acquire: %v", err)
	}
	if _, _, err := c.Preload(context.Background(), "nope"); !errors.Is(err, ErrUnknownCircuit) {
		t.Fatalf("Preload: %v", err)
	}
	if _, _, err := c.Evict("nope"); !errors.Is(err, ErrUnknownCircuit) {
		t.Fatalf("Evict: %v", err)
	}
	if err := c.Register("a", Source{}); !errors.Is(err, ErrDuplicate) {
		t.Fatalf("Register twice: %v", err)
	}
	if err := c.Register("b", Source{Size: unit}); err != nil {
		t.Fatal(err)
	}
	if _, release, err := c.Acquire(context.Background(), "b"); err != nil {
		t.Fatalf("registered later: %v", err)
	} else {
		release()
	}
}

func TestPreloadAndEvict(t *testing.T) {
	f := &fakeLoader{}
	budget := memory.New(4 * unit)
	c := newCache(t, budget, f, "a")
	already, took, err := c.Preload(context.Background(), "a")
	if err != nil || already || took <= 0 {
		t.Fatalf("first Preload: %v %v %v", already, took, err)
	}
	already, took, err = c.Preload(context.Background(), "a")
	if err != nil || !already || took != 0 {
		t.Fatalf("second Preload: %v %v %v", already, took, err)
	}
	if st := c.Status()[0]; st.Tier != Hot || st.RefCount != 0 {
		t.Fatalf("preloaded entry %+v, want hot and idle", st)
	}
	was, freed, err := c.Evict("a")
	if err != nil || !was || freed != unit {
		t.Fatalf("Evict: %v %d %v, want true %d", was, freed, err, unit)
	}
	if budget.Used() != 0 {
		t.Fatalf("budget used %d after evict", budget.Used())
	}
	was, freed, err = c.Evict("a")
	if err != nil || was || freed != 0 {
		t.Fatalf("Evict of a cold entry: %v %d %v", was, freed, err)
	}
	if f.count("a") != 1 {
		t.Fatalf("%d loads", f.count("a"))
	}
}

func TestEvictRefusesWhileLoading(t *testing.T) {
	f := &fakeLoader{gate: make(chan struct{})}
	c := newCache(t, nil, f, "a")
	done := make(chan error)
	go func() {
		_, release, err := c.Acquire(context.Background(), "a")
		if err == nil {
			release()
		}
		done <- err
	}()
	for f.count("a") == 0 {
		time.Sleep(time.Millisecond)
	}
	if _, _, err := c.Evict("a"); !errors.Is(err, ErrInUse) {
		t.Fatalf("Evict while loading: %v, want ErrInUse", err)
	}
	close(f.gate)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

func TestAbandonedLoadIsCancelled(t *testing.T) {
	f := &fakeLoader{gate: make(chan struct{})}
	budget := memory.New(2 * unit)
	c := newCache(t, budget, f, "a")
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error)
	go func() { _, _, err := c.Acquire(ctx, "a"); errc <- err }()
	for f.count("a") == 0 {
		time.Sleep(time.Millisecond)
	}
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Fatalf("acquire: %v", err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for c.Status()[0].Loading || budget.Used() != 0 {
		if time.Now().After(deadline) {
			t.Fatalf("abandoned load still running (status %+v, used %d)", c.Status()[0], budget.Used())
		}
		time.Sleep(time.Millisecond)
	}
	if !f.sawCancel.Load() {
		t.Fatal("loader never saw its context cancelled")
	}
}

func TestMinIdle(t *testing.T) {
	now := time.Unix(1000, 0)
	var mu sync.Mutex
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	f := &fakeLoader{}
	c := New(Config{Circuits: map[string]Source{"a": {Size: unit}}, Load: f.load, MinIdle: 5 * time.Minute, Now: clock})
	if _, _, err := c.Preload(context.Background(), "a"); err != nil {
		t.Fatal(err)
	}
	if freed := c.EvictIdle(1); freed != 0 {
		t.Fatalf("evicted an entry idle for less than MinIdle")
	}
	mu.Lock()
	now = now.Add(5 * time.Minute)
	mu.Unlock()
	if freed := c.EvictIdle(1); freed != unit {
		t.Fatalf("EvictIdle freed %d, want %d", freed, unit)
	}
}

func TestReservationFollowsDecodedSize(t *testing.T) {
	for _, tc := range []struct {
		name string
		est  uint64
	}{
		{"over-estimate is given back", 3 * unit},
		{"under-estimate is topped up", unit / 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			budget := memory.New(4 * unit)
			f := &fakeLoader{}
			c := New(Config{Circuits: map[string]Source{"a": {Size: tc.est}}, Load: f.load, Budget: budget})
			if _, _, err := c.Preload(context.Background(), "a"); err != nil {
				t.Fatal(err)
			}
			if budget.Used() != unit || c.Status()[0].SizeBytes != unit {
				t.Fatalf("reserved %d, status %d; want %d", budget.Used(), c.Status()[0].SizeBytes, unit)
			}
			if _, freed, _ := c.Evict("a"); freed != unit || budget.Used() != 0 {
				t.Fatalf("freed %d, left %d", freed, budget.Used())
			}
		})
	}
}

// mulCircuit proves knowledge of x, y with x·y = z.
type mulCircuit struct{ x, y uint64 }

func (m mulCircuit) Synthesize(cs r1cs.ConstraintSystem) error {
	var x, y, z fr.Element
	x.SetUint64(m.x)
	y.SetUint64(m.y)
	z.Mul(&x, &y)
	zv := cs.AllocInput(z)
	xv, yv := cs.Alloc(x), cs.Alloc(y)
	var a, b, c r1cs.LinearCombination
	cs.Enforce(*a.Add(xv), *b.Add(yv), *c.Add(zv))
	return nil
}

func TestDefaultLoaderReadsParamsFile(t *testing.T) {
	p, err := groth16.Setup(mulCircuit{3, 5}, []byte("srs test"))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "mul.params")
	if err := groth16.WriteParams(path, p); err != nil {
		t.Fatal(err)
	}
	budget := memory.New(1 << 20)
	c := New(Config{Circuits: map[string]Source{"mul": {Path: path}, "missing": {Path: filepath.Join(t.TempDir(), "none.params")}}, Budget: budget})
	got, release, err := c.Acquire(context.Background(), "mul")
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	if len(got.H) != len(p.H) || len(got.VK.IC) != len(p.VK.IC) || !got.VK.AlphaG1.Equal(&p.VK.AlphaG1) {
		t.Fatal("loaded parameters differ from those written")
	}
	if budget.Used() != ParamsBytes(got) {
		t.Fatalf("reserved %d, decoded size %d", budget.Used(), ParamsBytes(got))
	}
	_, _, err = c.Acquire(context.Background(), "missing")
	if err == nil || errors.Is(err, ErrUnknownCircuit) {
		t.Fatalf("missing file: %v", err)
	}
	t.Logf("missing file: %v", err)
}

func ExampleCache() {
	budget := memory.New(64 << 30)
	cache := New(Config{
		Circuits: map[string]Source{"porep-32g": {Path: "/var/tmp/filecoin-proof-parameters/v28-....params"}},
		Budget:   budget,
		MinIdle:  5 * time.Minute,
	})
	budget.SetEvictor(cache.EvictIdle)
	fmt.Println(cache.Status()[0].Tier)
	// Output: cold
}

func TestAbandonedLoadIsWaitedFor(t *testing.T) {
	// Load 1 is abandoned by its only caller but ignores the cancellation.
	// A new caller waits for it instead of starting a second load beside it
	// (twice the memory), and gets what it loaded.
	gate := make(chan struct{})
	var calls atomic.Int32
	var loaded atomic.Pointer[groth16.Params]
	load := func(ctx context.Context, _, _ string) (*groth16.Params, error) {
		calls.Add(1)
		<-gate
		p := fakeParams(1000)
		loaded.Store(p)
		return p, nil
	}
	budget := memory.New(4 * unit)
	c := New(Config{Circuits: map[string]Source{"a": {Size: unit}}, Load: load, Budget: budget})

	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error)
	go func() { _, _, err := c.Acquire(ctx, "a"); errc <- err }()
	for calls.Load() < 1 {
		time.Sleep(time.Millisecond)
	}
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Fatal(err)
	}
	type result struct {
		p       *groth16.Params
		release func()
		err     error
	}
	res := make(chan result)
	go func() { p, r, err := c.Acquire(context.Background(), "a"); res <- result{p, r, err} }()
	time.Sleep(20 * time.Millisecond)
	if n := calls.Load(); n != 1 {
		t.Fatalf("%d loads started while the abandoned one runs, want 1", n)
	}
	close(gate)
	r := <-res
	if r.err != nil {
		t.Fatal(r.err)
	}
	if r.p != loaded.Load() {
		t.Fatal("the waiter did not get what the abandoned load left")
	}
	if st := c.Status()[0]; st.RefCount != 1 || st.Loads != 1 || budget.Used() != unit {
		t.Fatalf("status %+v, budget used %d; want 1 ref, 1 load, %d bytes", st, budget.Used(), unit)
	}
	r.release()
}

func TestCancelledAbandonedLoadIsRetried(t *testing.T) {
	// Load 1 is abandoned and stops with its context's error; the next
	// caller (whether it waited for that load's end or came after) does
	// not inherit the error: it loads afresh.
	f := &fakeLoader{gate: make(chan struct{})}
	budget := memory.New(2 * unit)
	c := newCache(t, budget, f, "a")
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error)
	go func() { _, _, err := c.Acquire(ctx, "a"); errc <- err }()
	for f.count("a") == 0 {
		time.Sleep(time.Millisecond)
	}
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Fatal(err)
	}
	close(f.gate)
	_, release, err := c.Acquire(context.Background(), "a")
	if err != nil {
		t.Fatalf("acquire after an abandoned load: %v", err)
	}
	release()
}

func BenchmarkAcquireHot(b *testing.B) {
	c := New(Config{Circuits: map[string]Source{"a": {Size: unit}}, Load: (&fakeLoader{}).load})
	if _, _, err := c.Preload(context.Background(), "a"); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			_, release, err := c.Acquire(context.Background(), "a")
			if err != nil {
				b.Fatal(err)
			}
			release()
		}
	})
}

func TestFilecoinSources(t *testing.T) {
	src := FilecoinSources("/data/zk/params")
	want := "/data/zk/params/v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-8-0-sha256_hasher-82a357d2f2ca81dc61bb45f4a762807aedee1b0a53fd6c4e77b46a01bfef7820.params"
	if src["porep-32g"].Path != want {
		t.Fatalf("porep-32g: %s", src["porep-32g"].Path)
	}
	for _, id := range []string{"porep-32g", "porep-64g", "wpost-32g", "winning-32g", "snap-32g", "snap-64g"} {
		if _, ok := src[id]; !ok {
			t.Errorf("no source for %s (the circuit ids of the Rust engine)", id)
		}
	}
	c := New(Config{Circuits: src})
	_, _, err := c.Acquire(context.Background(), "snap-64g")
	if err == nil || errors.Is(err, ErrUnknownCircuit) {
		t.Fatalf("a missing production file: %v, want a load error", err)
	}
}

func TestWaiterIsWokenWhenMinIdlePasses(t *testing.T) {
	// A reservation queued behind an entry too young to evict must be
	// served once the entry has been idle MinIdle, with nothing else
	// happening in between.
	const minIdle = 100 * time.Millisecond
	budget := memory.New(unit)
	f := &fakeLoader{}
	c := New(Config{Circuits: map[string]Source{"a": {Size: unit}, "b": {Size: unit}}, Load: f.load, Budget: budget, MinIdle: minIdle})
	budget.SetEvictor(c.EvictIdle)
	if _, _, err := c.Preload(context.Background(), "a"); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	t0 := time.Now()
	_, release, err := c.Acquire(ctx, "b")
	if err != nil {
		t.Fatalf("b never got memory: %v", err)
	}
	release()
	if took := time.Since(t0); took < minIdle/2 {
		t.Fatalf("a was evicted after %v, before MinIdle", took)
	}
	if tr := tiers(c); tr["a"] != Cold || tr["b"] != Hot {
		t.Fatalf("tiers %v", tr)
	}
}

// TestUnloadOnEviction: an evicted entry's parameters are unloaded while
// the budget still counts them, then Evicted is told its id once the
// reservation is closed; an entry already cold is neither.
func TestUnloadOnEviction(t *testing.T) {
	f := &fakeLoader{}
	budget := memory.New(2 * unit)
	var mu sync.Mutex
	var unloaded, evicted []string
	c := New(Config{
		Evicted: func(id string) {
			mu.Lock()
			evicted = append(evicted, id)
			mu.Unlock()
		},
		Circuits: map[string]Source{"a": {Size: unit}, "b": {Size: unit}, "c": {Size: unit}},
		Load:     f.load,
		Budget:   budget,
		Unload: func(id string, p *groth16.Params) {
			if p == nil {
				t.Errorf("Unload(%s) without parameters", id)
			}
			// The memory is still charged while a device frees its copy.
			if budget.Used() == 0 {
				t.Errorf("Unload(%s) after the reservation was closed", id)
			}
			mu.Lock()
			unloaded = append(unloaded, id)
			mu.Unlock()
		},
	})
	budget.SetEvictor(c.EvictIdle)
	use := func(id string) {
		t.Helper()
		_, release, err := c.Acquire(context.Background(), id)
		if err != nil {
			t.Fatalf("acquire %s: %v", id, err)
		}
		release()
	}
	use("a")
	use("b")
	use("c") // evicts a (EvictIdle)
	if _, _, err := c.Evict("b"); err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.Evict("b"); err != nil { // already cold: no second Unload
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if !slices.Equal(unloaded, []string{"a", "b"}) || !slices.Equal(evicted, unloaded) {
		t.Fatalf("unloaded %v, evicted %v, want [a b] both", unloaded, evicted)
	}
}

func TestParamsBytesOfDeferred(t *testing.T) {
	p := fakeParams(1000)
	p.H, p.Deferred = nil, &groth16.Deferred{}
	if got, want := ParamsBytes(p), ParamsBytes(&groth16.Params{}); got != want {
		t.Fatalf("ParamsBytes(deferred) = %d, want %d (the verifying key only)", got, want)
	}
	// a device's page-locked copy of part of the file counts, until given back
	p.Deferred.Hold(5 << 20)
	if got, want := ParamsBytes(p), ParamsBytes(&groth16.Params{})+5<<20; got != want {
		t.Fatalf("ParamsBytes(deferred, 5 MiB held) = %d, want %d", got, want)
	}
	p.Deferred.Hold(-5 << 20)
	if got, want := ParamsBytes(p), ParamsBytes(&groth16.Params{}); got != want {
		t.Fatalf("ParamsBytes(deferred, given back) = %d, want %d", got, want)
	}
}

// TestStatusWhere: Status says where a loaded set's points are: decoded on
// the host, on the devices (deferred), or on the devices with part of them
// read from the file at every proof (deferred and marked streamed).
func TestStatusWhere(t *testing.T) {
	for _, tc := range []struct {
		name               string
		deferred, streamed bool
		onDevice, fromFile bool
	}{
		{"host copy", false, false, false, false},
		{"on the devices", true, false, true, false},
		{"streamed from the file", true, true, true, true},
	} {
		c := New(Config{
			Circuits: map[string]Source{"a": {Size: unit}},
			Load: func(context.Context, string, string) (*groth16.Params, error) {
				p := fakeParams(1000)
				if tc.deferred {
					p.H, p.Deferred = nil, &groth16.Deferred{}
					if tc.streamed {
						p.Deferred.MarkStreamed()
					}
				}
				return p, nil
			},
		})
		if _, _, err := c.Preload(context.Background(), "a"); err != nil {
			t.Fatal(err)
		}
		st := c.Status()
		if len(st) != 1 || st[0].Tier != Hot || st[0].OnDevice != tc.onDevice || st[0].FromFile != tc.fromFile {
			t.Errorf("%s: status %+v, want on device %v, from file %v", tc.name, st, tc.onDevice, tc.fromFile)
		}
	}
}

// TestStatusHostCopy: a deferred set's host copy (Deferred.Held) is in its
// status and in its size.
func TestStatusHostCopy(t *testing.T) {
	c := New(Config{
		Circuits: map[string]Source{"a": {Size: unit}},
		Load: func(context.Context, string, string) (*groth16.Params, error) {
			p := fakeParams(1000)
			p.H, p.Deferred = nil, &groth16.Deferred{}
			p.Deferred.MarkStreamed()
			p.Deferred.Hold(3 << 20)
			return p, nil
		},
	})
	if _, _, err := c.Preload(context.Background(), "a"); err != nil {
		t.Fatal(err)
	}
	st := c.Status()
	if len(st) != 1 || st[0].HostCopy != 3<<20 || st[0].SizeBytes < 3<<20 || !st[0].FromFile {
		t.Fatalf("status %+v, want a 3 MiB host copy in the size of a set streamed from its file", st)
	}
}
