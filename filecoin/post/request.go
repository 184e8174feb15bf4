package post

import "strings"

// FromRequest makes the partition a cuzk PoSt request asks for from its
// fields as Curio's client fills them: the registered proof's Info, the
// randomness (32 bytes, byte 31 masked), one bincode vanilla proof per
// sector and the WindowPoSt partition index (0 for WinningPoSt, which
// carries exactly one vanilla proof). It decodes and shape-checks; Verify
// hashes. Errors wrap ErrBadVanillaProof and name the request field.
func FromRequest(info Info, randomness []byte, vanilla [][]byte, partitionIndex int) (*Partition, error) {
	if len(randomness) != 32 {
		return nil, bad("randomness: %d bytes, want 32", len(randomness))
	}
	if info.Winning && (len(vanilla) != 1 || partitionIndex != 0) {
		return nil, bad("vanilla_proofs: %d and partition_index %d; a WinningPoSt carries 1 proof, partition 0", len(vanilla), partitionIndex)
	}
	if len(vanilla) == 0 || len(vanilla) > info.MaxSectors() {
		return nil, bad("vanilla_proofs: %d, want 1 to %d", len(vanilla), info.MaxSectors())
	}
	proofs := make([]*SectorProof, len(vanilla))
	for i, b := range vanilla {
		s, err := DecodeSectorProof(b)
		if err != nil {
			// err is a bad(): name the request field in front of its detail.
			return nil, bad("vanilla_proofs[%d]: %s", i, strings.TrimPrefix(err.Error(), ErrBadVanillaProof.Error()+": "))
		}
		proofs[i] = s
	}
	if info.Winning {
		return NewWinning(info, [32]byte(randomness), proofs[0])
	}
	return NewWindow(info, [32]byte(randomness), proofs, partitionIndex)
}
