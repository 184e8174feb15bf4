package update

import (
	"fmt"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-project/cuzk/hash"
)

// frCapacity is the number of bits every scalar can hold (Fr::CAPACITY).
const frCapacity = fr.Bits - 1

// ChallengesPerDigest is how many challenges one digest gives: ⌊254 /
// ChallengeBits⌋.
func (i Info) ChallengesPerDigest() int { return frCapacity / i.ChallengeBits() }

// DigestsPerPartition is how many digests a partition's challenges take:
// ⌈Challenges / ChallengesPerDigest⌉.
func (i Info) DigestsPerPartition() int {
	per := i.ChallengesPerDigest()
	return (i.Challenges + per - 1) / per
}

// Challenges re-derives partition k's challenged nodes from comm_r_new
// (storage-proofs-update challenges.rs Challenges::new). Digest j of the
// whole proof is Poseidon₂ᶜ(comm_r_new, j), partition k using digests
// k·DigestsPerPartition on; challenge t of a digest is its little-endian
// bits [t·b, (t+1)·b) with b = ChallengeBits, with k appended above them, so
// every challenge of partition k lies in the k-th of Partitions equal
// chunks of the sector. It fails when k is out of range or comm_r_new is not
// canonical.
func Challenges(info Info, commRNew hash.Domain, k int) ([]uint64, error) {
	if k < 0 || k >= info.Partitions {
		return nil, fmt.Errorf("%w: partition %d of %d", ErrBadVanillaProof, k, info.Partitions)
	}
	r, err := commRNew.Element()
	if err != nil {
		return nil, fmt.Errorf("%w: comm_r_new: %w", ErrBadVanillaProof, err)
	}
	b := info.ChallengeBits()
	per := info.ChallengesPerDigest()
	first := uint64(k) * uint64(info.DigestsPerPartition())
	out := make([]uint64, info.Challenges)
	var digest [32]byte
	for t := range out {
		if t%per == 0 {
			var j fr.Element
			j.SetUint64(first + uint64(t/per))
			d := hash2(r, j)
			fr.LittleEndian.PutElement(&digest, d)
		}
		out[t] = bitsLE(&digest, (t%per)*b, b) | uint64(k)<<b
	}
	return out, nil
}

// bitsLE reads n ≤ 64 bits of the little-endian b starting at bit off.
func bitsLE(b *[32]byte, off, n int) uint64 {
	var v uint64
	for i := range n {
		bit := off + i
		v |= uint64(b[bit/8]>>(bit%8)&1) << i
	}
	return v
}
