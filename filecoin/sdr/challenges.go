package sdr

import (
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"math/bits"

	"github.com/cuzk-project/cuzk/filecoin"
)

// ErrBadChallenge reports a partition or parameter set no challenges exist for.
var ErrBadChallenge = errors.New("sdr: bad challenge request")

// niTag separates non-interactive challenges (storage-proofs-porep
// stacked/vanilla/challenges.rs NiChallenges).
const niTag = "filecoin.io|PoRep|1|NonInteractive|1"

// challengeOf reads 32 bytes as a little-endian integer h and returns
// (h mod (nodes − 1)) + 1: a challenge never selects node 0.
func challengeOf(b []byte, nodes uint64) uint64 {
	m := nodes - 1
	var r uint64
	for i := 3; i >= 0; i-- {
		_, r = bits.Div64(r, binary.LittleEndian.Uint64(b[8*i:]), m)
	}
	return r + 1
}

// InteractiveChallenges are the challenges of a partition of an interactive
// PoRep: for i < perPartition, j = perPartition·partition + i (as u32) and
// challenge i = SHA-256(replica_id ‖ seed ‖ u32_le(j)) read little-endian,
// mod (nodes − 1), plus 1. It returns nil when nodes < 2 or perPartition < 1.
func InteractiveChallenges(replicaID, seed [32]byte, nodes uint64, partition, perPartition int) []uint64 {
	var prefix [64]byte
	copy(prefix[:32], replicaID[:])
	copy(prefix[32:], seed[:])
	return hashChallenges(prefix[:], nodes, partition, perPartition)
}

// NIChallenges are the challenges of a partition of a non-interactive PoRep:
// as InteractiveChallenges, over "filecoin.io|PoRep|1|NonInteractive|1" ‖
// replica_id ‖ comm_r ‖ u32_le(j).
func NIChallenges(replicaID, commR [32]byte, nodes uint64, partition, perPartition int) []uint64 {
	prefix := make([]byte, 0, len(niTag)+64)
	prefix = append(prefix, niTag...)
	prefix = append(prefix, replicaID[:]...)
	prefix = append(prefix, commR[:]...)
	return hashChallenges(prefix, nodes, partition, perPartition)
}

func hashChallenges(prefix []byte, nodes uint64, partition, perPartition int) []uint64 {
	if nodes < 2 || perPartition < 1 || partition < 0 {
		return nil
	}
	buf := make([]byte, len(prefix)+4)
	copy(buf, prefix)
	out := make([]uint64, perPartition)
	for i := range out {
		binary.LittleEndian.PutUint32(buf[len(prefix):], uint32(perPartition*partition+i))
		h := sha256.Sum256(buf)
		out[i] = challengeOf(h[:], nodes)
	}
	return out
}

// Challenges returns partition k's PoRep challenges (node indices, each in
// [1, nodes)) for a registered proof, by its feature: interactive ones from
// seed, non-interactive ones from comm_r, synthetic ones selected by seed
// from the synthetic set of comm_r (what C1 proves and C2's circuit
// checks). Unused arguments are ignored.
func Challenges(info filecoin.SealInfo, replicaID, seed, commR [32]byte, partition int) ([]uint64, error) {
	if partition < 0 || partition >= info.Partitions {
		return nil, fmt.Errorf("%w: partition %d of %v, which has %d", ErrBadChallenge, partition, info.Proof, info.Partitions)
	}
	if info.Nodes < 2 || info.Challenges < 1 {
		return nil, fmt.Errorf("%w: %d nodes, %d challenges per partition", ErrBadChallenge, info.Nodes, info.Challenges)
	}
	switch info.Feature {
	case filecoin.Interactive:
		return InteractiveChallenges(replicaID, seed, info.Nodes, partition, info.Challenges), nil
	case filecoin.NonInteractive:
		return NIChallenges(replicaID, commR, info.Nodes, partition, info.Challenges), nil
	case filecoin.Synthetic:
		return SyntheticChallenges(replicaID, commR, seed, info.Nodes, partition, info.Challenges), nil
	}
	return nil, fmt.Errorf("%w: feature %v", ErrBadChallenge, info.Feature)
}
