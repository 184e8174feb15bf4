package groth16

import (
	"context"
	"errors"
	"testing"
)

// TestAwaitStaging: a context without a wait returns at once; one with a
// wait calls it once, also through a derived context, and every later
// call returns the first one's result.
func TestAwaitStaging(t *testing.T) {
	errEnded := errors.New("ended")
	for _, tc := range []struct {
		name string
		wait func() error // nil: no wait in the context
		want error
	}{
		{"no wait", nil, nil},
		{"the staging handed over", func() error { return nil }, nil},
		{"the unit ended", func() error { return errEnded }, errEnded},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, calls := context.Background(), 0
			if tc.wait != nil {
				ctx = WithStagingWait(ctx, func() error { calls++; return tc.wait() })
			}
			derived, cancel := context.WithCancel(ctx)
			defer cancel()
			for i, c := range []context.Context{ctx, derived, ctx} {
				if err := AwaitStaging(c); !errors.Is(err, tc.want) || (tc.want == nil && err != nil) {
					t.Fatalf("call %d: %v, want %v", i, err, tc.want)
				}
			}
			if want := map[bool]int{true: 0, false: 1}[tc.wait == nil]; calls != want {
				t.Errorf("the wait called %d times, want %d", calls, want)
			}
		})
	}
}
