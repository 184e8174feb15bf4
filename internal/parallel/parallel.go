package parallel

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// FirstError is FirstErrorOn GOMAXPROCS goroutines.
func FirstError(n int, check func(i int) error) error {
	return FirstErrorOn(runtime.GOMAXPROCS(0), n, check)
}

// FirstErrorOn runs check(0) … check(n−1) on up to workers goroutines (at
// least one), which take the indices in order, and returns the error of
// the lowest failing index, or nil. After a failure no further index is
// taken; every index below it was taken before it and is checked to the
// end, so the error is the one a sequential loop would return.
func FirstErrorOn(workers, n int, check func(i int) error) error {
	errs := make([]error, n)
	var next atomic.Int64
	var failed atomic.Bool
	var wg sync.WaitGroup
	for range min(max(1, workers), n) {
		wg.Go(func() {
			for !failed.Load() {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				if errs[i] = check(i); errs[i] != nil {
					failed.Store(true)
				}
			}
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
