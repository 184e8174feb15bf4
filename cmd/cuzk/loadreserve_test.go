package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/cuzk-project/cuzk/device/cuda"
	"github.com/cuzk-project/cuzk/srs"
)

// TestLoadReserve: a parameter file's load reserves one fill's buffers
// where every CUDA device may hold the set whole, and the whole file where
// one cannot (the set is decoded into host memory for it to stream), so
// the budget counts the decoded set while it is decoded, not after.
func TestLoadReserve(t *testing.T) {
	path := filepath.Join(t.TempDir(), "set.params")
	const fileBytes = 3 * cuda.FillBytes
	f, err := os.Create(path)
	if err == nil {
		err = f.Truncate(fileBytes) // sparse: only its size matters
		f.Close()
	}
	if err != nil {
		t.Fatal(err)
	}
	const big, small = 1 << 40, fileBytes - 1
	for _, tc := range []struct {
		name   string
		src    srs.Source
		limits []uint64
		want   uint64
	}{
		{"every device holds it", srs.Source{Path: path}, []uint64{big, big}, cuda.FillBytes},
		{"one device streams it", srs.Source{Path: path}, []uint64{big, small}, fileBytes},
		{"its size given, not the file's", srs.Source{Path: path, Size: 2 * big}, []uint64{big}, 2 * big},
		{"a limit equal to the file", srs.Source{Path: path}, []uint64{fileBytes}, cuda.FillBytes},
		{"no file: the load says why", srs.Source{Path: path + ".missing"}, []uint64{small}, cuda.FillBytes},
	} {
		if got := loadReserve(tc.src, tc.limits); got != tc.want {
			t.Errorf("%s: reserves %d, want %d", tc.name, got, tc.want)
		}
	}
}
