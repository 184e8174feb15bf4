package main

import (
	"testing"

	"github.com/cuzk-project/cuzk/device/cuda"
	"github.com/cuzk-project/cuzk/srs"
)

// TestLoadReserve: a parameter file's load reserves one fill's buffers
// where every CUDA device holds the set whole, and the whole set where
// they do not (it is decoded into host memory for them to stream), so the
// budget counts the decoded set while it is decoded, not after.
func TestLoadReserve(t *testing.T) {
	const given = 47_373_928_632
	for _, tc := range []struct {
		name  string
		src   srs.Source
		whole bool
		want  uint64
	}{
		{"held whole", srs.Source{Path: "p.params"}, true, cuda.FillBytes},
		{"held whole, its size given", srs.Source{Path: "p.params", Size: given}, true, cuda.FillBytes},
		{"streamed: the file's size", srs.Source{Path: "p.params"}, false, 0},
		{"streamed: its size given", srs.Source{Path: "p.params", Size: given}, false, given},
	} {
		var asked string
		got := loadReserve(tc.src, func(path string) bool { asked = path; return tc.whole })
		if got != tc.want || asked != tc.src.Path {
			t.Errorf("%s: reserves %d (asked about %q), want %d (about %q)", tc.name, got, asked, tc.want, tc.src.Path)
		}
	}
}
