package cpu

import (
	"math/bits"
	"sync"

	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fp"

	"github.com/cuzk-project/cuzk/device/internal/split"
)

// minChunk is the fewest additions worth a goroutine.
const minChunk = 1024

// chunks splits n items into at most tasks ranges of at least minChunk.
func chunks(n, tasks int) int {
	return max(1, min(n/minChunk, tasks))
}

// onesBlock is how many G1 points one goroutine gathers and reduces at a
// time (half as many in G2: the same bytes).
const onesBlock = 8192

// scratch is one goroutine's buffers for summing the ones of a group whose
// affine points are P and Jacobian points J.
type scratch[P, J any] interface {
	points() []P         // a block to gather into
	add(acc *J, pts []P) // acc += Σ pts (pts is overwritten)
}

type g1Scratch struct {
	pts      [onesBlock]bls12381.G1Affine
	den, pre [onesBlock / 2]fp.Element
}

func (s *g1Scratch) points() []bls12381.G1Affine { return s.pts[:] }
func (s *g1Scratch) add(acc *bls12381.G1Jac, pts []bls12381.G1Affine) {
	sumAffineG1(acc, pts, s.den[:], s.pre[:])
}

type g2Scratch struct {
	pts      [onesBlock / 2]bls12381.G2Affine
	den, pre [onesBlock / 4]bls12381.E2
}

func (s *g2Scratch) points() []bls12381.G2Affine { return s.pts[:] }
func (s *g2Scratch) add(acc *bls12381.G2Jac, pts []bls12381.G2Affine) {
	sumAffineG2(acc, pts, s.den[:], s.pre[:])
}

var (
	g1Scratches = sync.Pool{New: func() any { return new(g1Scratch) }}
	g2Scratches = sync.Pool{New: func() any { return new(g2Scratch) }}
)

// sumOnes returns Σ bases[b] over the set bits b of the bitmap ones (bit b
// of word b/32), by batched affine additions on up to tasks goroutines
// (the caller's among them), each range of about the same number of bits
// with a scratch from scratches.
func sumOnes[P, J any, PJ interface {
	*J
	AddAssign(*J) *J
}](bases []P, ones []uint32, tasks int, identity J, scratches *sync.Pool) J {
	cuts := onesRanges(ones, tasks)
	parts := make([]J, len(cuts)-1)
	split.Parallel(len(parts), len(parts), func(t int) {
		acc := identity
		s := scratches.Get().(scratch[P, J])
		pts, n := s.points(), 0
		for w := cuts[t]; w < cuts[t+1]; w++ {
			for x := ones[w]; x != 0; x &= x - 1 {
				pts[n] = bases[w*32+bits.TrailingZeros32(x)]
				if n++; n == len(pts) {
					s.add(&acc, pts)
					n = 0
				}
			}
		}
		s.add(&acc, pts[:n])
		scratches.Put(s)
		parts[t] = acc
	})
	for t := 1; t < len(parts); t++ {
		PJ(&parts[0]).AddAssign(&parts[t])
	}
	return parts[0]
}

// onesRanges cuts the words of ones into chunks(set bits, tasks) ranges
// holding about the same number of set bits: range t is words
// cuts[t]..cuts[t+1]-1.
func onesRanges(ones []uint32, tasks int) (cuts []int) {
	total := 0
	for _, x := range ones {
		total += bits.OnesCount32(x)
	}
	k := chunks(total, tasks)
	cuts = make([]int, 1, k+1)
	seen := 0
	for w, x := range ones {
		if len(cuts) < k && seen >= len(cuts)*total/k {
			cuts = append(cuts, w)
		}
		seen += bits.OnesCount32(x)
	}
	for len(cuts) <= k {
		cuts = append(cuts, len(ones))
	}
	return cuts
}

// gatherBlock is how many bases one goroutine of gather copies at a time
// (1.5 MiB of G1 points, 3 MiB of G2): copies are cheap, and a goroutine
// that waits for a core costs more than a small copy.
const gatherBlock = 1 << 14

// gather copies bases[idx[i]] into dst[i], in blocks of gatherBlock on up
// to tasks goroutines (the caller's among them).
func gather[P any](dst, bases []P, idx []uint32, tasks int) {
	blocks := (len(idx) + gatherBlock - 1) / gatherBlock
	split.Parallel(blocks, tasks, func(k int) {
		lo, hi := k*gatherBlock, min((k+1)*gatherBlock, len(idx))
		for i := lo; i < hi; i++ {
			dst[i] = bases[idx[i]]
		}
	})
}
