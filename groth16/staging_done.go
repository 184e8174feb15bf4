package groth16

import (
	"context"
	"sync"
)

// A Run may be done with the staging its Prepare took well before it
// returns: the CUDA device reads a and b from it only to upload them,
// within the first fifth of its kernels' time. Keeping that staging then
// rather than when Run returns lets the next partition's Prepare, which
// waits for it (AwaitStaging), run beside the rest of the kernels. The
// engine puts what keeping the staging does in Run's context; a device
// calls StagingDone once with the report of that staging (StagingBytes and
// KeepStaging, as RunReport's), from any goroutine, before its Run
// returns, and leaves that staging out of the Partial's RunReport. A
// device that never calls it keeps the staging when Run returns.

type stagingDoneKey struct{}

// stagingDone is the hook a context carries, called at most once.
type stagingDone struct {
	once sync.Once
	done func(RunReport)
}

// WithStagingDone returns ctx carrying done, which the first StagingDone
// on it (or a context derived from it) calls.
func WithStagingDone(ctx context.Context, done func(RunReport)) context.Context {
	return context.WithValue(ctx, stagingDoneKey{}, &stagingDone{done: done})
}

// CarriesStagingDone reports whether ctx carries such a hook: a device
// need not watch for the end of its reads where nobody would be told.
func CarriesStagingDone(ctx context.Context) bool {
	_, ok := ctx.Value(stagingDoneKey{}).(*stagingDone)
	return ok
}

// StagingDone hands rr, the staging a Run in flight no longer reads, to
// the hook ctx carries, and reports whether it did: false where ctx
// carries none or it was called already; the caller then keeps the
// staging in the Partial, for the RunReport.
func StagingDone(ctx context.Context, rr RunReport) bool {
	d, _ := ctx.Value(stagingDoneKey{}).(*stagingDone)
	if d == nil {
		return false
	}
	called := false
	d.once.Do(func() {
		called = true
		d.done(rr)
	})
	return called
}
