package merkle

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/cuzk-project/cuzk/hash"
)

// TestEmptyDigestsZeroPieces checks the SHA-254 empty-subtree digests
// against the zero-piece commitments go-commp-utils hard-codes: the comm_d
// of an empty sector of every size from 128 B to 2 TiB.
func TestEmptyDigestsZeroPieces(t *testing.T) {
	b, err := os.ReadFile("testdata/zero_piece_comms.json")
	if err != nil {
		t.Fatal(err)
	}
	var v struct {
		Comms []struct {
			Log2 int    `json:"leaves_log2"`
			Comm string `json:"comm"`
		} `json:"zero_piece_comms"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	if len(v.Comms) != 35 {
		t.Fatalf("%d zero comms, want 35", len(v.Comms))
	}
	d, err := EmptyDigests(Sha254{}, ShapeBinary, 1<<36)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range v.Comms {
		if got := d[c.Log2].String(); got != c.Comm {
			t.Errorf("2^%d zero leaves: %s, want %s", c.Log2, got, c.Comm)
		}
	}
}

func TestEmptyDigestsMatchTree(t *testing.T) {
	for _, tc := range []struct {
		h      Hasher
		shape  Shape
		leaves int
	}{
		{Sha254{}, ShapeBinary, 64},
		{Poseidon{}, Shape800, 64},
		{Poseidon{}, Shape880, 512},
		{Poseidon{}, Shape882, 1024},
		{Poseidon{}, Shape{Base: 2}, 8},
	} {
		tree, err := New(tc.h, tc.shape, make([]hash.Domain, tc.leaves))
		if err != nil {
			t.Fatal(err)
		}
		d, err := EmptyDigests(tc.h, tc.shape, uint64(tc.leaves))
		if err != nil {
			t.Fatal(err)
		}
		if d[len(d)-1] != tree.Root() {
			t.Errorf("%s %s %d leaves: empty root %s, tree %s", tc.h.Name(), tc.shape, tc.leaves, d[len(d)-1], tree.Root())
		}
	}
}

func TestEmptyDigestsBadShape(t *testing.T) {
	for _, tc := range []struct {
		shape  Shape
		leaves uint64
	}{
		{Shape880, 32},            // 32 leaves do not split into 8 base trees of 8^k
		{Shape{Base: 3}, 9},       // arity not a power of two
		{Shape800, 0},             // no leaves
		{Shape{Base: 8}, 1 << 63}, // beyond int
	} {
		if _, err := EmptyDigests(Poseidon{}, tc.shape, tc.leaves); err == nil {
			t.Errorf("%s with %d leaves: no error", tc.shape, tc.leaves)
		}
	}
}
