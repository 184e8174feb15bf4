package split

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-project/cuzk/r1cs"
)

// splitRef is the plain serial split: bitmap words, tail scalars and indices.
func splitRef(spans []Span) (words []uint32, scal []fr.Element, idx []uint32, n int) {
	for _, sp := range spans {
		for i := range sp.Vals {
			if sp.Density != nil && !sp.Density.Get(i) {
				continue
			}
			if n%32 == 0 {
				words = append(words, 0)
			}
			switch v := sp.Vals[i]; {
			case v.IsZero():
			case v == one:
				words[n/32] |= 1 << (n % 32)
			default:
				scal = append(scal, v)
				idx = append(idx, uint32(n))
			}
			n++
		}
	}
	return words, scal, idx, n
}

// randomSpans: lens scalars per span, a third zero, a third one, a third
// random; density (every span but the first) keeps a fraction of them.
func randomSpans(r *rand.Rand, lens []int, keep float64) []Span {
	spans := make([]Span, len(lens))
	for s, n := range lens {
		vals := make([]fr.Element, n)
		for i := range vals {
			switch r.IntN(3) {
			case 1:
				vals[i].SetOne()
			case 2:
				vals[i].SetUint64(r.Uint64() | 2)
			}
		}
		spans[s].Vals = vals
		if s > 0 {
			var b r1cs.Bitmap
			for i := range n {
				b.Grow()
				if r.Float64() < keep {
					b.Set(i)
				}
			}
			spans[s].Density = &b
		}
	}
	return spans
}

func TestSplitParallel(t *testing.T) {
	defer func(n int) { PieceLen = n }(PieceLen)
	r := rand.New(rand.NewPCG(3, 4))
	for _, tc := range []struct {
		lens     []int
		keep     float64
		pieceLen int
		tasks    int
	}{
		{[]int{0}, 1, 7, 2},
		{[]int{1}, 1, 7, 2},
		{[]int{100}, 1, 7, 1},
		{[]int{100}, 1, 7, 3},
		{[]int{13, 1000}, 0.5, 5, 4},   // pieces shorter than a bitmap word
		{[]int{64, 4096}, 0.25, 33, 8}, // piece boundaries off the words
		{[]int{1000, 10000}, 0.9, 1024, 3},
		{[]int{5, 300, 300}, 0, 16, 2},       // densities selecting nothing
		{[]int{70000}, 1, 1 << 16, 2},        // the default piece length: the caller alone
		{[]int{3, 1 << 17}, 0.5, 1 << 16, 2}, // and two goroutines
	} {
		t.Run(fmt.Sprintf("%v/keep%.2f/piece%d/tasks%d", tc.lens, tc.keep, tc.pieceLen, tc.tasks), func(t *testing.T) {
			PieceLen = tc.pieceLen
			spans := randomSpans(r, tc.lens, tc.keep)
			wantW, wantS, wantI, n := splitRef(spans)
			p := Count(spans, tc.tasks)
			nsel, ntail := p.Selected, p.Tail
			if nsel != n || ntail != len(wantS) {
				t.Fatalf("count: %d selected, %d tail; want %d, %d", nsel, ntail, n, len(wantS))
			}
			words := make([]uint32, Words(nsel))
			for i := range words { // Fill must not rely on cleared words
				words[i] = 0xdeadbeef
			}
			scal := make([]fr.Element, ntail)
			idx := make([]uint32, ntail)
			p.Fill(words, scal, idx, tc.tasks)
			if len(words) != len(wantW) {
				t.Fatalf("bitmap of %d words, want %d", len(words), len(wantW))
			}
			for w := range words {
				if words[w] != wantW[w] {
					t.Fatalf("bitmap word %d of %d is %08x, want %08x", w, len(words), words[w], wantW[w])
				}
			}
			if !slices.Equal(scal, wantS) || !slices.Equal(idx, wantI) {
				t.Fatalf("tail differs (%d scalars)", ntail)
			}
		})
	}
}

// BenchmarkSplit: one PoRep-like walk (37.5 % zero, 37.5 % one, 25 % other)
// of 2^22 scalars: a serial two-pass walk through a callback (what the
// CUDA device's Prepare did before) against Count and Fill.
func BenchmarkSplit(b *testing.B) {
	r := rand.New(rand.NewPCG(5, 6))
	const n = 1 << 22
	vals := make([]fr.Element, n)
	for i := range vals {
		switch x := r.IntN(8); {
		case x < 3:
		case x < 6:
			vals[i].SetOne()
		default:
			vals[i].SetUint64(r.Uint64() | 2)
		}
	}
	spans := []Span{{vals, nil}}
	b.Run("serial", func(b *testing.B) {
		words := make([]uint32, n/32)
		scal := make([]fr.Element, n)
		idx := make([]uint32, n)
		walk := func(f func(v *fr.Element)) {
			for _, s := range spans {
				for i := range s.Vals {
					if s.Density == nil || s.Density.Get(i) {
						f(&s.Vals[i])
					}
				}
			}
		}
		for b.Loop() {
			ntail := 0
			walk(func(v *fr.Element) {
				if !v.IsZero() && *v != one {
					ntail++
				}
			})
			clear(words)
			i, t := 0, 0
			walk(func(v *fr.Element) {
				switch {
				case v.IsZero():
				case *v == one:
					words[i>>5] |= 1 << (uint(i) & 31)
				default:
					scal[t] = *v
					idx[t] = uint32(i)
					t++
				}
				i++
			})
		}
	})
	b.Run("parallel", func(b *testing.B) {
		words := make([]uint32, n/32)
		scal := make([]fr.Element, n)
		idx := make([]uint32, n)
		for b.Loop() {
			p := Count(spans, runtime.GOMAXPROCS(0))
			clear(words[:Words(p.Selected)])
			p.Fill(words, scal[:p.Tail], idx[:p.Tail], runtime.GOMAXPROCS(0))
		}
	})
}

func TestIsTailIsOne(t *testing.T) {
	one := one
	var two fr.Element
	two.SetUint64(2)
	nearOne := one
	nearOne[3] ^= 1 << 63 // differs from one only in the top bit
	top := fr.Element{0, 0, 0, 1 << 63}
	for _, tc := range []struct {
		name        string
		v           fr.Element
		tail, isone int
	}{
		{"zero", fr.Element{}, 0, 0},
		{"one", one, 0, 1},
		{"two", two, 1, 0},
		{"one but the top bit", nearOne, 1, 0},
		{"only the top bit", top, 1, 0},
		{"all ones", fr.Element{^uint64(0), ^uint64(0), ^uint64(0), ^uint64(0)}, 1, 0},
	} {
		if got := IsTail(&tc.v); got != tc.tail {
			t.Errorf("%s: isTail = %d, want %d", tc.name, got, tc.tail)
		}
		if got := IsOne(&tc.v); got != tc.isone {
			t.Errorf("%s: isOne = %d, want %d", tc.name, got, tc.isone)
		}
	}
}
