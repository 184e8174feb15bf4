package groth16

import (
	"context"
	"sync"
	"testing"
)

// TestStagingDone: a context without a hook takes nothing (the caller
// keeps the staging); one with a hook hands the first report to it, also
// through a derived context and from several goroutines at once (run with
// -race), and refuses every later one.
func TestStagingDone(t *testing.T) {
	for _, hook := range []bool{false, true} {
		t.Run(map[bool]string{false: "no hook", true: "hook"}[hook], func(t *testing.T) {
			ctx := context.Background()
			var mu sync.Mutex
			var got []uint64
			if hook {
				ctx = WithStagingDone(ctx, func(rr RunReport) {
					mu.Lock()
					got = append(got, rr.StagingBytes)
					mu.Unlock()
				})
			}
			if CarriesStagingDone(ctx) != hook {
				t.Fatalf("CarriesStagingDone %v, want %v", !hook, hook)
			}
			derived, cancel := context.WithCancel(ctx)
			defer cancel()
			var wg sync.WaitGroup
			taken := make([]bool, 8)
			for i := range taken {
				wg.Go(func() { taken[i] = StagingDone(derived, RunReport{StagingBytes: uint64(i + 1)}) })
			}
			wg.Wait()
			n := 0
			for _, ok := range taken {
				if ok {
					n++
				}
			}
			if want := map[bool]int{false: 0, true: 1}[hook]; n != want || len(got) != want {
				t.Fatalf("%d calls taken, the hook called %d times; want %d", n, len(got), want)
			}
			if hook && !taken[got[0]-1] {
				t.Errorf("the hook got call %d's report, which was refused", got[0])
			}
		})
	}
}
