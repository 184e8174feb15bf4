package cpu

import "sync"

// pool recycles slices of T between proofs. get returns a slice of length n
// whose contents are unspecified.
type pool[T any] struct{ p sync.Pool }

func (p *pool[T]) get(n int) []T {
	if v, ok := p.p.Get().(*[]T); ok && cap(*v) >= n {
		return (*v)[:n]
	}
	return make([]T, n)
}

func (p *pool[T]) put(s []T) {
	if cap(s) == 0 {
		return
	}
	s = s[:0]
	p.p.Put(&s)
}
