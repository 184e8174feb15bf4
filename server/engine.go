package server

import (
	"context"
	"time"

	"github.com/cuzk-project/cuzk/engine"
)

// Engine is what the server needs from the proving engine. *engine.Engine
// satisfies it; tests use a fake.
//
// Errors are matched with errors.Is against the engine's sentinels:
// ErrInvalidRequest and ErrUnknownCircuit become InvalidArgument,
// ErrNotFound becomes NotFound, ErrClosed becomes Unavailable, context
// errors keep their meaning, anything else is Internal.
type Engine interface {
	// Submit enqueues a request and returns its job id and its position
	// in the queue (0 = next).
	Submit(ctx context.Context, req engine.Request) (jobID string, queuePos int, err error)
	// Await blocks until the job ends, ctx ends, or timeout passes
	// (timeout 0 = no limit). On timeout it returns a Result with
	// Status StatusTimeout and a nil error.
	Await(ctx context.Context, jobID string, timeout time.Duration) (engine.Result, error)
	// Prove is Submit followed by Await with no timeout.
	Prove(ctx context.Context, req engine.Request) (engine.Result, error)
	// Cancel cancels a job; wasRunning reports whether any of its work
	// had started.
	Cancel(jobID string) (wasRunning bool, err error)
	// Status returns a consistent snapshot of the engine's state.
	Status() engine.Snapshot
	// Preload makes a circuit's parameters resident.
	Preload(ctx context.Context, circuitID string) (alreadyLoaded bool, loadTime time.Duration, err error)
	// Evict drops a circuit's parameters if nothing is using them.
	Evict(circuitID string) (wasLoaded bool, freed uint64, err error)
}
