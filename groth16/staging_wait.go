package groth16

import (
	"context"
	"sync"
)

// A unit may be prepared while the staging its Prepare will take is still
// held by a Run in flight (the engine's reserving ahead: the staging is
// handed over when that Run keeps it). Its Prepare can do the work that
// needs no staging meanwhile: the engine puts the wait for the handover
// in Prepare's context, and a device calls AwaitStaging right before it
// takes a staging of the size its PrepareReport.Keeps reports. A device
// that never calls it is waited for after its Prepare returns.

type stagingWaitKey struct{}

// stagingWait is the wait a context carries, called at most once.
type stagingWait struct {
	once sync.Once
	wait func() error
	err  error
}

// WithStagingWait returns ctx carrying wait, which the first AwaitStaging
// on it (or a context derived from it) calls; later calls return the
// first one's result.
func WithStagingWait(ctx context.Context, wait func() error) context.Context {
	return context.WithValue(ctx, stagingWaitKey{}, &stagingWait{wait: wait})
}

// AwaitStaging waits for the staging the caller's unit is to take, where
// ctx carries such a wait (nil at once where not). An error means the
// unit will not have it and has been dealt with by the engine: the
// Prepare releases what it took and returns the error.
func AwaitStaging(ctx context.Context) error {
	w, _ := ctx.Value(stagingWaitKey{}).(*stagingWait)
	if w == nil {
		return nil
	}
	w.once.Do(func() { w.err = w.wait() })
	return w.err
}
