package compiled

import (
	"fmt"
	"math/bits"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// Compact is a witness vector with its 0/1 values as bits: most of a PoRep
// witness is 0 or 1 (98 % of a 2 KiB partition's, 97 % at 8 MiB), so 32
// bytes per value become 2 bits for most.
// Bit j of a bitmap is bit j%32 of word j/32; bits past N are zero.
type Compact struct {
	N      int
	Small  []uint32     // bit j: value j is 0 or 1
	Ones   []uint32     // bit j: value j is 1 (only where Small)
	Others []fr.Element // the other values, in index order
}

// compactGrain is a multiple of 32 so that ranges own whole words.
const compactGrain = 1 << 16

// Compress splits v into its 0/1 bitmaps and the other values.
func Compress(v []fr.Element) *Compact {
	n := len(v)
	words := (n + 31) / 32
	c := &Compact{N: n, Small: make([]uint32, words), Ones: make([]uint32, words)}
	// Bitmaps and a count per range, then the others at their offsets.
	chunks := (n + compactGrain - 1) / compactGrain
	others := make([]int, chunks+1)
	parallel(n, compactGrain, func(lo, hi int) {
		count := 0
		for j := lo; j < hi; j++ {
			x := &v[j]
			switch {
			case x.IsZero():
				c.Small[j/32] |= 1 << (j % 32)
			case x.IsOne():
				c.Small[j/32] |= 1 << (j % 32)
				c.Ones[j/32] |= 1 << (j % 32)
			default:
				count++
			}
		}
		others[lo/compactGrain+1] = count
	})
	for k := range chunks {
		others[k+1] += others[k]
	}
	c.Others = make([]fr.Element, others[chunks])
	parallel(n, compactGrain, func(lo, hi int) {
		o := others[lo/compactGrain]
		for j := lo; j < hi; j++ {
			if c.Small[j/32]>>(j%32)&1 == 0 {
				c.Others[o] = v[j]
				o++
			}
		}
	})
	return c
}

// Bytes is the size of the compact form's arrays.
func (c *Compact) Bytes() int { return 4*(len(c.Small)+len(c.Ones)) + fr.Bytes*len(c.Others) }

// Validate checks that the bitmaps have ⌈N/32⌉ words with nothing past N,
// that Ones lies within Small, and that there is one other value per value
// not in Small.
func (c *Compact) Validate() error {
	words := (c.N + 31) / 32
	if c.N < 0 || len(c.Small) != words || len(c.Ones) != words {
		return fmt.Errorf("%w: compact witness of %d values with %d and %d bitmap words, want %d",
			ErrBadWitness, c.N, len(c.Small), len(c.Ones), words)
	}
	small := 0
	for i, w := range c.Small {
		if c.Ones[i]&^w != 0 {
			return fmt.Errorf("%w: compact witness: a one outside the 0/1 bitmap in word %d", ErrBadWitness, i)
		}
		small += bits.OnesCount32(w)
	}
	if r := c.N % 32; r != 0 && c.Small[words-1]>>r != 0 {
		return fmt.Errorf("%w: compact witness: bits set past %d", ErrBadWitness, c.N)
	}
	if len(c.Others) != c.N-small {
		return fmt.Errorf("%w: compact witness: %d other values, the bitmap leaves %d", ErrBadWitness, len(c.Others), c.N-small)
	}
	return nil
}

// Expand writes the N values into dst (len(dst) must be N).
func (c *Compact) Expand(dst []fr.Element) error {
	if err := c.Validate(); err != nil {
		return err
	}
	if len(dst) != c.N {
		return fmt.Errorf("%w: expanding %d values into %d", ErrBadWitness, c.N, len(dst))
	}
	chunks := (c.N + compactGrain - 1) / compactGrain
	others := make([]int, chunks+1)
	for k := range chunks {
		lo, hi := k*compactGrain/32, min((k+1)*compactGrain, c.N+31)/32
		n := 0
		for _, w := range c.Small[lo:min(hi, len(c.Small))] {
			n += bits.OnesCount32(w)
		}
		others[k+1] = others[k] + (min((k+1)*compactGrain, c.N) - k*compactGrain) - n
	}
	var one fr.Element
	one.SetOne()
	parallel(c.N, compactGrain, func(lo, hi int) {
		o := others[lo/compactGrain]
		for j := lo; j < hi; j++ {
			w, b := j/32, uint(j%32)
			switch {
			case c.Small[w]>>b&1 == 0:
				dst[j] = c.Others[o]
				o++
			case c.Ones[w]>>b&1 == 1:
				dst[j] = one
			default:
				dst[j] = fr.Element{}
			}
		}
	})
	return nil
}
