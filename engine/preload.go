package engine

import (
	"context"
	"fmt"
	"time"
)

// Preload makes a parameter set resident ahead of use. A load that waits
// in the memory budget while no unit is in flight is given up with
// ErrNoMemory: the budget serves waiters in order, so it would hold up
// every unit behind it, and the memory it waits for may be held by the
// parameters of jobs that only those units can finish.
func (e *Engine) Preload(ctx context.Context, circuitID string) (alreadyLoaded bool, loadTime time.Duration, err error) {
	pctx, cancel := context.WithCancel(ctx)
	defer cancel()
	type loaded struct {
		already bool
		took    time.Duration
	}
	got := goStep(nil, func() (loaded, error) {
		already, took, err := e.preload(pctx, circuitID)
		return loaded{already, took}, err
	})
	// Two polls: a wait the budget is just about to serve is not hopeless.
	r, err := awaitUnlessStuck(e, got, nil, 2)
	if err == nil {
		return r.v.already, r.v.took, r.err
	}
	cancel()
	if r := <-got; r.err == nil { // it got there meanwhile
		return r.v.already, r.v.took, nil
	}
	return false, 0, fmt.Errorf("%w: preloading %q: %d of %d bytes are held by parameters in use and no partition is in flight to free more",
		ErrNoMemory, circuitID, e.budget.Limit()-e.budget.Available(), e.budget.Limit())
}

func (e *Engine) preload(ctx context.Context, circuitID string) (bool, time.Duration, error) {
	if c, ok := e.cfg.Params.(ParamsCache); ok {
		return c.Preload(ctx, circuitID)
	}
	t0 := time.Now()
	_, release, err := e.cfg.Params.Acquire(ctx, circuitID)
	if err != nil {
		return false, 0, err
	}
	if release != nil {
		release()
	}
	return false, time.Since(t0), nil
}

// Evict drops a parameter set from residency if nobody uses it.
func (e *Engine) Evict(circuitID string) (wasLoaded bool, freedBytes uint64, err error) {
	if c, ok := e.cfg.Params.(ParamsCache); ok {
		return c.Evict(circuitID)
	}
	return false, 0, nil
}
