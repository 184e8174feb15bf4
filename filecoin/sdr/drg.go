package sdr

import (
	"math/bits"

	"github.com/cuzk-project/cuzk/filecoin"
)

// DRG shape (storage-proofs-core drgraph.rs): BASE_DEGREE 6, of which one
// is the immediate predecessor and five are bucket-sampled.
const (
	DRGDegree = 6
	mPrime    = DRGDegree - 1
)

// DRGParents writes the 6 DRG parents of node v (all in the same layer, all
// below v) into out.
//
// Nodes 0 and 1 have six parents 0. For v ≥ 2 a ChaCha8 stream keyed by the
// graph's 28-byte seed ‖ u32_le(v) draws, for each of five parents, a bucket
// b = (u64 mod n) + 1 with n = ⌈log2(5v)⌉ and a distance in
// [max(2, min(5v, 2^b)/2), min(5v, 2^b)] in the metagraph of 5v nodes; the
// parent is (5v − distance)/5, or v − 1 where that is v itself. Each u64
// takes two stream words, the low one first; ten u64 use 20 words, which
// rand_chacha's 64-word buffer serves from blocks 0 and 1. The predecessor
// v − 1 is parent 0 from API 1.1 on (the drawn ones are 1..5), parent 5
// in API 1.0 (the drawn ones are 0..4).
//
// v must be below Nodes(); beyond, the result is meaningless but safe.
func (g *Graph) DRGParents(v uint32, out *[DRGDegree]uint32) {
	if v < 2 {
		*out = [DRGDegree]uint32{}
		return
	}
	key := g.drgKey
	key[7] = v
	var w [32]uint32
	chachaBlock(&key, 0, 8, (*[16]uint32)(w[0:16]))
	chachaBlock(&key, 1, 8, (*[16]uint32)(w[16:32]))

	meta := uint64(v) * mPrime
	// ⌈log2(meta)⌉ as rust-fil-proofs computes it in f64: meta = 5v is never
	// a power of two, and its f64 log2 is never within rounding of an
	// integer for meta < 2^35, so it is the bit length.
	nBuckets := uint64(bits.Len64(meta))
	first, pred := 1, 0
	if g.api == filecoin.APIV1_0 {
		first, pred = 0, mPrime
	}
	for j := 0; j < mPrime; j++ {
		r0 := uint64(w[4*j]) | uint64(w[4*j+1])<<32
		r1 := uint64(w[4*j+2]) | uint64(w[4*j+3])<<32
		bucket := r0%nBuckets + 1
		largest := min(meta, uint64(1)<<bucket)
		smallest := max(2, largest>>1)
		distance := smallest + r1%(largest-smallest+1)
		p := uint32((meta - distance) / mPrime)
		if p == v {
			p = v - 1
		}
		out[first+j] = p
	}
	out[pred] = v - 1
}
