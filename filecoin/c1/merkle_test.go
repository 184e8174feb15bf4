package c1

import (
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/cuzk-project/cuzk/hash/merkle"
)

// TestNative: FromNative splits a hash/merkle proof into serde's layers and
// Native joins them again; the leaf index and verification survive.
func TestNative(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	for _, c := range []struct {
		shape          merkle.Shape
		leaves         int
		kind           ProofKind
		base, sub, top int
	}{
		{merkle.Shape800, 64, KindSingle, 2, 0, 0},
		{merkle.Shape880, 512, KindSub, 2, 1, 0},
		{merkle.Shape882, 1024, KindTop, 2, 1, 1},
		{merkle.ShapeBinary, 64, KindSingle, 6, 0, 0},
	} {
		t.Run(c.shape.String(), func(t *testing.T) {
			leaves := randomDomains(rng, c.leaves)
			var h merkle.Hasher = merkle.Poseidon{}
			if c.shape == merkle.ShapeBinary {
				h = merkle.Sha254{}
			}
			tree, err := merkle.New(h, c.shape, leaves)
			if err != nil {
				t.Fatal(err)
			}
			i := rng.IntN(c.leaves)
			p, err := tree.Prove(i)
			if err != nil {
				t.Fatal(err)
			}
			var m MerkleProof
			if err := m.FromNative(p, c.shape); err != nil {
				t.Fatal(err)
			}
			if m.Kind != c.kind || len(m.Base) != c.base || len(m.Sub) != c.sub || len(m.Top) != c.top {
				t.Fatalf("kind %s levels %d/%d/%d, want %s %d/%d/%d", m.Kind, len(m.Base), len(m.Sub), len(m.Top), c.kind, c.base, c.sub, c.top)
			}
			if m.LeafIndex() != uint64(i) {
				t.Fatalf("leaf index %d, want %d", m.LeafIndex(), i)
			}
			n := m.Native()
			if !reflect.DeepEqual(n, p) {
				t.Fatal("Native() != the proof FromNative was given")
			}
			if err := n.Verify(h); err != nil {
				t.Fatal(err)
			}
		})
	}
	var m MerkleProof
	if err := m.FromNative(&merkle.Proof{Path: make([]merkle.PathElement, 1)}, merkle.Shape880); err == nil {
		t.Fatal("FromNative accepted a path too short for 8-8-0")
	}
}
