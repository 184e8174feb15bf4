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
	words := (len(v) + 31) / 32
	c := &Compact{N: len(v), Small: make([]uint32, words), Ones: make([]uint32, words)}
	k, _ := CountCompact(v, c.Small, c.Ones, 0) // the lengths are right
	c.Others = make([]fr.Element, k.Others())
	_ = k.Fill(v, c.Others, 0)
	return c
}

// Compaction is a compression into arrays the caller owns (pinned host
// memory, say), in two passes over ranges of 2^16 values:
// CountCompact writes the bitmaps and counts each range's other values,
// so that the caller can size the others' array exactly; Fill copies them
// to their offsets.
type Compaction struct {
	n      int
	small  []uint32
	offset []int // offset[k]: the other values before range k; the last: all
}

// CountCompact writes v's 0/1 bitmaps into small and ones, every one of
// their first ⌈len(v)/32⌉ words (bits past len(v) zero, so the arrays need
// not be cleared), and counts the other values, on at most tasks
// goroutines (0: GOMAXPROCS). Fill reads small: it must stay as written.
func CountCompact(v []fr.Element, small, ones []uint32, tasks int) (*Compaction, error) {
	n := len(v)
	words := (n + 31) / 32
	if len(small) < words || len(ones) < words {
		return nil, fmt.Errorf("%w: bitmaps of %d and %d words for %d values, want %d", ErrBadWitness,
			len(small), len(ones), n, words)
	}
	chunks := (n + compactGrain - 1) / compactGrain
	off := make([]int, chunks+1)
	parallelTasks(n, compactGrain, tasks, func(lo, hi int) {
		count := 0
		for w := lo / 32; w*32 < hi; w++ {
			seg := v[w*32 : min(w*32+32, hi)]
			var s, o uint32
			for i := range seg {
				// Without branches: a witness's 0s, 1s and other values
				// follow no pattern a branch predictor learns.
				x := &seg[i]
				z := x[0] | x[1] | x[2] | x[3]
				u := (x[0] ^ montOne0) | (x[1] ^ montOne1) | (x[2] ^ montOne2) | (x[3] ^ montOne3)
				zero, one := uint32((z|-z)>>63)^1, uint32((u|-u)>>63)^1
				s |= (zero | one) << i
				o |= one << i
			}
			small[w], ones[w] = s, o
			count += len(seg) - bits.OnesCount32(s)
		}
		off[lo/compactGrain+1] = count
	})
	for k := range chunks {
		off[k+1] += off[k]
	}
	return &Compaction{n: n, small: small[:words], offset: off}, nil
}

// montOne0..3 are the limbs of 1 in Montgomery form (fr.One()).
const (
	montOne0 uint64 = 8589934590
	montOne1 uint64 = 6378425256633387010
	montOne2 uint64 = 11064306276430008309
	montOne3 uint64 = 1739710354780652911
)

// Others is the number of values neither 0 nor 1.
func (c *Compaction) Others() int { return c.offset[len(c.offset)-1] }

// Fill copies the other values of v (the vector CountCompact read) into
// others (Others() long) in index order, on at most tasks goroutines.
func (c *Compaction) Fill(v, others []fr.Element, tasks int) error {
	if len(v) != c.n || len(others) != c.Others() {
		return fmt.Errorf("%w: filling %d other values of %d values, counted %d of %d", ErrBadWitness,
			len(others), len(v), c.Others(), c.n)
	}
	parallelTasks(c.n, compactGrain, tasks, func(lo, hi int) {
		o := c.offset[lo/compactGrain]
		for w := lo / 32; w*32 < hi; w++ {
			m := ^c.small[w]
			if r := hi - w*32; r < 32 {
				m &= 1<<r - 1
			}
			base := v[w*32:]
			for ; m != 0; m &= m - 1 {
				others[o] = base[bits.TrailingZeros32(m)]
				o++
			}
		}
	})
	return nil
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
