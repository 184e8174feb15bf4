package filecoin

import (
	"crypto/sha256"
	"encoding/binary"
)

// PoRepID is the 32-byte porep_id every graph seed and replica_id is derived
// from: u64_le(registered proof id) ‖ u64_le(nonce) ‖ 16 zero bytes, the
// nonce being 0 for every registered proof (rust-filecoin-proofs-api
// src/registry.rs porep_id).
func PoRepID(p SealProof) [32]byte {
	var id [32]byte
	binary.LittleEndian.PutUint64(id[0:], uint64(p))
	return id
}

// ProverID is the prover_id of a miner actor: the payload of its ID address
// (the actor id as an unsigned LEB128 varint) in a zero-filled 32-byte array.
func ProverID(actorID uint64) [32]byte {
	var id [32]byte
	binary.PutUvarint(id[:], actorID)
	return id
}

// ReplicaID is SHA-256(prover_id ‖ u64_be(sector number) ‖ ticket ‖ comm_d ‖
// porep_id) with the top two bits of byte 31 cleared, so that it reads as a
// canonical little-endian scalar (storage-proofs-porep
// stacked/vanilla/params.rs generate_replica_id).
func ReplicaID(proverID [32]byte, sector uint64, ticket, commD, porepID [32]byte) [32]byte {
	var buf [32 + 8 + 32 + 32 + 32]byte
	copy(buf[0:], proverID[:])
	binary.BigEndian.PutUint64(buf[32:], sector)
	copy(buf[40:], ticket[:])
	copy(buf[72:], commD[:])
	copy(buf[104:], porepID[:])
	id := sha256.Sum256(buf[:])
	id[31] &= 0x3f
	return id
}
