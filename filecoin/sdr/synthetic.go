package sdr

import (
	"encoding/binary"

	"golang.org/x/crypto/blake2b"
	"golang.org/x/crypto/chacha20"
)

// Synthetic PoRep (storage-proofs-porep stacked/vanilla/challenges.rs,
// module synthetic).
const (
	// DefaultSyntheticCount caps the synthetic challenge set: min(nodes, 2^18).
	DefaultSyntheticCount = 1 << 18

	synthGenerationKey = "filecoin.io|PoRep|1|Synthetic|1|Generation"
	synthSelectionKey  = "filecoin.io|PoRep|1|Synthetic|1|Selection"
	synthChallengeSize = 32 // keystream bytes per synthetic challenge
	synthIndexSize     = 4  // keystream bytes per selected index
)

// synthNonce is the 12-byte IETF ChaCha20 nonce of both synthetic streams.
var synthNonce = []byte("synth-porep\x00")

// Synthetic is the synthetic challenge set of a sector: after sealing, C1
// proves all of them (from replica_id and comm_r alone); once the seed is
// known, each partition's PoRep challenges are a seed-selected subset.
//
// Synthetic challenge s is the 32 bytes at offset 32·s of the ChaCha20 (IETF,
// counter from 0, nonce "synth-porep\0") keystream keyed by
// Blake2b-256[key "…Synthetic|1|Generation"](replica_id ‖ comm_r), read
// little-endian, mod (nodes − 1), plus 1.
type Synthetic struct {
	replicaID [32]byte
	nodes     uint64
	count     int
	genKey    [32]byte
}

// NewSynthetic is the default set of a sector: min(nodes, 2^18) challenges.
// nodes must be at least 2.
func NewSynthetic(replicaID, commR [32]byte, nodes uint64) *Synthetic {
	return NewSyntheticCount(replicaID, commR, nodes, int(min(nodes, DefaultSyntheticCount)))
}

// NewSyntheticCount is a set of count challenges (tests use small ones).
func NewSyntheticCount(replicaID, commR [32]byte, nodes uint64, count int) *Synthetic {
	return &Synthetic{replicaID: replicaID, nodes: nodes, count: count, genKey: keyedBlake2b256(synthGenerationKey, replicaID, commR)}
}

func keyedBlake2b256(key string, a, b [32]byte) [32]byte {
	h, err := blake2b.New256([]byte(key))
	if err != nil {
		panic(err) // unreachable: the keys are shorter than 64 bytes
	}
	h.Write(a[:])
	h.Write(b[:])
	var out [32]byte
	h.Sum(out[:0])
	return out
}

// keystream returns n bytes of the synthetic ChaCha20 stream under key from
// byte offset off.
func keystream(key [32]byte, off uint64, n int) []byte {
	c, err := chacha20.NewUnauthenticatedCipher(key[:], synthNonce)
	if err != nil {
		panic(err) // unreachable: fixed key and nonce sizes
	}
	c.SetCounter(uint32(off / 64))
	skip := int(off % 64)
	buf := make([]byte, skip+n)
	c.XORKeyStream(buf, buf)
	return buf[skip:]
}

// Count is the number of synthetic challenges.
func (s *Synthetic) Count() int { return s.count }

// Challenge is synthetic challenge i (0 ≤ i < Count()); 0 when the sector
// has fewer than 2 nodes or i is out of range.
func (s *Synthetic) Challenge(i int) uint64 {
	if s.nodes < 2 || i < 0 || i >= s.count {
		return 0
	}
	return challengeOf(keystream(s.genKey, uint64(i)*synthChallengeSize, synthChallengeSize), s.nodes)
}

// All returns the whole synthetic set in order.
func (s *Synthetic) All() []uint64 {
	if s.nodes < 2 || s.count < 1 {
		return nil
	}
	ks := keystream(s.genKey, 0, s.count*synthChallengeSize)
	out := make([]uint64, s.count)
	for i := range out {
		out[i] = challengeOf(ks[i*synthChallengeSize:], s.nodes)
	}
	return out
}

// PartitionIndexes are the indices into the synthetic set of partition k's
// PoRep challenges: u32 LE values, mod Count(), of the ChaCha20 stream keyed
// by Blake2b-256[key "…Synthetic|1|Selection"](replica_id ‖ seed), read
// from byte offset 4·perPartition·k.
func (s *Synthetic) PartitionIndexes(seed [32]byte, partition, perPartition int) []int {
	if s.count < 1 || perPartition < 1 || partition < 0 {
		return nil
	}
	key := keyedBlake2b256(synthSelectionKey, s.replicaID, seed)
	ks := keystream(key, uint64(partition)*uint64(perPartition)*synthIndexSize, perPartition*synthIndexSize)
	out := make([]int, perPartition)
	for i := range out {
		out[i] = int(uint64(binary.LittleEndian.Uint32(ks[synthIndexSize*i:])) % uint64(s.count))
	}
	return out
}

// PartitionChallenges are partition k's PoRep challenges: the synthetic
// challenges at PartitionIndexes.
func (s *Synthetic) PartitionChallenges(seed [32]byte, partition, perPartition int) []uint64 {
	if s.nodes < 2 {
		return nil
	}
	idx := s.PartitionIndexes(seed, partition, perPartition)
	if idx == nil {
		return nil
	}
	out := make([]uint64, len(idx))
	for i, j := range idx {
		out[i] = s.Challenge(j)
	}
	return out
}

// SyntheticChallenges are partition k's PoRep challenges of a synthetic
// PoRep with the default synthetic set: what C1 takes from its synthetic
// proofs and C2 (the circuit's public inputs) uses once seed is known.
func SyntheticChallenges(replicaID, commR, seed [32]byte, nodes uint64, partition, perPartition int) []uint64 {
	return NewSynthetic(replicaID, commR, nodes).PartitionChallenges(seed, partition, perPartition)
}
