package memory

import (
	"context"
	"errors"
	"math/rand"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestReserveAndTwoStepRelease(t *testing.T) {
	b := New(100)
	r, err := b.Reserve(context.Background(), 60)
	if err != nil {
		t.Fatal(err)
	}
	if got := b.Used(); got != 60 {
		t.Fatalf("used %d, want 60", got)
	}
	r.Release(45) // a/b/c share
	if got, held := b.Used(), r.Held(); got != 15 || held != 15 {
		t.Fatalf("after partial release used %d held %d, want 15 15", got, held)
	}
	r.Release(100) // clamped to what is left
	r.Close()
	r.Close()
	if got := b.Used(); got != 0 {
		t.Fatalf("after close used %d, want 0", got)
	}
	var nilRes *Reservation
	nilRes.Close()
}

func TestTryReserve(t *testing.T) {
	tests := []struct {
		name   string
		hold   uint64
		ask    uint64
		wantOK bool
	}{
		{"fits", 40, 60, true},
		{"exact", 0, 100, true},
		{"over", 41, 60, false},
		{"larger than budget", 0, 101, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := New(100)
			h, _ := b.TryReserve(tc.hold)
			r, ok := b.TryReserve(tc.ask)
			if ok != tc.wantOK {
				t.Fatalf("TryReserve(%d) with %d held = %v, want %v", tc.ask, tc.hold, ok, tc.wantOK)
			}
			r.Close()
			h.Close()
			if b.Used() != 0 {
				t.Fatalf("used %d after closing all", b.Used())
			}
		})
	}
}

// TestUnlimitedBudgetDoesNotWrap: an engine without a configured budget
// uses New(^uint64(0)); sizes near the limit must not wrap Used around and
// grant more than the limit.
func TestUnlimitedBudgetDoesNotWrap(t *testing.T) {
	const max = ^uint64(0)
	b := New(max)
	big, ok := b.TryReserve(max - 10)
	if !ok {
		t.Fatal("a reservation within the limit was refused")
	}
	if r, ok := b.TryReserve(11); ok {
		used := b.Used()
		r.Close()
		t.Fatalf("TryReserve(11) with %d of %d used succeeded; used became %d", max-10, max, used)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if r, err := b.Reserve(ctx, 11); err == nil {
		r.Close()
		t.Fatalf("Reserve(11) with %d of %d used succeeded", max-10, max)
	}
	big.Close()
	if b.Used() != 0 {
		t.Fatalf("used %d after closing all", b.Used())
	}
}

func TestReserveLargerThanLimit(t *testing.T) {
	b := New(10)
	if _, err := b.Reserve(context.Background(), 11); !errors.Is(err, ErrExceedsLimit) {
		t.Fatalf("err = %v, want ErrExceedsLimit", err)
	}
}

func TestReserveWaitsAndCancels(t *testing.T) {
	b := New(100)
	hold, _ := b.TryReserve(80)

	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if _, err := b.Reserve(ctx, 30); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want deadline exceeded", err)
	}
	if b.Waiting() != 0 || b.Used() != 80 {
		t.Fatalf("cancelled waiter left state: waiting %d used %d", b.Waiting(), b.Used())
	}

	got := make(chan *Reservation)
	go func() {
		r, err := b.Reserve(context.Background(), 30)
		if err != nil {
			t.Error(err)
		}
		got <- r
	}()
	waitFor(t, func() bool { return b.Waiting() == 1 })
	hold.Release(10) // 70 used: 30 fits now
	r := <-got
	if b.Used() != 100 {
		t.Fatalf("used %d, want 100", b.Used())
	}
	r.Close()
	hold.Close()
	if b.Used() != 0 {
		t.Fatalf("used %d, want 0", b.Used())
	}
}

func TestWaitersAreServedInOrder(t *testing.T) {
	b := New(100)
	hold, _ := b.TryReserve(100)
	granted := make([]chan *Reservation, 3)
	for i, n := range []uint64{90, 8, 8} {
		waitFor(t, func() bool { return b.Waiting() == i })
		granted[i] = make(chan *Reservation, 1)
		go func() {
			r, err := b.Reserve(context.Background(), n)
			if err != nil {
				t.Error(err)
			}
			granted[i] <- r
		}()
	}
	waitFor(t, func() bool { return b.Waiting() == 3 })
	// 10 bytes free: enough for a small waiter, but the large one is
	// ahead of them, and a TryReserve must not jump the queue either.
	hold.Release(10)
	if _, ok := b.TryReserve(1); ok {
		t.Fatal("TryReserve jumped ahead of waiters")
	}
	time.Sleep(10 * time.Millisecond)
	if n := b.Waiting(); n != 3 {
		t.Fatalf("%d waiters left, want 3: a small waiter overtook the large head", n)
	}
	hold.Close() // 100 free: the 90 goes first, then the first 8 fits
	big := <-granted[0]
	small := <-granted[1]
	time.Sleep(10 * time.Millisecond)
	if n := b.Waiting(); n != 1 {
		t.Fatalf("%d waiters left, want 1", n)
	}
	big.Close()
	last := <-granted[2]
	small.Close()
	last.Close()
	if b.Used() != 0 || b.Waiting() != 0 {
		t.Fatalf("used %d waiting %d, want 0 0", b.Used(), b.Waiting())
	}
}

