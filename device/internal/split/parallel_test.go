package split

import (
	"fmt"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
)

// goid is the running goroutine's id, from its stack header.
func goid() string {
	b := make([]byte, 64)
	b = b[:runtime.Stack(b, false)]
	f := strings.Fields(string(b))
	return f[1] // "goroutine N [running]:"
}

func TestParallel(t *testing.T) {
	for _, tc := range []struct{ n, tasks int }{
		{0, 4}, {1, 4}, {5, 0}, {5, 1}, {5, 2}, {64, 3}, {1000, 8}, {3, 100},
	} {
		t.Run(fmt.Sprintf("n%d/tasks%d", tc.n, tc.tasks), func(t *testing.T) {
			calls := make([]atomic.Int32, tc.n)
			var callers atomic.Int32
			me := goid()
			Parallel(tc.n, tc.tasks, func(k int) {
				calls[k].Add(1)
				if goid() == me {
					callers.Add(1)
				}
			})
			for k := range calls {
				if c := calls[k].Load(); c != 1 {
					t.Fatalf("f(%d) ran %d times", k, c)
				}
			}
			if tc.tasks <= 1 && int(callers.Load()) != tc.n {
				t.Fatalf("one task: %d of %d calls on the caller", callers.Load(), tc.n)
			}
		})
	}
}

// TestStartDoesNotWaitForGoroutines: with one P, kept by the caller (f
// never blocks), no new goroutine runs before wait returns, so the caller
// does every f(k) itself, and the goroutines, run later, find nothing left.
// (Waiting for the goroutines instead, the caller would block and they
// would do the work.) A preemption (10 ms on one P, possible on a loaded
// machine) can let a goroutine in: a few tries.
func TestStartDoesNotWaitForGoroutines(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	me := goid()
	const n = 50
	for try := range 5 {
		var elsewhere, calls atomic.Int32
		runtime.Gosched() // a fresh time slice
		wait := Start(n, 8, func(int) {
			calls.Add(1)
			if goid() != me {
				elsewhere.Add(1)
			}
		})
		wait()
		if c := calls.Load(); c != n {
			t.Fatalf("wait returned after %d of %d calls", c, n)
		}
		runtime.Gosched() // the late goroutines run and end
		if c := calls.Load(); c != n {
			t.Fatalf("late goroutines called f: %d calls", c)
		}
		if elsewhere.Load() == 0 {
			return
		}
		t.Logf("try %d: %d of %d calls on other goroutines", try, elsewhere.Load(), n)
	}
	t.Fatal("the caller waited for its goroutines to do the work")
}
