//go:build unix

package groth16

import (
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
)

// TestDropMapped: the pages dropMapped lets go (only those wholly inside
// the range, whatever its alignment) read back from the file unchanged,
// and a read buffer is never touched (mapFile reports it unmapped).
func TestDropMapped(t *testing.T) {
	page := os.Getpagesize()
	want := make([]byte, 5*page+123)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range want {
		want[i] = byte(rng.Uint32())
	}
	path := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(path, want, 0o644); err != nil {
		t.Fatal(err)
	}
	m, release, mapped, err := mapFile(path, false)
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	if !mapped {
		t.Skip("the file could not be mapped here")
	}
	for _, r := range [][2]int{
		{0, 10},                  // inside one page: nothing whole
		{10, page + 10},          // no whole page either
		{page - 1, 3*page + 1},   // pages 1 and 2
		{0, len(want)},           // every whole page
		{4 * page, len(want)},    // the last whole page, not the tail
		{2*page + 5, 2*page + 5}, // empty
	} {
		dropMapped(m, r[0], r[1])
		if !bytes.Equal(m, want) {
			t.Fatalf("after dropping [%d, %d) the mapping differs from the file", r[0], r[1])
		}
	}
	b, release2, mapped, err := mapFile(path, true)
	if err != nil {
		t.Fatal(err)
	}
	defer release2()
	if mapped || !bytes.Equal(b, want) {
		t.Fatal("noMmap: mapFile reports a mapping, or read other bytes")
	}
}