func TestEvictorIsConsulted(t *testing.T) {
	b := New(100)
	cached, _ := b.TryReserve(70) // an idle parameter set
	var calls atomic.Int32
	b.SetEvictor(func(need uint64) uint64 {
		calls.Add(1)
		if need != 20 {
			t.Errorf("evictor asked for %d, want 20", need)
		}
		n := cached.Held()
		cached.Close()
		return n
	})
	r, err := b.Reserve(context.Background(), 50)
	if err != nil {
		t.Fatal(err)
	}
	if calls.Load() != 1 {
		t.Fatalf("evictor called %d times, want 1", calls.Load())
	}
	r.Close()
}

// TestAwaitDoesNotEvict: Await waits for room given back (a staging being
// freed) without asking the evictor, and takes it at once where it fits.
func TestAwaitDoesNotEvict(t *testing.T) {
	b := New(100)
	freeing, _ := b.TryReserve(70) // memory on its way back
	var calls atomic.Int32
	b.SetEvictor(func(uint64) uint64 { calls.Add(1); return 0 })
	got := make(chan error, 1)
	go func() {
		r, err := b.Await(context.Background(), 50)
		if err == nil {
			r.Close()
		}
		got <- err
	}()
	for b.Waiting() == 0 {
		time.Sleep(time.Millisecond)
	}
	freeing.Close()
	if err := <-got; err != nil {
		t.Fatal(err)
	}
	r, err := b.Await(context.Background(), 100)
	if err != nil {
		t.Fatal(err)
	}
	r.Close()
	if n := calls.Load(); n != 0 {
		t.Fatalf("the evictor was asked %d times", n)
	}
}

func TestTryReserveEvicting(t *testing.T) {
	tests := []struct {
		name    string
		evicts  bool // the evictor frees the idle 70
		waiter  bool // someone is queued first
		ask     uint64
		wantOK  bool
		wantUse uint64 // used afterwards, the idle 70 included while held
	}{
		{"fits", false, false, 30, true, 100},
		{"evictor makes room", true, false, 50, true, 50},
		{"evictor frees nothing", false, false, 50, false, 70},
		{"queued behind a waiter", true, true, 10, false, 70},
		{"larger than the budget", true, false, 101, false, 70},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := New(100)
			idle, _ := b.TryReserve(70)
			b.SetEvictor(func(need uint64) uint64 {
				if !tc.evicts {
					return 0
				}
				n := idle.Held()
				idle.Close()
				return n
			})
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if tc.waiter {
				b.SetEvictor(nil)
				go b.Reserve(ctx, 40)
				waitFor(t, func() bool { return b.Waiting() == 1 })
			}
			r, ok := b.TryReserveEvicting(tc.ask)
			if ok != tc.wantOK || b.Used() != tc.wantUse {
				t.Fatalf("ok %v used %d, want %v %d", ok, b.Used(), tc.wantOK, tc.wantUse)
			}
			r.Close()
		})
	}
}

func TestNotifyEvictsForWaiter(t *testing.T) {
	b := New(100)
	cached, _ := b.TryReserve(70)
	var evictable atomic.Bool // in use at first
	b.SetEvictor(func(need uint64) uint64 {
		if !evictable.Load() {
			return 0
		}
		n := cached.Held()
		cached.Close()
		return n
	})
	done := make(chan error)
	go func() {
		r, err := b.Reserve(context.Background(), 50)
		r.Close()
		done <- err
	}()
	waitFor(t, func() bool { return b.Waiting() == 1 })
	evictable.Store(true)
	b.Notify()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// TestNeverExceedsLimit hammers the budget from many goroutines and checks
// the invariant on every grant.
func TestNeverExceedsLimit(t *testing.T) {
	const limit = 1000
	b := New(limit)
	var live atomic.Int64
	var wg sync.WaitGroup
	for g := 0; g < 32; g++ {
		wg.Add(1)
		go func(seed int64) {
			defer wg.Done()
			rng := rand.New(rand.NewSource(seed))
			for i := 0; i < 200; i++ {
				n := uint64(rng.Intn(300) + 1)
				var r *Reservation
				if rng.Intn(4) == 0 {
					var ok bool
					if r, ok = b.TryReserve(n); !ok {
						continue
					}
				} else {
					ctx, cancel := context.WithTimeout(context.Background(), time.Duration(rng.Intn(3))*time.Millisecond)
					var err error
					r, err = b.Reserve(ctx, n)
					cancel()
					if err != nil {
						continue
					}
				}
				if v := live.Add(int64(n)); v > limit {
					t.Errorf("live reservations %d exceed the limit %d", v, limit)
				}
				part := uint64(rng.Intn(int(n) + 1))
				live.Add(-int64(part))
				r.Release(part)
				live.Add(-int64(r.Held()))
				r.Close()
			}
		}(int64(g))
	}
	wg.Wait()
	if b.Used() != 0 || b.Waiting() != 0 {
		t.Fatalf("used %d waiting %d after all closed", b.Used(), b.Waiting())
	}
	if b.Peak() > limit {
		t.Fatalf("peak %d exceeds the limit", b.Peak())
	}
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not reached in 5 s")
		}
		time.Sleep(time.Millisecond)
	}
}
