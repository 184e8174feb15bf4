package compiled

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// parallel calls f on consecutive ranges [lo, hi) covering [0, n), at most
// grain long (the last shorter), from runtime.GOMAXPROCS goroutines taking
// the next range as they finish. It returns when every range is done.
func parallel(n, grain int, f func(lo, hi int)) { parallelTasks(n, grain, 0, f) }

// parallelTasks is parallel on at most tasks goroutines (0 or less:
// runtime.GOMAXPROCS).
func parallelTasks(n, grain, tasks int, f func(lo, hi int)) {
	if n <= 0 {
		return
	}
	if tasks <= 0 {
		tasks = runtime.GOMAXPROCS(0)
	}
	grain = max(grain, 1)
	chunks := (n + grain - 1) / grain
	workers := min(tasks, chunks)
	if workers <= 1 {
		f(0, n)
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for {
				k := int(next.Add(1) - 1)
				if k >= chunks {
					return
				}
				lo := k * grain
				f(lo, min(lo+grain, n))
			}
		})
	}
	wg.Wait()
}

// grainFor splits n items into about eight ranges per goroutine, no fewer
// than min items each.
func grainFor(n, minGrain int) int {
	return max(minGrain, n/(8*runtime.GOMAXPROCS(0))+1)
}
