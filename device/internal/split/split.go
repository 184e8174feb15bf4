package split

import (
	"sync/atomic"
	"unsafe"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-project/cuzk/r1cs"
)

// Span is a run of a query's scalars in base order: all of Vals, or those
// whose Density bit is set (Density nil: all).
type Span struct {
	Vals    []fr.Element
	Density *r1cs.Bitmap
}

// Plan is what Count found for one query: its pieces with their offsets,
// and the totals.
type Plan struct {
	pieces []piece
	// Selected is the number of selected scalars (the query's bases).
	Selected int
	// Tail is the number of selected scalars that are neither 0 nor 1.
	Tail int
	w    *walk // shared by the queries counted together
	q    int   // this query's index in w
}

// A piece of one query: the part of one of its spans that a walk item
// covers, whose selected scalars are bases first..first+sel-1 and whose
// tail scalars go to tail positions tail..tail+ntail-1.
type piece struct {
	first, sel  int
	tail, ntail int
}

// walk is the work of a Count: the value slices of the queries' spans cut
// into items of PieceLen values, each item walked once for every query
// with a span over it (its members).
type walk struct {
	plans []*Plan // the queries'
	items []item
	tasks int // goroutines the walk is worth (PieceLen values or more each)
}

type item struct {
	vals    []fr.Element // values lo.. of a span's slice
	lo      int
	members []member
}

