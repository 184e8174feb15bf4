package sdr

import (
	"encoding/hex"
	"errors"
	"math"
	"math/bits"
	"testing"

	"github.com/cuzk-project/cuzk/filecoin"
)

func mustGraph(t testing.TB, p filecoin.SealProof) *Graph {
	t.Helper()
	info, err := p.Info()
	if err != nil {
		t.Fatal(err)
	}
	g, err := GraphFor(info)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// Parents derived by an implementation that reproduces the parent cache
// digests of rust-fil-proofs storage-proofs-porep/parent_cache.json.
func TestDerivedParents(t *testing.T) {
	tests := []struct {
		p   filecoin.SealProof
		v   uint32
		drg [DRGDegree]uint32
		exp [ExpDegree]uint32
	}{
		{filecoin.StackedDrg2KiBV1_1, 2, [6]uint32{1, 1, 1, 0, 1, 0}, [8]uint32{30, 28, 55, 63, 63, 36, 37, 36}},
		{filecoin.StackedDrg2KiBV1_1, 63, [6]uint32{62, 15, 42, 62, 61, 62}, [8]uint32{0, 15, 30, 30, 28, 42, 49, 38}},
		{filecoin.StackedDrg32GiBV1_1, 1000, [6]uint32{999, 999, 993, 999, 987, 994},
			[8]uint32{610880257, 52958456, 114467229, 442886740, 935021104, 986163808, 486080124, 611062435}},
	}
	for _, tc := range tests {
		g := mustGraph(t, tc.p)
		var drg [DRGDegree]uint32
		var exp [ExpDegree]uint32
		g.DRGParents(tc.v, &drg)
		g.ExpanderParents(tc.v, &exp)
		if drg != tc.drg {
			t.Errorf("%v node %d: DRG %v, want %v", tc.p, tc.v, drg, tc.drg)
		}
		if exp != tc.exp {
			t.Errorf("%v node %d: expander %v, want %v", tc.p, tc.v, exp, tc.exp)
		}
		var all [Degree]uint32
		g.Parents(tc.v, &all)
		if [6]uint32(all[:6]) != tc.drg || [8]uint32(all[6:]) != tc.exp {
			t.Errorf("%v node %d: Parents %v", tc.p, tc.v, all)
		}
	}
}

func TestSeedsAndKeys(t *testing.T) {
	g := mustGraph(t, filecoin.StackedDrg2KiBV1_1)
	seed := g.DRGSeed()
	if s := hex.EncodeToString(seed[:]); s[:8] != "3be68542" || s[len(s)-4:] != "2d7d" {
		t.Errorf("2 KiB V1_1 DRG seed %s, want 3be68542…2d7d", s)
	}
	if k := g.FeistelKeys(); [3]uint64(k[:3]) != [3]uint64{0x90b15b1c4509e47a, 0xdc5378c03df3f21b, 0xfa76fc24deb9d7ac} {
		t.Errorf("2 KiB V1_1 Feistel keys %x", k)
	}
	g = mustGraph(t, filecoin.StackedDrg32GiBV1_1)
	if k := g.FeistelKeys(); [3]uint64(k[:3]) != [3]uint64{0x35a20d6c881b3e73, 0x11063648dc13a120, 0xa8c1ad029b31fcb5} {
		t.Errorf("32 GiB V1_1 Feistel keys %x", k)
	}
}

// n_buckets is ⌈log2(5v)⌉ in f64 upstream; the bit length is the same.
func TestBucketCount(t *testing.T) {
	check := func(v uint64) {
		m := v * mPrime
		if got, want := uint64(bits.Len64(m)), uint64(math.Ceil(math.Log2(float64(m)))); got != want {
			t.Fatalf("v=%d: bit length %d, ⌈log2⌉ %d", v, got, want)
		}
	}
	for v := uint64(2); v < 1<<16; v++ {
		check(v)
	}
	for k := uint(4); k <= 32; k++ {
		for d := uint64(0); d < 64; d++ {
			for _, v := range []uint64{(1<<k)/5 - d, (1<<k)/5 + d} {
				if v >= 2 && v < 1<<32 {
					check(v)
				}
			}
		}
	}
}

func TestDRGProperties(t *testing.T) {
	for _, p := range []filecoin.SealProof{filecoin.StackedDrg2KiBV1, filecoin.StackedDrg8MiBV1_1, filecoin.StackedDrg32GiBV1_1} {
		g := mustGraph(t, p)
		pred := 0
		if g.API() == filecoin.APIV1_0 {
			pred = 5
		}
		var out [DRGDegree]uint32
		for _, v := range []uint32{0, 1} {
			g.DRGParents(v, &out)
			if out != [DRGDegree]uint32{} {
				t.Errorf("%v node %d: %v, want zeros", p, v, out)
			}
		}
		for v := uint32(2); v < 2000 && uint64(v) < g.Nodes(); v++ {
			g.DRGParents(v, &out)
			if out[pred] != v-1 {
				t.Fatalf("%v node %d: predecessor slot %d = %d", p, v, pred, out[pred])
			}
			for _, q := range out {
				if q >= v {
					t.Fatalf("%v node %d: parent %d not below", p, v, q)
				}
			}
		}
	}
}

// The Feistel network is a permutation of [0, n), and the table agrees with
// Blake2b.
func TestFeistelPermutation(t *testing.T) {
	for _, n := range []uint64{8, 512, 1000, 4096, 8 << 10} {
		f := newFeistel(n, [4]uint64{1, 2, 3, 4})
		seen := make([]bool, n)
		for i := uint64(0); i < n; i++ {
			u := f.permute(i)
			if u >= n || seen[u] {
				t.Fatalf("n=%d: %d ↦ %d repeated or out of range", n, i, u)
			}
			seen[u] = true
			if d := f.permuteDirect(i); d != u {
				t.Fatalf("n=%d: table %d, direct %d", n, u, d)
			}
		}
	}
	g := mustGraph(t, filecoin.StackedDrg32GiBV1_1)
	if g.exp.halfBits != 17 {
		t.Errorf("32 GiB half width %d, want 17", g.exp.halfBits)
	}
	for _, a := range []uint64{0, 8000, 1 << 32, 1<<33 - 1} {
		if g.exp.permute(a) != g.exp.permuteDirect(a) {
			t.Errorf("32 GiB: table and direct differ at %d", a)
		}
	}
	if g := mustGraph(t, filecoin.StackedDrg2KiBV1); g.exp.halfBits != 5 {
		t.Errorf("2 KiB half width %d, want 5", g.exp.halfBits)
	}
}

// API 1.0 truncates the permuted index to 32 bits: at 64 GiB no V1 expander
// parent reaches 2^29, while V1_1 ones do (storage-proofs-porep graph.rs
// test_high_parent_bits and test_graph_distribution_pathology).
func TestLegacyTruncation(t *testing.T) {
	legacy, current := mustGraph(t, filecoin.StackedDrg64GiBV1), mustGraph(t, filecoin.StackedDrg64GiBV1_1)
	var out [ExpDegree]uint32
	high := false
	for v := uint32(0); v < 1000; v++ {
		legacy.ExpanderParents(v, &out)
		for _, p := range out {
			if p >= 1<<29 {
				t.Fatalf("V1 node %d: parent %d ≥ 2^29", v, p)
			}
		}
		current.ExpanderParents(v, &out)
		for _, p := range out {
			high = high || p >= 1<<30
		}
	}
	if !high {
		t.Error("V1_1: no expander parent in the upper half of 64 GiB")
	}
}

func TestNewGraphRejects(t *testing.T) {
	for _, tc := range []struct {
		nodes uint64
		api   filecoin.APIVersion
	}{{0, filecoin.APIV1_1}, {1, filecoin.APIV1_1}, {1 << 32, filecoin.APIV1_1}, {64, 9}, {64, -1}} {
		if _, err := NewGraph([32]byte{}, tc.nodes, tc.api); !errors.Is(err, ErrBadGraph) {
			t.Errorf("NewGraph(%d, %v): %v, want ErrBadGraph", tc.nodes, tc.api, err)
		}
	}
	if _, err := GraphFor(filecoin.SealInfo{Proof: 99}); !errors.Is(err, ErrBadGraph) {
		t.Errorf("GraphFor(bad info): %v", err)
	}
}
