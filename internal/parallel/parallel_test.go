package parallel

import (
	"errors"
	"fmt"
	"runtime"
	"sync/atomic"
	"testing"
	"time"
)

func TestFirstError(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	tests := []struct {
		name string
		n    int
		fail map[int]bool
		want int // failing index reported, -1 for nil
	}{
		{"none", 100, nil, -1},
		{"empty", 0, nil, -1},
		{"one", 100, map[int]bool{37: true}, 37},
		{"lowest of several", 1000, map[int]bool{999: true, 5: true, 400: true}, 5},
		{"first", 10, map[int]bool{0: true, 1: true}, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for range 20 { // schedules differ run to run; the answer must not
				var ran atomic.Int64
				err := FirstError(tc.n, func(i int) error {
					ran.Add(1)
					if tc.fail[i] {
						return fmt.Errorf("index %d", i)
					}
					return nil
				})
				if tc.want < 0 {
					if err != nil || ran.Load() != int64(tc.n) {
						t.Fatalf("err = %v after %d of %d checks", err, ran.Load(), tc.n)
					}
					continue
				}
				if err == nil || err.Error() != fmt.Sprintf("index %d", tc.want) {
					t.Fatalf("err = %v, want index %d", err, tc.want)
				}
			}
		})
	}
}

// TestFirstErrorStops: after a failure the remaining indices are not all
// taken. Each check sleeps, so that checking all would take seconds.
func TestFirstErrorStops(t *testing.T) {
	const n = 100_000
	var ran atomic.Int64
	bad := errors.New("bad")
	err := FirstError(n, func(i int) error {
		ran.Add(1)
		if i == 0 {
			return bad
		}
		time.Sleep(10 * time.Microsecond)
		return nil
	})
	if !errors.Is(err, bad) || ran.Load() == n {
		t.Fatalf("err = %v after %d checks", err, ran.Load())
	}
}

// TestFirstErrorOn: at any worker count, none and more than n included,
// every index is checked once and the lowest failure is the answer.
func TestFirstErrorOn(t *testing.T) {
	for _, workers := range []int{-1, 0, 1, 3, 64} {
		var ran atomic.Int64
		err := FirstErrorOn(workers, 50, func(i int) error {
			ran.Add(1)
			if i == 7 || i == 30 {
				return fmt.Errorf("index %d", i)
			}
			return nil
		})
		if err == nil || err.Error() != "index 7" {
			t.Errorf("workers %d: err = %v, want index 7", workers, err)
		}
		ran.Store(0)
		if err := FirstErrorOn(workers, 50, func(int) error { ran.Add(1); return nil }); err != nil || ran.Load() != 50 {
			t.Errorf("workers %d: err = %v after %d of 50 checks", workers, err, ran.Load())
		}
	}
}
