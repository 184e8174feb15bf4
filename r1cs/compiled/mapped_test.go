package compiled_test

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/cuzk-project/cuzk/r1cs"
	"github.com/cuzk-project/cuzk/r1cs/compiled"
)

// TestMappedBytes: an opened system reports its file mapping and calls its
// OnDropPages hook once, when the pages first go (DropPages or Close); a
// system built in memory or read into the heap reports none and never
// calls it.
func TestMappedBytes(t *testing.T) {
	if runtime.GOOS == "windows" || runtime.GOOS == "plan9" {
		t.Skip("Open reads the file into the heap here")
	}
	s := compile(t, &randCircuit{Seed: 2, Inputs: 5, Rows: 3000}, r1cs.Shape{})
	b := encoded(t, s)
	path := filepath.Join(t.TempDir(), "s.r1cs")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	read, err := compiled.Read(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		sys    *compiled.System
		mapped uint64
	}{
		{"compiled", s, 0},
		{"read", read, 0},
	} {
		calls := 0
		tc.sys.OnDropPages(func() { calls++ })
		tc.sys.DropPages()
		if got := tc.sys.MappedBytes(); got != tc.mapped || calls != 0 {
			t.Errorf("%s: MappedBytes %d, hook called %d times; want 0 and 0", tc.name, got, calls)
		}
	}
	read.Close()

	for _, tc := range []struct {
		name string
		end  func(*compiled.System) // what lets the pages go first
	}{
		{"dropped", func(s *compiled.System) { s.DropPages(); s.DropPages() }},
		{"closed", func(s *compiled.System) {}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opened, err := compiled.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			if got := opened.MappedBytes(); got != uint64(len(b)) {
				t.Fatalf("MappedBytes %d, the file has %d", got, len(b))
			}
			calls := 0
			opened.OnDropPages(func() { calls++ })
			tc.end(opened)
			opened.Close()
			opened.Close()
			if calls != 1 {
				t.Fatalf("hook called %d times, want once", calls)
			}
		})
	}
}
