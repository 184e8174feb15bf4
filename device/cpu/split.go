package cpu

import (
	"iter"
	"math/bits"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-project/cuzk/r1cs"
)

// split sorts one MSM's scalars by value: zeros are dropped, ones keep only
// their base index, the rest keep base index and scalar.
type split struct {
	ones    []uint32
	tail    []uint32
	scalars []fr.Element
}

// selected yields &vals[i] for every i whose density bit is set, in order
// (every i when density is nil).
func selected(vals []fr.Element, density *r1cs.Bitmap) iter.Seq[*fr.Element] {
	return func(yield func(*fr.Element) bool) {
		if density == nil {
			for i := range vals {
				if !yield(&vals[i]) {
					return
				}
			}
			return
		}
		n := len(vals)
		for w, word := range density.Words {
			base := w * 64
			if base >= n {
				return
			}
			if rest := n - base; rest < 64 {
				word &= 1<<uint(rest) - 1
			}
			for word != 0 {
				i := base + bits.TrailingZeros64(word)
				word &= word - 1
				if !yield(&vals[i]) {
					return
				}
			}
		}
	}
}

// walk appends vals, filtered by density (nil: dense), taking base indices
// from cursor on; a base is consumed only where the density bit is set. It
// returns the cursor after the last consumed base.
func (s *split) walk(vals []fr.Element, density *r1cs.Bitmap, cursor int) int {
	for v := range selected(vals, density) {
		s.add(uint32(cursor), v)
		cursor++
	}
	return cursor
}

// counts is how many scalars of a split are one and how many go to the tail.
type counts struct{ ones, tail int }

func (c counts) plus(o counts) counts { return counts{c.ones + o.ones, c.tail + o.tail} }

// tally counts what walk(vals, density, …) will put in ones and in tail.
func tally(vals []fr.Element, density *r1cs.Bitmap) counts {
	var c counts
	for v := range selected(vals, density) {
		switch {
		case v.IsZero():
		case v.IsOne():
			c.ones++
		default:
			c.tail++
		}
	}
	return c
}

func (s *split) add(base uint32, v *fr.Element) {
	switch {
	case v.IsZero():
	case v.IsOne():
		s.ones = append(s.ones, base)
	default:
		s.tail = append(s.tail, base)
		s.scalars = append(s.scalars, *v)
	}
}

// contiguous reports whether the tail bases are bases[first : first+len].
func (s *split) contiguous() bool {
	n := len(s.tail)
	return n == 0 || int(s.tail[n-1])-int(s.tail[0]) == n-1
}
