package merkle

import (
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/cuzk-project/cuzk/hash"
)

// TestSparseMatchesTree builds each shape both ways over the same leaves
// (a few set, the rest zero) and requires the same root and, for every
// leaf, the same proof.
func TestSparseMatchesTree(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, tc := range []struct {
		h      Hasher
		shape  Shape
		leaves int
		set    int
	}{
		{Sha254{}, ShapeBinary, 64, 5},
		{Sha254{}, ShapeBinary, 64, 0},
		{Poseidon{}, Shape800, 64, 7},
		{Poseidon{}, Shape880, 512, 20},
		{Poseidon{}, Shape882, 1024, 30},
		{Poseidon{}, Shape{Base: 2}, 16, 16}, // every leaf set
	} {
		full := make([]hash.Domain, tc.leaves)
		set := map[uint64]hash.Domain{}
		for range tc.set {
			i := rng.IntN(tc.leaves)
			var e fr.Element
			e.SetUint64(rng.Uint64())
			full[i] = hash.DomainOf(&e)
			set[uint64(i)] = full[i]
		}
		tree, err := New(tc.h, tc.shape, full)
		if err != nil {
			t.Fatal(err)
		}
		sp, err := NewSparse(tc.h, tc.shape, uint64(tc.leaves), set)
		if err != nil {
			t.Fatal(err)
		}
		if sp.Root() != tree.Root() {
			t.Fatalf("%s %s: sparse root %s, tree %s", tc.h.Name(), tc.shape, sp.Root(), tree.Root())
		}
		for i := range tc.leaves {
			want, _ := tree.Prove(i)
			got, err := sp.Prove(uint64(i))
			if err != nil {
				t.Fatal(err)
			}
			if !equalProofs(got, want) {
				t.Fatalf("%s %s leaf %d: sparse proof differs from the tree's", tc.h.Name(), tc.shape, i)
			}
			if err := got.Verify(tc.h); err != nil {
				t.Fatalf("%s %s leaf %d: %v", tc.h.Name(), tc.shape, i, err)
			}
			if got.LeafIndex() != uint64(i) {
				t.Fatalf("leaf %d: proof index %d", i, got.LeafIndex())
			}
			if err := got.CheckShape(tc.shape, tc.leaves); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// TestSparseSectorSized proves a leaf of a 2^31-leaf 8-8-2 tree (64 GiB's
// tree R) with a handful of set leaves: only touched paths are hashed.
func TestSparseSectorSized(t *testing.T) {
	set := map[uint64]hash.Domain{}
	for _, i := range []uint64{1, 1 << 20, 1<<31 - 1, 123456789} {
		var e fr.Element
		e.SetUint64(i + 7)
		set[i] = hash.DomainOf(&e)
	}
	sp, err := NewSparse(Poseidon{}, Shape882, 1<<31, set)
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range set {
		p, err := sp.Prove(i)
		if err != nil {
			t.Fatal(err)
		}
		if p.Leaf != v || p.LeafIndex() != i {
			t.Fatalf("leaf %d: proof of leaf %d with value %s", i, p.LeafIndex(), p.Leaf)
		}
		if err := p.Verify(Poseidon{}); err != nil {
			t.Fatal(err)
		}
		if err := p.CheckShape(Shape882, 1<<31); err != nil {
			t.Fatal(err)
		}
	}
	// An unset leaf proves zero under the same root.
	p, err := sp.Prove(5)
	if err != nil {
		t.Fatal(err)
	}
	if p.Leaf != (hash.Domain{}) {
		t.Fatal("unset leaf is not zero")
	}
	if err := p.Verify(Poseidon{}); err != nil {
		t.Fatal(err)
	}
}

func TestSparseErrors(t *testing.T) {
	if _, err := NewSparse(Poseidon{}, Shape800, 64, map[uint64]hash.Domain{64: {}}); err == nil {
		t.Error("leaf beyond the tree accepted")
	}
	if _, err := NewSparse(Poseidon{}, Shape880, 32, nil); !errors.Is(err, ErrShape) {
		t.Errorf("bad shape: %v, want ErrShape", err)
	}
	var bad hash.Domain
	for i := range bad {
		bad[i] = 0xff
	}
	if _, err := NewSparse(Poseidon{}, Shape800, 64, map[uint64]hash.Domain{3: bad}); !errors.Is(err, hash.ErrNotCanonical) {
		t.Errorf("non-canonical leaf: %v, want ErrNotCanonical", err)
	}
	sp, err := NewSparse(Poseidon{}, Shape800, 64, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sp.Prove(64); err == nil {
		t.Error("proof of a leaf beyond the tree")
	}
}

func equalProofs(a, b *Proof) bool {
	if a.Leaf != b.Leaf || a.Root != b.Root || len(a.Path) != len(b.Path) {
		return false
	}
	for l := range a.Path {
		x, y := a.Path[l], b.Path[l]
		if x.Index != y.Index || len(x.Siblings) != len(y.Siblings) {
			return false
		}
		for k := range x.Siblings {
			if x.Siblings[k] != y.Siblings[k] {
				return false
			}
		}
	}
	return true
}
