package split

import (
	"sync/atomic"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-project/cuzk/r1cs"
)

// Span is a run of a query's scalars in base order: all of Vals, or those
// whose Density bit is set (Density nil: all).
type Span struct {
	Vals    []fr.Element
	Density *r1cs.Bitmap
}

// Plan is what Count found: the pieces with their offsets, and the totals.
type Plan struct {
	pieces []piece
	// Selected is the number of selected scalars (the query's bases).
	Selected int
	// Tail is the number of selected scalars that are neither 0 nor 1.
	Tail int
	// tasks is how many goroutines the walk is worth (PieceLen scalars
	// or more each).
	tasks int
}

// A piece of one span: vals[lo:hi] of span s, whose selected scalars are
// bases first..first+sel-1 and whose tail scalars go to tail positions
// tail..tail+ntail-1.
type piece struct {
	s, lo, hi   int
	first, sel  int
	tail, ntail int
}

// PieceLen is the number of scalars a piece covers (a variable for tests).
// It is also the least work worth a goroutine: a walk over fewer scalars
// than twice PieceLen runs on the caller's goroutine alone.
var PieceLen = 1 << 16

// Words is the number of 32-bit words of a bitmap over n bases.
func Words(n int) int { return (n + 31) / 32 }

// Count cuts the spans into pieces and counts, on up to tasks goroutines
// (the caller's among them), the scalars each selects and how many of
// those go to the tail.
func Count(spans []Span, tasks int) *Plan {
	p := &Plan{}
	walked := 0
	for s, sp := range spans {
		for lo := 0; lo < len(sp.Vals); lo += PieceLen {
			p.pieces = append(p.pieces, piece{s: s, lo: lo, hi: min(lo+PieceLen, len(sp.Vals))})
		}
		walked += len(sp.Vals)
	}
	p.tasks = max(1, min(tasks, walked/PieceLen))
	Parallel(len(p.pieces), p.tasks, func(k int) {
		pc := &p.pieces[k]
		sp := spans[pc.s]
		for i := pc.lo; i < pc.hi; i++ {
			if sp.Density != nil && !sp.Density.Get(i) {
				continue
			}
			pc.sel++
			pc.ntail += IsTail(&sp.Vals[i])
		}
	})
	for k := range p.pieces {
		p.pieces[k].first, p.pieces[k].tail = p.Selected, p.Tail
		p.Selected += p.pieces[k].sel
		p.Tail += p.pieces[k].ntail
	}
	return p
}

// Fill writes, on up to tasks goroutines (the caller's among them; no more
// than Count used), the ones' bitmap (ones: Words(p.Selected) words, their
// contents on entry do not matter) and the tail's scalars and base indices
// (p.Tail of each) of the spans p was counted over.
func (p *Plan) Fill(spans []Span, ones []uint32, scalars []fr.Element, idx []uint32, tasks int) {
	// A piece stores the words it alone covers and ORs in its first and
	// last, which it may share with its neighbours: those start at zero.
	for _, pc := range p.pieces {
		if pc.sel > 0 {
			ones[pc.first>>5], ones[(pc.first+pc.sel-1)>>5] = 0, 0
		}
	}
	Parallel(len(p.pieces), max(1, min(tasks, p.tasks)), func(k int) {
		pc := &p.pieces[k]
		if pc.sel == 0 {
			return
		}
		sp := spans[pc.s]
		firstW, lastW := pc.first>>5, (pc.first+pc.sel-1)>>5
		flush := func(w int, bits uint32) {
			if w == firstW || w == lastW {
				if bits != 0 {
					atomic.OrUint32(&ones[w], bits)
				}
			} else {
				ones[w] = bits
			}
		}
		b, t, end := pc.first, pc.tail, pc.tail+pc.ntail
		cur, acc := b>>5, uint32(0)
		for i := pc.lo; i < pc.hi; i++ {
			if sp.Density != nil && !sp.Density.Get(i) {
				continue
			}
			if w := b >> 5; w != cur {
				flush(cur, acc)
				cur, acc = w, 0
			}
			// branch-free: the one's bit, and the scalar written at t
			// whether or not it stays (t moves on only for a tail scalar)
			v := &sp.Vals[i]
			acc |= uint32(IsOne(v)) << (uint(b) & 31)
			if t < end {
				scalars[t] = *v
				idx[t] = uint32(b)
			}
			t += IsTail(v)
			b++
		}
		flush(cur, acc)
	})
}

var one = fr.One()

// IsTail is 1 for a scalar that is neither zero nor one, without branches.
func IsTail(v *fr.Element) int {
	z := v[0] | v[1] | v[2] | v[3]
	o := (v[0] ^ one[0]) | (v[1] ^ one[1]) | (v[2] ^ one[2]) | (v[3] ^ one[3])
	// z == 0 or o == 0 gives 0
	return int(((z | -z) & (o | -o)) >> 63)
}

// IsOne is 1 for the scalar one, without branches.
func IsOne(v *fr.Element) int {
	o := (v[0] ^ one[0]) | (v[1] ^ one[1]) | (v[2] ^ one[2]) | (v[3] ^ one[3])
	return int(((o | -o) >> 63) ^ 1)
}

// Contiguous reports whether the tail's base indices are consecutive, so
// that its bases are bases[idx[0] : idx[0]+len(idx)] (the indices rise).
func Contiguous(idx []uint32) bool {
	n := len(idx)
	return n == 0 || int(idx[n-1])-int(idx[0]) == n-1
}
