package merkle

import (
	"encoding/json"
	"errors"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/cuzk-project/cuzk/hash"
)

type vectorFile struct {
	ZeroTrees []struct {
		Leaves int    `json:"leaves"`
		Root   string `json:"root"`
	} `json:"sha254_zero_trees"`
	TreeRLastRoots []string `json:"tree_r_last_roots"`
	CommRLast      string   `json:"comm_r_last"`
}

func loadVectors(t *testing.T) *vectorFile {
	t.Helper()
	b, err := os.ReadFile("testdata/vectors.json")
	if err != nil {
		t.Fatal(err)
	}
	var v vectorFile
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	return &v
}

func TestSha254ZeroTrees(t *testing.T) {
	for _, v := range loadVectors(t).ZeroTrees {
		tree, err := NewSha254(make([]hash.Domain, v.Leaves))
		if err != nil {
			t.Fatal(err)
		}
		if got := tree.Root().String(); got != v.Root {
			t.Errorf("%d zero leaves: root %s want %s", v.Leaves, got, v.Root)
		}
	}
}

func TestCommRLastGolden(t *testing.T) {
	v := loadVectors(t)
	roots := make([]hash.Domain, len(v.TreeRLastRoots))
	for i, s := range v.TreeRLastRoots {
		var err error
		if roots[i], err = hash.ParseDomain(s); err != nil {
			t.Fatal(err)
		}
	}
	got, err := Poseidon{}.Node(roots)
	if err != nil {
		t.Fatal(err)
	}
	if got.String() != v.CommRLast {
		t.Fatalf("comm_r_last %s want %s", got, v.CommRLast)
	}
}

// randomLeaves returns n canonical leaves (top byte masked like Fr32 data).
func randomLeaves(n int, seed uint64) []hash.Domain {
	rng := rand.New(rand.NewPCG(seed, 7))
	out := make([]hash.Domain, n)
	for i := range out {
		for j := 0; j < 32; j += 8 {
			v := rng.Uint64()
			for k := 0; k < 8; k++ {
				out[i][j+k] = byte(v >> (8 * k))
			}
		}
		out[i][31] &= 0x3f
	}
	return out
}

func TestProofs(t *testing.T) {
	for _, tc := range []struct {
		name   string
		h      Hasher
		shape  Shape
		leaves int
	}{
		{"sha254-binary", Sha254{}, ShapeBinary, 64},
		{"poseidon-8-0-0", Poseidon{}, Shape800, 64},
		{"poseidon-8-8-0", Poseidon{}, Shape880, 512},
		{"poseidon-8-8-2", Poseidon{}, Shape882, 1024},
		{"poseidon-4-2-0", Poseidon{}, Shape{Base: 4, Sub: 2}, 32},
		{"poseidon-2-0-0", Poseidon{}, Shape{Base: 2}, 16},
	} {
		t.Run(tc.name, func(t *testing.T) {
			leaves := randomLeaves(tc.leaves, uint64(tc.leaves))
			tree, err := New(tc.h, tc.shape, leaves)
			if err != nil {
				t.Fatal(err)
			}
			step := 1
			if testing.Short() {
				step = tc.leaves/16 + 1
			}
			for i := 0; i < tc.leaves; i += step {
				p, err := tree.Prove(i)
				if err != nil {
					t.Fatal(err)
				}
				if p.Leaf != leaves[i] || p.Root != tree.Root() {
					t.Fatalf("leaf %d: wrong leaf or root in proof", i)
				}
				if err := p.Verify(tc.h); err != nil {
					t.Fatalf("leaf %d: %v", i, err)
				}
				if err := p.CheckShape(tc.shape, tc.leaves); err != nil {
					t.Fatalf("leaf %d: %v", i, err)
				}
				if got := p.LeafIndex(); got != uint64(i) {
					t.Fatalf("leaf %d: path index %d", i, got)
				}
				bad := *p
				bad.Leaf[0] ^= 1
				if err := bad.Verify(tc.h); !errors.Is(err, ErrBadProof) {
					t.Fatalf("leaf %d: tampered leaf verified (%v)", i, err)
				}
				bad = *p
				bad.Path = append([]PathElement(nil), p.Path...)
				last := len(bad.Path) - 1
				bad.Path[last].Index = (bad.Path[last].Index + 1) % bad.Path[last].Arity()
				if err := bad.Verify(tc.h); !errors.Is(err, ErrBadProof) {
					t.Fatalf("leaf %d: wrong index verified (%v)", i, err)
				}
			}
		})
	}
}

// TestCompoundRoot rebuilds an 8-8-2 root from independently built base
// trees: the sub layer hashes groups of 8 base roots with Poseidon-8 and the
// top layer the 2 sub roots with Poseidon-2.
func TestCompoundRoot(t *testing.T) {
	leaves := randomLeaves(1024, 3)
	tree, err := NewPoseidon(Shape882, leaves)
	if err != nil {
		t.Fatal(err)
	}
	var subs []hash.Domain
	for g := range 2 {
		var roots []hash.Domain
		for b := range 8 {
			start := (g*8 + b) * 64
			bt, err := NewPoseidon(Shape800, leaves[start:start+64])
			if err != nil {
				t.Fatal(err)
			}
			roots = append(roots, bt.Root())
		}
		s, err := Poseidon{}.Node(roots)
		if err != nil {
			t.Fatal(err)
		}
		subs = append(subs, s)
	}
	root, err := Poseidon{}.Node(subs)
	if err != nil {
		t.Fatal(err)
	}
	if root != tree.Root() {
		t.Fatal("8-8-2 root differs from its hand-built layers")
	}
}

func TestBadShapes(t *testing.T) {
	for _, tc := range []struct {
		shape  Shape
		leaves int
	}{
		{Shape{Base: 3}, 9},
		{Shape{Base: 8}, 63},
		{Shape{Base: 8}, 1},
		{Shape{Base: 8, Top: 2}, 128},
		{Shape882, 512},
		{Shape880, 0},
	} {
		if _, err := NewPoseidon(tc.shape, make([]hash.Domain, tc.leaves)); !errors.Is(err, ErrShape) {
			t.Errorf("%s with %d leaves: %v", tc.shape, tc.leaves, err)
		}
	}
	tree, err := NewPoseidon(Shape800, randomLeaves(64, 1))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tree.Prove(64); err == nil {
		t.Error("leaf 64 of 64 proved")
	}
	p, _ := tree.Prove(3)
	if err := p.CheckShape(Shape880, 512); !errors.Is(err, ErrBadProof) {
		t.Errorf("8-0-0 proof passed an 8-8-0 shape check: %v", err)
	}
	var notCanonical hash.Domain
	for i := range notCanonical {
		notCanonical[i] = 0xff
	}
	leaves := randomLeaves(64, 2)
	leaves[5] = notCanonical
	if _, err := NewPoseidon(Shape800, leaves); !errors.Is(err, hash.ErrNotCanonical) {
		t.Errorf("non-canonical leaf: %v", err)
	}
}
