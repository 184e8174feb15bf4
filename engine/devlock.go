package engine

import "sync"

// deviceLock is the per-device lock held around Run. Unlike sync.Mutex it
// hands the device to the waiting unit with the best key (priority, job
// sequence, partition), so a CRITICAL unit that is waiting goes next even
// if a NORMAL unit asks later (sync.Mutex lets a newcomer barge).
type deviceLock struct {
	mu      sync.Mutex
	held    bool
	waiters []lockWaiter
}

type lockWaiter struct {
	key   unitKey
	ready chan struct{}
}

func (l *deviceLock) lock(k unitKey) {
	l.mu.Lock()
	if !l.held {
		l.held = true
		l.mu.Unlock()
		return
	}
	w := lockWaiter{key: k, ready: make(chan struct{})}
	l.waiters = append(l.waiters, w)
	l.mu.Unlock()
	<-w.ready // ownership is handed over by unlock
}

func (l *deviceLock) unlock() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.waiters) == 0 {
		l.held = false
		return
	}
	best := 0
	for i := range l.waiters {
		if l.waiters[i].key.less(l.waiters[best].key) {
			best = i
		}
	}
	w := l.waiters[best]
	l.waiters = append(l.waiters[:best], l.waiters[best+1:]...)
	close(w.ready) // held stays true: w owns the lock now
}