// member is one query's span over an item: the query, its piece there and
// the span's density.
type member struct {
	q, k    int
	density *r1cs.Bitmap
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
func Count(spans []Span, tasks int) *Plan { return CountEach([][]Span{spans}, tasks)[0] }

// CountEach is Count for several queries at once: spans over the same
// value slice (the L, A and B_G1 queries all read an assignment's aux) are
// walked once for all of them, so that a value is read once, not once a
// query.
func CountEach(queries [][]Span, tasks int) []*Plan {
	plans := make([]*Plan, len(queries))
	w := &walk{plans: plans}
	type slice struct {
		p *fr.Element
		n int
	}
	first := map[slice]int{} // a slice's first item
	walked := 0
	for q, spans := range queries {
		plans[q] = &Plan{w: w, q: q}
		for _, sp := range spans {
			key := slice{unsafe.SliceData(sp.Vals), len(sp.Vals)}
			base, seen := first[key]
			if !seen {
				base = len(w.items)
				first[key] = base
				for lo := 0; lo < len(sp.Vals); lo += PieceLen {
					w.items = append(w.items, item{vals: sp.Vals[lo:min(lo+PieceLen, len(sp.Vals))], lo: lo})
				}
				walked += len(sp.Vals)
			}
			for j := range (len(sp.Vals) + PieceLen - 1) / PieceLen {
				it := &w.items[base+j]
				it.members = append(it.members, member{q: q, k: len(plans[q].pieces), density: sp.Density})
				plans[q].pieces = append(plans[q].pieces, piece{})
			}
		}
	}
	w.tasks = max(1, min(tasks, walked/PieceLen))
	Parallel(len(w.items), w.tasks, func(k int) {
		it := &w.items[k]
		n := len(it.members)
		sel, ntail, dw := make([]int, n), make([]int, n), make([]uint64, n)
		for i := range it.vals { // each value read once, for every member
			if x := it.lo + i; i == 0 || x&63 == 0 {
				for j, m := range it.members {
					dw[j] = densityWord(m.density, x)
				}
			}
			t := IsTail(&it.vals[i])
			for j := range dw {
				b := int(dw[j] & 1)
				dw[j] >>= 1
				sel[j] += b
				ntail[j] += t & b
			}
		}
		for j, m := range it.members {
			pc := &plans[m.q].pieces[m.k]
			pc.sel, pc.ntail = sel[j], ntail[j]
		}
	})
	for _, p := range plans {
		for k := range p.pieces {
			p.pieces[k].first, p.pieces[k].tail = p.Selected, p.Tail
			p.Selected += p.pieces[k].sel
			p.Tail += p.pieces[k].ntail
		}
	}
	return plans
}

// Out is where Fill writes one query's split: the ones' bitmap
// (Words(Selected) words, their contents on entry do not matter) and the
// tail's scalars and base indices (Tail of each).
type Out struct {
	Ones    []uint32
	Scalars []fr.Element
	Idx     []uint32
}

// Fill writes, on up to tasks goroutines (the caller's among them; no more
// than Count used), the ones' bitmap (ones: Words(p.Selected) words, their
// contents on entry do not matter) and the tail's scalars and base indices
// (p.Tail of each) of the spans p was counted over, which must not have
// changed.
func (p *Plan) Fill(ones []uint32, scalars []fr.Element, idx []uint32, tasks int) {
	outs := make([]*Out, len(p.w.plans))
	outs[p.q] = &Out{ones, scalars, idx}
	p.w.fill(outs, tasks)
}

// FillEach is Fill for every plan of one CountEach (outs[q] for plans[q]),
// in one walk over the values.
func FillEach(plans []*Plan, outs []Out, tasks int) {
	if len(plans) == 0 {
		return
	}
	o := make([]*Out, len(plans))
	for q := range o {
		o[q] = &outs[q]
	}
	plans[0].w.fill(o, tasks)
}

// cursor is one member's place in its query's outputs during an item's
// walk.
type cursor struct {
	density       *r1cs.Bitmap
	out           *Out
	firstW, lastW int
	b, t, end     int // next base, next tail position, end of the piece's tail
	cur           int // the bitmap word being gathered
	acc           uint32
	dw            uint64 // the density's bits from the current value on
}

// densityWord is d's bits from bit i to the end of its word, in the low
// bits (all ones without a density).
func densityWord(d *r1cs.Bitmap, i int) uint64 {
	if d == nil {
		return ^uint64(0)
	}
	return d.Words[i>>6] >> (uint(i) & 63)
}

// flush stores the gathered word: a piece stores the words it alone
// covers and ORs in its first and last, which it may share with its
// neighbours (zeroed before the walk).
func (c *cursor) flush() {
	if c.cur == c.firstW || c.cur == c.lastW {
		if c.acc != 0 {
			atomic.OrUint32(&c.out.Ones[c.cur], c.acc)
		}
	} else {
		c.out.Ones[c.cur] = c.acc
	}
}

// fill walks w's items for the queries with an output (outs[q] nil: query
// q is skipped).
func (w *walk) fill(outs []*Out, tasks int) {
	for q, p := range w.plans {
		if outs[q] == nil {
			continue
		}
		for _, pc := range p.pieces {
			if pc.sel > 0 {
				outs[q].Ones[pc.first>>5], outs[q].Ones[(pc.first+pc.sel-1)>>5] = 0, 0
			}
		}
	}
	Parallel(len(w.items), max(1, min(tasks, w.tasks)), func(k int) {
		it := &w.items[k]
		cs := make([]cursor, 0, len(it.members))
		for _, m := range it.members {
			if outs[m.q] == nil {
				continue
			}
			pc := w.plans[m.q].pieces[m.k]
			if pc.sel == 0 {
				continue
			}
			cs = append(cs, cursor{density: m.density, out: outs[m.q], firstW: pc.first >> 5, lastW: (pc.first + pc.sel - 1) >> 5,
				b: pc.first, t: pc.tail, end: pc.tail + pc.ntail, cur: pc.first >> 5})
		}
		if len(cs) == 0 {
			return
		}
		for i := range it.vals { // each value read once, for every member
			if x := it.lo + i; i == 0 || x&63 == 0 {
				for j := range cs {
					cs[j].dw = densityWord(cs[j].density, x)
				}
			}
			v := &it.vals[i]
			one, tail := uint32(IsOne(v)), IsTail(v)
			for j := range cs {
				c := &cs[j]
				selected := c.dw&1 == 1
				c.dw >>= 1
				if !selected {
					continue
				}
				if word := c.b >> 5; word != c.cur {
					c.flush()
					c.cur, c.acc = word, 0
				}
				// branch-free: the one's bit, and the scalar written at t
				// whether or not it stays (t moves on only for a tail scalar)
				c.acc |= one << (uint(c.b) & 31)
				if c.t < c.end {
					c.out.Scalars[c.t] = *v
					c.out.Idx[c.t] = uint32(c.b)
				}
				c.t += tail
				c.b++
			}
		}
		for j := range cs {
			cs[j].flush()
		}
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
