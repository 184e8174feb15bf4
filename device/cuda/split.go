package cuda

import (
	"sync"
	"sync/atomic"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-project/cuzk/r1cs"
)

// A span of scalars in base order: all of vals, or those whose density bit
// is set.
type span struct {
	vals    []fr.Element
	density *r1cs.Bitmap
}

// A piece of one span, split in parallel: vals[lo:hi] of span s, whose
// selected scalars are bases first..first+sel-1 and whose tail scalars go
// to tail positions tail..tail+ntail-1.
type piece struct {
	s, lo, hi   int
	first, sel  int
	tail, ntail int
}

// splitPieceLen is the number of scalars a piece covers (a variable for tests).
var splitPieceLen = 1 << 16

// splitCount cuts the spans into pieces and counts, in parallel, the
// scalars each selects and how many of those are neither zero nor one.
// It returns the pieces with their offsets and the totals.
func splitCount(spans []span, tasks int) (ps []piece, nsel, ntail int) {
	for s, sp := range spans {
		for lo := 0; lo < len(sp.vals); lo += splitPieceLen {
			ps = append(ps, piece{s: s, lo: lo, hi: min(lo+splitPieceLen, len(sp.vals))})
		}
	}
	parallelPieces(len(ps), tasks, func(k int) {
		p := &ps[k]
		sp := spans[p.s]
		for i := p.lo; i < p.hi; i++ {
			if sp.density != nil && !sp.density.Get(i) {
				continue
			}
			p.sel++
			p.ntail += isTail(&sp.vals[i])
		}
	})
	for k := range ps {
		ps[k].first, ps[k].tail = nsel, ntail
		nsel += ps[k].sel
		ntail += ps[k].ntail
	}
	return ps, nsel, ntail
}

// splitFill writes, in parallel, the ones' bitmap over the selected scalars
// (words: cleared by the caller, (nsel+31)/32 of them) and the tail's
// scalars and base indices. Pieces share at most their first and last
// bitmap words, which are ORed in atomically.
func splitFill(spans []span, ps []piece, words []uint32, scal []fr.Element, idx []uint32, tasks int) {
	parallelPieces(len(ps), tasks, func(k int) {
		p := &ps[k]
		if p.sel == 0 {
			return
		}
		sp := spans[p.s]
		firstW, lastW := p.first>>5, (p.first+p.sel-1)>>5
		flush := func(w int, bits uint32) {
			if bits == 0 {
				return
			}
			if w == firstW || w == lastW {
				atomic.OrUint32(&words[w], bits)
			} else {
				words[w] = bits
			}
		}
		b, t, end := p.first, p.tail, p.tail+p.ntail
		cur, acc := b>>5, uint32(0)
		for i := p.lo; i < p.hi; i++ {
			if sp.density != nil && !sp.density.Get(i) {
				continue
			}
			if w := b >> 5; w != cur {
				flush(cur, acc)
				cur, acc = w, 0
			}
			// branch-free: the one's bit, and the scalar written at t
			// whether or not it stays (t moves on only for a tail scalar)
			v := &sp.vals[i]
			acc |= uint32(isOne(v)) << (uint(b) & 31)
			if t < end {
				scal[t] = *v
				idx[t] = uint32(b)
			}
			t += isTail(v)
			b++
		}
		flush(cur, acc)
	})
}

// isTail is 1 for a scalar that is neither zero nor one, without branches
// (the witness mixes the three at random, so branches mispredict).
func isTail(v *fr.Element) int {
	z := v[0] | v[1] | v[2] | v[3]
	o := (v[0] ^ frOne[0]) | (v[1] ^ frOne[1]) | (v[2] ^ frOne[2]) | (v[3] ^ frOne[3])
	// z == 0 or o == 0 gives 0
	return int(((z | -z) & (o | -o)) >> 63)
}

// isOne is 1 for the scalar one, without branches.
func isOne(v *fr.Element) int {
	o := (v[0] ^ frOne[0]) | (v[1] ^ frOne[1]) | (v[2] ^ frOne[2]) | (v[3] ^ frOne[3])
	return int(((o | -o) >> 63) ^ 1)
}

// parallelPieces runs f(0..n-1) on up to tasks goroutines.
func parallelPieces(n, tasks int, f func(k int)) {
	if tasks < 1 {
		tasks = 1
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for g := 0; g < min(tasks, n); g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := int(next.Add(1) - 1); k < n; k = int(next.Add(1) - 1) {
				f(k)
			}
		}()
	}
	wg.Wait()
}
