package memory

import (
	"context"
	"math"
	"os"
	"runtime/debug"
	"sync/atomic"
	"time"
)

// HeapLimit holds the Go collector's soft memory limit
// (debug.SetMemoryLimit) to a budget less the host memory the budget
// counts outside the Go heap (CountOffHeap: page-locked buffers, file
// mappings), at least a quarter of the budget. With the default GOGC
// alone a heap holding two 4 GB witnesses may grow to twice that before
// it collects the ones the engine already gave back; and the heap does
// not see the memory outside it, so a heap let grow to the whole budget
// beside it takes the process's resident size over the budget by that
// much (the 32 GiB PoRep under a 24 GiB device limit: 119.6 GiB with a
// 110 GiB budget before the pinned buffers were subtracted, 115.0 GiB
// with them and the 5.9 GB system mapping counted nowhere).
//
// The limit is the process's: one HeapLimit a process, started once.
type HeapLimit struct {
	budget  uint64
	offHeap atomic.Pointer[func() uint64]
}

// NewHeapLimit is a limit for a budget of budget bytes.
func NewHeapLimit(budget uint64) *HeapLimit { return &HeapLimit{budget: budget} }

// CountOffHeap sets what the budget counts outside the Go heap, asked
// every second once the limit is started (nil: nothing). A nil
// HeapLimit ignores it.
func (h *HeapLimit) CountOffHeap(f func() uint64) {
	if h == nil {
		return
	}
	if f == nil {
		h.offHeap.Store(nil)
		return
	}
	h.offHeap.Store(&f)
}

// OffHeap is what the budget counts outside the Go heap now.
func (h *HeapLimit) OffHeap() uint64 {
	if h == nil {
		return 0
	}
	if f := h.offHeap.Load(); f != nil {
		return (*f)()
	}
	return 0
}

// Start sets the limit, unless the GOMEMLIMIT environment variable sets
// one, and lowers or raises it every second by OffHeap until ctx ends.
func (h *HeapLimit) Start(ctx context.Context) {
	if os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	last := HeapLimitOf(h.budget, 0)
	debug.SetMemoryLimit(last)
	go func() {
		t := time.NewTicker(time.Second)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
			if l := HeapLimitOf(h.budget, h.OffHeap()); l != last {
				debug.SetMemoryLimit(l)
				last = l
			}
		}
	}()
}

// HeapLimitOf is the Go memory limit for a budget of which offHeap bytes
// are held outside the Go heap: the budget less them, at least a quarter
// of it.
func HeapLimitOf(budget, offHeap uint64) int64 {
	l := budget - min(offHeap, budget-budget/4)
	return int64(min(l, math.MaxInt64))
}
