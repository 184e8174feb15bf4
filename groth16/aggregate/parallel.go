package aggregate

import (
	"runtime"
	"sync"
)

// parallel splits [0, n) into one contiguous range per CPU and runs f on
// each; it returns the first error. It waits for every range.
func parallel(n int, f func(lo, hi int) error) error {
	w := runtime.GOMAXPROCS(0)
	if w > n {
		w = n
	}
	if w <= 1 {
		if n == 0 {
			return nil
		}
		return f(0, n)
	}
	errs := make([]error, w)
	var wg sync.WaitGroup
	for k := 0; k < w; k++ {
		lo, hi := k*n/w, (k+1)*n/w
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[k] = f(lo, hi)
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
