package split

import "sync/atomic"

// Parallel runs f(0..n-1) on the calling goroutine and up to tasks-1 new
// ones, and returns once every f(k) has returned: Start(n, tasks, f)().
func Parallel(n, tasks int, f func(k int)) { Start(n, tasks, f)() }

// Start begins f(0..n-1) on up to tasks-1 new goroutines and returns
// wait, which runs on the caller's goroutine every f(k) no goroutine has
// begun and returns once every f(k) has returned. It does not wait for
// the goroutines themselves: on a machine whose cores are all busy (the
// prover's other stages run beside a device's steps) a new goroutine can
// sit in the run queue for a whole round of time slices, tens to hundreds
// of milliseconds, and the caller then does its share instead. One that
// starts after the work is gone finds none and ends without calling f.
// wait must be called exactly once.
func Start(n, tasks int, f func(k int)) (wait func()) {
	helpers := min(tasks, n) - 1
	if helpers <= 0 {
		return func() {
			for k := range n {
				f(k)
			}
		}
	}
	var next, done atomic.Int64
	finished := make(chan struct{})
	work := func() {
		for k := int(next.Add(1) - 1); k < n; k = int(next.Add(1) - 1) {
			f(k)
			if done.Add(1) == int64(n) {
				close(finished)
			}
		}
	}
	for range helpers {
		go work()
	}
	return func() {
		work()
		<-finished
	}
}
