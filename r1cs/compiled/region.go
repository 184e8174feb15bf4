package compiled

import (
	"fmt"
	"os"
	"unsafe"
)

// region is the memory behind one growing array of the build. Where the
// platform allows it (unix) it is an anonymous mapping outside the Go heap:
// a 6 GB build then neither raises the collector's heap goal (which would
// let the synthesis garbage grow as large again) nor copies on growth where
// the kernel can move pages (mremap on Linux).
type region struct {
	b []byte // the whole mapping (or heap block); nil when empty
}

var pageSize = os.Getpagesize()

func roundPage(n int) int { return (n + pageSize - 1) &^ (pageSize - 1) }

// resize makes r at least n bytes, keeping its first min(old, n) bytes.
func (r *region) resize(n int) error {
	n = roundPage(max(n, 1))
	if len(r.b) == n {
		return nil
	}
	var b []byte
	var err error
	if r.b == nil {
		b, err = mapAnon(n)
	} else {
		b, err = remapAnon(r.b, n)
	}
	if err != nil {
		return fmt.Errorf("compiled: reserve %d bytes: %w", n, err)
	}
	r.b = b
	return nil
}

func (r *region) free() {
	if r.b != nil {
		unmapAnon(r.b)
		r.b = nil
	}
}

// vec is a growing vector of T in a region. s spans the whole room and
// changes only when the region grows; n counts the elements in use, so that
// appending stores no pointer (a store of a slice into the heap-allocated
// builder would pass the GC's write barrier on every row while the
// collector runs, as it often does during synthesis).
type vec[T uint16 | uint32] struct {
	r region
	s []T
	n int
}

func (v *vec[T]) size() int { return int(unsafe.Sizeof(T(0))) }

// reserve makes room for extra more elements: at least a quarter more than
// now, so that n appends cost O(log n) remaps.
func (v *vec[T]) reserve(extra int) error {
	if len(v.s)-v.n >= extra {
		return nil
	}
	want := max(v.n+extra, len(v.s)+len(v.s)/4, (1<<20)/v.size())
	if err := v.r.resize(want * v.size()); err != nil {
		return err
	}
	v.s = unsafe.Slice((*T)(unsafe.Pointer(&v.r.b[0])), len(v.r.b)/v.size())
	return nil
}

// trim gives back the room beyond the elements in use and returns them.
func (v *vec[T]) trim() ([]T, error) {
	if v.n == 0 {
		v.r.free()
		v.s = nil
		return []T{}, nil
	}
	if err := v.r.resize(v.n * v.size()); err != nil {
		return nil, err
	}
	v.s = unsafe.Slice((*T)(unsafe.Pointer(&v.r.b[0])), v.n)
	return v.s, nil
}
