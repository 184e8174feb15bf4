package post

import (
	"crypto/sha256"
	"encoding/binary"

	"github.com/cuzk-project/cuzk/filecoin"
)

// LeafChallenge is the node of tree R a sector's challenge opens
// (storage-proofs-post fallback/vanilla.rs generate_leaf_challenge):
// u64_le(SHA-256(randomness ‖ u64_le(sector id) ‖ u64_le(challenge
// index))[0..8]) mod nodes. nodes must not be 0.
func LeafChallenge(randomness [32]byte, sectorID, challengeIndex, nodes uint64) uint64 {
	var buf [32 + 8 + 8]byte
	copy(buf[:], randomness[:])
	binary.LittleEndian.PutUint64(buf[32:], sectorID)
	binary.LittleEndian.PutUint64(buf[40:], challengeIndex)
	h := sha256.Sum256(buf[:])
	return binary.LittleEndian.Uint64(h[:8]) % nodes
}

// ChallengeIndex is the challenge index of challenge n of the sector at
// sectorIndex in a proof (storage-proofs-post fallback/utils.rs
// get_challenge_index): sectorIndex·perSector + n for ApiVersion 1.0 and
// 1.1, n for 1.2. For WindowPoSt sectorIndex is partition·SectorCount + the
// sector's position in its partition; for WinningPoSt it is the circuit
// sector 0..65 with one challenge each.
func ChallengeIndex(api filecoin.APIVersion, sectorIndex, perSector, n int) uint64 {
	if api >= filecoin.APIV1_2 {
		return uint64(n)
	}
	return uint64(sectorIndex)*uint64(perSector) + uint64(n)
}

// WinningSectorChallenges picks count sectors of a miner's proving set of
// setLen sectors for a WinningPoSt (storage-proofs-post fallback/vanilla.rs
// generate_sector_challenge): challenge n is u64_le(SHA-256(prover_id ‖
// randomness ‖ u64_le(n))[0..8]) mod setLen, an index into the set. The
// registered proofs draw count = 1. An empty set has no challenge: nil.
func WinningSectorChallenges(randomness [32]byte, proverID [32]byte, setLen uint64, count int) []uint64 {
	if setLen == 0 || count <= 0 {
		return nil
	}
	out := make([]uint64, count)
	var buf [32 + 32 + 8]byte
	copy(buf[:], proverID[:])
	copy(buf[32:], randomness[:])
	for n := range out {
		binary.LittleEndian.PutUint64(buf[64:], uint64(n))
		h := sha256.Sum256(buf[:])
		out[n] = binary.LittleEndian.Uint64(h[:8]) % setLen
	}
	return out
}
