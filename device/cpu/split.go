package cpu

import (
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

// walk appends vals, filtered by density (nil: dense), taking base indices
// from cursor on; a base is consumed only where the density bit is set. It
// returns the cursor after the last consumed base.
func (s *split) walk(vals []fr.Element, density *r1cs.Bitmap, cursor int) int {
	if density == nil {
		for i := range vals {
			s.add(uint32(cursor), &vals[i])
			cursor++
		}
		return cursor
	}
	n := len(vals)
	for w, word := range density.Words {
		base := w * 64
		if base >= n {
			break
		}
		if rest := n - base; rest < 64 {
			word &= 1<<uint(rest) - 1
		}
		for word != 0 {
			i := base + bits.TrailingZeros64(word)
			word &= word - 1
			s.add(uint32(cursor), &vals[i])
			cursor++
		}
	}
	return cursor
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

// popCount counts the set bits among the first n of b.
func popCount(b *r1cs.Bitmap, n int) int {
	c := 0
	for w, word := range b.Words {
		base := w * 64
		if base >= n {
			break
		}
		if rest := n - base; rest < 64 {
			word &= 1<<uint(rest) - 1
		}
		c += bits.OnesCount64(word)
	}
	return c
}
