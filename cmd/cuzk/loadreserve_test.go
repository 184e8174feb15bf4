package main

import (
	"testing"

	"github.com/cuzk-project/cuzk/device/cuda"
	"github.com/cuzk-project/cuzk/srs"
)

// TestLoadReserve: a parameter file's load reserves one fill's buffers
// where every CUDA device holds the set whole, and the whole set where
// they do not (it is decoded into host memory for them to stream), so the
// budget counts the decoded set while it is decoded, not after. Idle sets
// are evicted first, one at a time, while the set does not fit whole and
// one is left to evict.
func TestLoadReserve(t *testing.T) {
	const given = 47_373_928_632
	for _, tc := range []struct {
		name      string
		src       srs.Source
		wholeFrom int // evictions after which the devices hold it whole; -1: never
		idle      int // sets makeRoom can evict
		want      uint64
		evictions int
	}{
		{"held whole", srs.Source{Path: "p.params"}, 0, 2, cuda.FillBytes, 0},
		{"held whole, its size given", srs.Source{Path: "p.params", Size: given}, 0, 2, cuda.FillBytes, 0},
		{"streamed: the file's size", srs.Source{Path: "p.params"}, -1, 0, 0, 0},
		{"streamed: its size given", srs.Source{Path: "p.params", Size: given}, -1, 0, given, 0},
		{"whole once two idle sets go", srs.Source{Path: "p.params", Size: given}, 2, 3, cuda.FillBytes, 2},
		{"never whole: every idle set tried, then streamed", srs.Source{Path: "p.params", Size: given}, -1, 3, given, 3},
		{"whole after more evictions than there are idle sets: streamed", srs.Source{Path: "p.params", Size: given}, 4, 3, given, 3},
	} {
		var asked string
		evicted := 0
		holdWhole := func(path string) bool {
			asked = path
			return tc.wholeFrom >= 0 && evicted >= tc.wholeFrom
		}
		makeRoom := func() bool {
			if evicted == tc.idle {
				return false
			}
			evicted++
			return true
		}
		got := loadReserve(tc.src, holdWhole, makeRoom)
		if got != tc.want || asked != tc.src.Path || evicted != tc.evictions {
			t.Errorf("%s: reserves %d (asked about %q) after %d evictions, want %d (about %q) after %d",
				tc.name, got, asked, evicted, tc.want, tc.src.Path, tc.evictions)
		}
	}
}
