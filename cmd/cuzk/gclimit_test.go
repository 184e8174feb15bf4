package main

import "testing"

// TestHeapLimit: the Go memory limit is the budget less the page-locked
// memory outside the heap, never below a quarter of the budget.
func TestHeapLimit(t *testing.T) {
	const gib = 1 << 30
	for _, tc := range []struct {
		budget, offHeap uint64
		want            int64
	}{
		{110 * gib, 0, 110 * gib},
		{110 * gib, 22 * gib, 88 * gib},
		{100, 75, 25},
		{100, 90, 25}, // the floor
		{100, 1 << 62, 25},
		{0, 5, 0},
		{1 << 63, 0, 1<<63 - 1}, // past int64
	} {
		if got := heapLimit(tc.budget, tc.offHeap); got != tc.want {
			t.Errorf("heapLimit(%d, %d) = %d, want %d", tc.budget, tc.offHeap, got, tc.want)
		}
	}
}
