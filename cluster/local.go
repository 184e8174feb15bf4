package cluster

import (
	"context"
	"fmt"
	"time"

	"github.com/cuzk-project/cuzk/engine"
)

// Preload makes a circuit's parameters resident in the local engine; a
// frontend has none.
func (c *Cluster) Preload(ctx context.Context, circuitID string) (bool, time.Duration, error) {
	if c.local == nil {
		return false, 0, ErrNoLocalEngine
	}
	return c.local.Preload(ctx, circuitID)
}

// Evict drops a circuit's parameters from the local engine.
func (c *Cluster) Evict(circuitID string) (bool, uint64, error) {
	if c.local == nil {
		return false, 0, ErrNoLocalEngine
	}
	return c.local.Evict(circuitID)
}

// ErrNoLocalEngine answers what only a daemon with a device can do.
var ErrNoLocalEngine = fmt.Errorf("%w: this daemon is a cluster frontend without a device", engine.ErrInvalidRequest)
