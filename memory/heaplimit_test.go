package memory

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
		if got := HeapLimitOf(tc.budget, tc.offHeap); got != tc.want {
			t.Errorf("HeapLimitOf(%d, %d) = %d, want %d", tc.budget, tc.offHeap, got, tc.want)
		}
	}
}

// TestHeapLimitOffHeap: what the limit leaves out is the count last set,
// nothing without one, and a nil HeapLimit counts nothing.
func TestHeapLimitOffHeap(t *testing.T) {
	h := NewHeapLimit(100)
	if got := h.OffHeap(); got != 0 {
		t.Fatalf("no count: %d", got)
	}
	h.CountOffHeap(func() uint64 { return 30 })
	if got := h.OffHeap(); got != 30 {
		t.Fatalf("counted %d, want 30", got)
	}
	h.CountOffHeap(nil)
	var none *HeapLimit
	none.CountOffHeap(func() uint64 { return 1 })
	if h.OffHeap() != 0 || none.OffHeap() != 0 {
		t.Fatal("a cleared or nil limit counts")
	}
}
