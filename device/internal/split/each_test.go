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

// classicQueries are the L, A and B_G1 queries of a prover's assignment
// over one input and one aux: L all of the aux, A the input and the aux
// through a density, B_G1 both through densities.
func classicQueries(r *rand.Rand, inputs, aux int, keepA, keepB float64) [][]Span {
	sp := randomSpans(r, []int{inputs, aux}, 1)
	in, au := sp[0].Vals, sp[1].Vals
	density := func(n int, keep float64) *r1cs.Bitmap {
		var b r1cs.Bitmap
		for i := range n {
			b.Grow()
			if r.Float64() < keep {
				b.Set(i)
			}
		}
		return &b
	}
	return [][]Span{
		{{Vals: au}},
		{{Vals: in}, {Vals: au, Density: density(aux, keepA)}},
		{{Vals: in, Density: density(inputs, 0.5)}, {Vals: au, Density: density(aux, keepB)}},
	}
}

// TestSplitEach: the queries counted and filled together give each the
// split it gets alone (the serial reference), whatever the pieces and the
// goroutines; FillEach writes no word it should not.
func TestSplitEach(t *testing.T) {
	defer func(n int) { PieceLen = n }(PieceLen)
	r := rand.New(rand.NewPCG(7, 8))
	for _, tc := range []struct {
		inputs, aux  int
		keepA, keepB float64
		pieceLen     int
		tasks        int
	}{
		{1, 0, 1, 1, 7, 2},
		{1, 1, 1, 1, 7, 2},
		{3, 100, 0.99, 0.25, 7, 1},
		{3, 100, 0.99, 0.25, 7, 3},
		{13, 1000, 0.5, 0.5, 5, 4}, // pieces shorter than a bitmap word
		{64, 4096, 1, 0.1, 33, 8},  // piece boundaries off the words
		{5, 3000, 0, 0, 16, 2},     // densities selecting nothing
		{328, 1 << 17, 0.99, 0.25, 1 << 16, 2},
	} {
		name := fmt.Sprintf("in%d/aux%d/keep%.2f,%.2f/piece%d/tasks%d", tc.inputs, tc.aux, tc.keepA, tc.keepB, tc.pieceLen, tc.tasks)
		t.Run(name, func(t *testing.T) {
			PieceLen = tc.pieceLen
			queries := classicQueries(r, tc.inputs, tc.aux, tc.keepA, tc.keepB)
			plans := CountEach(queries, tc.tasks)
			outs := make([]Out, len(queries))
			for q, p := range plans {
				outs[q] = Out{Ones: make([]uint32, Words(p.Selected)+1), Scalars: make([]fr.Element, p.Tail),
					Idx: make([]uint32, p.Tail)}
				for i := range outs[q].Ones { // FillEach must not rely on cleared words
					outs[q].Ones[i] = 0xdeadbeef
				}
			}
			FillEach(plans, outs, tc.tasks)
			for q, spans := range queries {
				wantW, wantS, wantI, n := splitRef(spans)
				p, o := plans[q], outs[q]
				if p.Selected != n || p.Tail != len(wantS) {
					t.Fatalf("query %d: %d selected, %d tail; want %d, %d", q, p.Selected, p.Tail, n, len(wantS))
				}
				if !slices.Equal(o.Ones[:len(wantW)], wantW) {
					t.Fatalf("query %d: bitmap differs", q)
				}
				if last := o.Ones[len(o.Ones)-1]; last != 0xdeadbeef {
					t.Fatalf("query %d: the word past the bitmap was written (%08x)", q, last)
				}
				if !slices.Equal(o.Scalars, wantS) || !slices.Equal(o.Idx, wantI) {
					t.Fatalf("query %d: tail differs (%d scalars)", q, p.Tail)
				}
			}
		})
	}
}

// BenchmarkSplitEach: the classic prover's three splits (L, A at 99 %,
// B_G1 at 25 %) over an aux of 2^22 values, a third zero, a third one, a
// third other: one query at a time (Count, Fill) against the three at
// once (CountEach, FillEach); ns/value is per aux value, all three
// queries.
func BenchmarkSplitEach(b *testing.B) {
	const aux = 1 << 22
	r := rand.New(rand.NewPCG(9, 10))
	queries := classicQueries(r, 328, aux, 0.99, 0.25)
	tasks := runtime.GOMAXPROCS(0)
	outs := make([]Out, len(queries))
	for q, p := range CountEach(queries, tasks) {
		outs[q] = Out{Ones: make([]uint32, Words(p.Selected)), Scalars: make([]fr.Element, p.Tail), Idx: make([]uint32, p.Tail)}
	}
	perValue := func(b *testing.B) {
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/aux, "ns/value")
	}
	b.Run("apart", func(b *testing.B) {
		for b.Loop() {
			for q, spans := range queries {
				p := Count(spans, tasks)
				p.Fill(outs[q].Ones, outs[q].Scalars, outs[q].Idx, tasks)
			}
		}
		perValue(b)
	})
	b.Run("each", func(b *testing.B) {
		for b.Loop() {
			FillEach(CountEach(queries, tasks), outs, tasks)
		}
		perValue(b)
	})
}
