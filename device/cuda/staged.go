package cuda

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/cuzk-project/cuzk/groth16"
	"github.com/cuzk-project/cuzk/memory"
)

// A classic Run reads its a, b staging only to upload it, within the
// first fifth or so of its kernels' time. Where the engine can use it
// then (groth16.StagingDone), the library writes a word once a and b are
// uploaded (cuzk_job.staged), and the device keeps the staging at that
// moment rather than when Run returns: the next partition's Prepare,
// which waits for that staging, runs beside the rest of the Run instead
// of after it.

// stagedPoll is how often a Run in flight looks whether its a and b are
// uploaded: a millisecond late against a Prepare of about a second.
const stagedPoll = time.Millisecond

// watchStaged arms job to note when w's a and b are uploaded, and watches
// for the note while the Run's library call runs (k.mu held): once it
// comes, the a, b staging goes to ctx's hook with what keeping it does.
// Nothing is armed where ctx carries no hook, w has no a, b staging, or
// CUZK_KEEP_EARLY=0 was in the environment (to measure against).
// The returned stop ends the watch; call it once the library call
// returned, before anything else touches w.
func (d *Device) watchStaged(ctx context.Context, k *kernels, w *prepared, job *cJob) (stop func()) {
	if d.noEarly || k.staged == nil || w.ab.p == nil || !groth16.CarriesStagingDone(ctx) {
		return func() {}
	}
	k.stagedSeq++
	seq := k.stagedSeq
	job.Staged, job.StagedSeq = k.staged, seq
	quit, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		tick := time.NewTicker(stagedPoll)
		defer tick.Stop()
		for atomic.LoadUint32(k.staged) != seq {
			select {
			case <-quit:
				return
			case <-tick.C:
			}
		}
		ab := w.takeAB()
		keep := func(share *memory.Reservation) { d.keepAB(ab, share) }
		if !groth16.StagingDone(ctx, groth16.RunReport{StagingBytes: ab.n, KeepStaging: keep}) {
			w.ab = ab // taken by nobody: kept when Run returns
		}
	}()
	return func() {
		close(quit)
		<-done
	}
}

// keepAB keeps the a, b staging ab in the device's pool with share, the
// part of a unit's reservation that counts it, or frees it (off the
// caller's path) where the pool does not keep it.
func (d *Device) keepAB(ab pinned, share *memory.Reservation) {
	if ab.p == nil {
		share.Close()
		return
	}
	if !d.pool.keeps(ab, share) {
		share.Close()
		go d.pool.put(ab) // may free it: off the caller's path
		return
	}
	d.pool.putKept(ab, share, keptAB, d.pool.newSet(), sizeClass(ab.n))
}
