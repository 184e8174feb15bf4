package engine

import "sync"

// cores is the share of the CPUs the syntheses in flight take: a
// partition whose synthesis keeps several goroutines busy
// (Partition.WitnessThreads) takes as many of SynthesisWorkers' slots, so
// that a big partition synthesizes over many cores instead of beside nine
// others that all finish late, and the device gets its first unit early.
// CRITICAL units take none (they have their own slot).
type cores struct {
	mu   sync.Mutex
	free int
	wake chan struct{} // a token after each give
}

func newCores(n int) *cores { return &cores{free: n, wake: make(chan struct{}, 1)} }

// take takes n cores if they are free.
func (c *cores) take(n int) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if n > c.free {
		return false
	}
	c.free -= n
	return true
}

// give returns n cores.
func (c *cores) give(n int) {
	if n == 0 {
		return
	}
	c.mu.Lock()
	c.free += n
	c.mu.Unlock()
	select {
	case c.wake <- struct{}{}:
	default:
	}
}

// coresFor is what u's synthesis takes: its WitnessThreads on the
// witness-only path (at least 1, at most every slot), 1 otherwise, none
// for a CRITICAL unit.
func (e *Engine) coresFor(u *unit) int {
	if u.key.priority == PriorityCritical {
		return 0
	}
	n := 1
	if e.witnessPath(u.job.plan, &u.part) {
		n = max(n, u.part.WitnessThreads)
	}
	return min(n, e.cfg.SynthesisWorkers)
}
