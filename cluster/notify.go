package cluster

import (
	"context"
	"sync"
	"time"
)

// notifyChannel is the PostgreSQL channel a result's request id is sent
// on when it is written.
const notifyChannel = "cuzk_result"

// waiters are this daemon's Await calls by request id.
type waiters struct {
	mu sync.Mutex
	m  map[string]map[chan struct{}]struct{}
}

// add registers a waiter for id; done removes it.
func (w *waiters) add(id string) (wake <-chan struct{}, done func()) {
	ch := make(chan struct{}, 1)
	w.mu.Lock()
	if w.m[id] == nil {
		w.m[id] = map[chan struct{}]struct{}{}
	}
	w.m[id][ch] = struct{}{}
	w.mu.Unlock()
	return ch, func() {
		w.mu.Lock()
		delete(w.m[id], ch)
		if len(w.m[id]) == 0 {
			delete(w.m, id)
		}
		w.mu.Unlock()
	}
}

// wake tells id's waiters to look again.
func (w *waiters) wake(id string) {
	w.mu.Lock()
	for ch := range w.m[id] {
		select {
		case ch <- struct{}{}:
		default:
		}
	}
	w.mu.Unlock()
}

// wakeAll tells every waiter to look again (after the listener missed
// notifications).
func (w *waiters) wakeAll() {
	w.mu.Lock()
	for _, chs := range w.m {
		for ch := range chs {
			select {
			case ch <- struct{}{}:
			default:
			}
		}
	}
	w.mu.Unlock()
}

// listen holds one connection that LISTENs for results and wakes their
// waiters, until ctx ends; a lost connection is made again (the waiters
// poll meanwhile).
func (c *Cluster) listen(ctx context.Context) {
	backoff := 100 * time.Millisecond
	for ctx.Err() == nil {
		err := c.listenOnce(ctx)
		if ctx.Err() != nil {
			return
		}
		c.log.Warn("result listener lost its connection; waiters poll until it is back", "err", err)
		select {
		case <-ctx.Done():
			return
		case <-time.After(backoff):
		}
		backoff = min(2*backoff, 10*time.Second)
	}
}

func (c *Cluster) listenOnce(ctx context.Context) error {
	conn, err := c.pool.Acquire(ctx)
	if err != nil {
		return err
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, "LISTEN "+notifyChannel); err != nil {
		return err
	}
	defer conn.Exec(context.WithoutCancel(ctx), "UNLISTEN "+notifyChannel) //nolint:errcheck
	c.waiters.wakeAll()                                                    // what was written while nobody listened
	for {
		n, err := conn.Conn().WaitForNotification(ctx)
		if err != nil {
			return err
		}
		c.waiters.wake(n.Payload)
	}
}
