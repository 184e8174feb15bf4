package circuits

import (
	"context"
	"sync"
)

// shared runs at most one load per key at a time and hands its result to
// every caller waiting for it. A load runs detached from the callers'
// contexts (another caller may still want it); a caller whose context ends
// stops waiting. A failed load is forgotten, so the next call retries; a
// successful one is kept when keep is set, else forgotten too (the next
// call loads again, e.g. to look at the disk once more).
type shared[T any] struct {
	mu      sync.Mutex
	entries map[string]*sharedEntry[T]
}

type sharedEntry[T any] struct {
	ready chan struct{} // closed when v or err is set
	v     T
	err   error
}

func (s *shared[T]) get(ctx context.Context, key string, keep bool, load func() (T, error)) (T, error) {
	s.mu.Lock()
	if s.entries == nil {
		s.entries = make(map[string]*sharedEntry[T])
	}
	e, ok := s.entries[key]
	if !ok {
		e = &sharedEntry[T]{ready: make(chan struct{})}
		s.entries[key] = e
		go func() {
			defer close(e.ready)
			e.v, e.err = load()
			if e.err != nil || !keep {
				s.mu.Lock()
				delete(s.entries, key)
				s.mu.Unlock()
			}
		}()
	}
	s.mu.Unlock()
	select {
	case <-e.ready:
		return e.v, e.err
	case <-ctx.Done():
		var zero T
		return zero, ctx.Err()
	}
}

// peek returns key's value if it is loaded and kept, without loading it.
func (s *shared[T]) peek(key string) (T, bool) {
	s.mu.Lock()
	e, ok := s.entries[key]
	s.mu.Unlock()
	if ok {
		select {
		case <-e.ready:
			return e.v, e.err == nil
		default:
		}
	}
	var zero T
	return zero, false
}

// len is the number of keys loading or kept.
func (s *shared[T]) len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.entries)
}
