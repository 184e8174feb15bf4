package engine

import (
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/cuzk-project/cuzk/timeline"
)

// end gives an accepted job its final result exactly once (conclude).
// It reports whether this call ended the job.
func (e *Engine) end(j *job, st Status, proof []byte, cause error) bool {
	return e.conclude(j, st, proof, cause, true)
}

// conclude sets j's final result unless it has one, removes its queued
// units, cancels its context so running units stop at the next boundary,
// and wakes every waiter. An accepted job (counted is true) is also
// counted, gets its JOB_DONE event and, when it failed, a log line; a
// request whose plan failed was never accepted and gets none of them.
// conclude reports whether this call set the result.
func (e *Engine) conclude(j *job, st Status, proof []byte, cause error, counted bool) bool {
	now := time.Now()
	j.mu.Lock()
	if j.state == stateDone {
		j.mu.Unlock()
		return false
	}
	j.state = stateDone
	j.finished = now
	if j.urgent {
		j.urgent = false
		e.urgent.end(j.plan.CircuitID)
	}
	parts := 0
	if j.plan != nil { // nil: ended while planning
		parts = len(j.plan.Partitions)
	}
	r := Result{JobID: j.id, Status: st, Total: now.Sub(j.submitted), SRSLoad: j.srsLoad}
	// The parts add up to Total: queue + srs_load + synthesis + gpu +
	// other (jobclock.go); parameter loading is time without a unit at
	// work, so it comes out of the queue part.
	queue, _, synth, gpu := j.clock.stop(now)
	r.QueueWait = max(queue-j.srsLoad, 0)
	if st == StatusCompleted {
		r.Proof = proof
		r.Synthesis, r.GPUCompute = synth, gpu
	}
	if cause != nil {
		r.Error = cause.Error()
		r.Invalid = st == StatusFailed && errors.Is(cause, ErrInvalidRequest)
	}
	j.result = r
	// What only a running job needs goes now; the result stays for the TTL.
	j.asm, j.inputs = nil, nil
	j.mu.Unlock()

	j.cancel()
	for _, u := range e.synthQ.removeJob(j) {
		e.retire(u)
	}
	for _, u := range e.devQ.removeJob(j) {
		e.retire(u)
	}
	if counted { // before done closes: a woken waiter sees the counters
		e.mu.Lock()
		if st == StatusCompleted {
			e.completed++
		} else if st == StatusFailed {
			e.failed++
		}
		e.mu.Unlock()
	}
	close(j.done)
	if counted {
		e.rec.Record(timeline.JobDone, j.id, -1, -1, -1)
		logEnd(slog.Default(), r, j.kind, parts)
	}
	return true
}

// logEnd writes an accepted job's one log line: INFO when it completed or
// was cancelled, WARN with the error when it failed.
func logEnd(l *slog.Logger, r Result, kind ProofKind, partitions int) {
	attrs := []any{"job", r.JobID, "kind", kind.String(), "partitions", partitions, "ms", r.Total.Milliseconds()}
	switch r.Status {
	case StatusCompleted:
		l.Info("proof completed", attrs...)
	case StatusCancelled:
		l.Info("proof cancelled", append(attrs, "err", r.Error)...)
	default:
		l.Warn("proof failed", append(attrs, "err", r.Error)...)
	}
}

// fail ends j as failed (once; later failures of its other units are
// dropped).
func (e *Engine) fail(j *job, err error) { e.end(j, StatusFailed, nil, err) }

// unitFailed fails u's job (unless it already ended) and retires u.
func (e *Engine) unitFailed(u *unit, step string, err error) bool {
	if u.job.ctx.Err() == nil {
		e.fail(u.job, fmt.Errorf("partition %d: %s: %w", u.key.partition, step, err))
	}
	e.retire(u)
	return false
}

// retire drops a unit: its memory goes back to the budget and, for the
// job's last unit, the parameters go back to their source.
func (e *Engine) retire(u *unit) {
	e.endAhead(u)
	e.endClaim(u)
	u.res.Close()
	u.res = nil
	u.a, u.aux = nil, nil
	j := u.job
	j.mu.Lock()
	j.live--
	var release func()
	if j.live == 0 {
		release, j.release = j.release, nil
		j.params, j.plan = nil, nil
	}
	j.mu.Unlock()
	if release != nil {
		release()
		// Jobs set aside for want of memory may fit now.
		e.synthQ.unpark()
	}
	// Last: until the parameters are back, this unit may still free memory.
	if u.inflight {
		u.inflight = false
		if e.inflight.Add(-1) == 0 {
			// A memory wait begun while units were in flight may now
			// never end: let the dispatcher look again.
			e.synthQ.interruptWait()
		}
	}
}

// safeStep turns a panic of a synthesizer, a device, a planner's verifier
// or a parameter source into an error: one bad unit must not take the
// daemon down.
func safeStep[T any](f func() (T, error)) (v T, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panic: %v", r)
		}
	}()
	return f()
}

// outcome is the result of a step run on its own goroutine (goStep).
type outcome[T any] struct {
	v   T
	err error
}

// goStep runs f through safeStep on a new goroutine, counted in wg unless
// wg is nil, and delivers its outcome on the returned channel, which is
// buffered: nobody has to take it.
func goStep[T any](wg interface {
	Add(int)
	Done()
}, f func() (T, error)) <-chan outcome[T] {
	got := make(chan outcome[T], 1)
	if wg != nil {
		wg.Add(1)
	}
	go func() {
		if wg != nil {
			defer wg.Done()
		}
		var o outcome[T]
		o.v, o.err = safeStep(f)
		got <- o
	}()
	return got
}
