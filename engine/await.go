package engine

import (
	"context"
	"fmt"
	"time"
)

// Await waits for the job's result; every caller gets its own copy. A
// finished job answers at once, whatever the timeout or ctx. Otherwise
// timeout > 0 bounds the wait: when it passes first, the result has Status
// StatusTimeout and the job goes on; timeout ≤ 0 waits without a bound.
// ctx ending stops the wait, not the job (Cancel does that). An unknown
// (or pruned) id returns ErrNotFound.
func (e *Engine) Await(ctx context.Context, jobID string, timeout time.Duration) (Result, error) {
	e.mu.Lock()
	j, ok := e.jobs[jobID]
	e.mu.Unlock()
	if !ok {
		return Result{}, fmt.Errorf("%w: %q", ErrNotFound, jobID)
	}
	select {
	case <-j.done:
		return j.finalResult(), nil
	default:
	}
	var expired <-chan time.Time
	if timeout > 0 {
		t := time.NewTimer(timeout)
		defer t.Stop()
		expired = t.C
	}
	select {
	case <-j.done:
		return j.finalResult(), nil
	case <-expired:
		return Result{JobID: jobID, Status: StatusTimeout, Error: fmt.Sprintf("not done after %v", timeout)}, nil
	case <-ctx.Done():
		return Result{}, ctx.Err()
	}
}

// Prove submits req and waits for its result. ctx ending stops the wait,
// not the job: another caller may have joined it by its request id.
func (e *Engine) Prove(ctx context.Context, req Request) (Result, error) {
	id, _, err := e.Submit(ctx, req)
	if err != nil {
		return Result{}, err
	}
	return e.Await(ctx, id, 0)
}

// Cancel ends a job: queued units are removed at once, running ones stop at
// their next stage boundary. wasRunning reports whether any of its work had
// started (a unit's synthesis). Cancelling a finished job changes nothing.
func (e *Engine) Cancel(jobID string) (wasRunning bool, err error) {
	e.mu.Lock()
	j, ok := e.jobs[jobID]
	e.mu.Unlock()
	if !ok {
		return false, fmt.Errorf("%w: %q", ErrNotFound, jobID)
	}
	j.mu.Lock()
	wasRunning = j.state == stateRunning
	j.mu.Unlock()
	e.end(j, StatusCancelled, nil, ErrCancelled)
	return wasRunning, nil
}
