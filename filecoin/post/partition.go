package post

import (
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-project/cuzk/hash"
)

// maxPartitionIndex bounds a WindowPoSt partition index: a deadline holds
// far fewer partitions, and the challenge index must not overflow.
const maxPartitionIndex = 1 << 24

// Partition is one FallbackPoSt circuit's worth of vanilla proofs: the
// circuit sectors in order with the leaf each challenge opens.
//
// Sectors has exactly Info.SectorCount entries: for WinningPoSt the one
// vanilla sector unrolled into 66 circuit sectors of one opening each; for
// WindowPoSt the request's sectors in the order given, then the last one
// repeated (the repeats share its openings), as rust-fil-proofs pads a
// partition (post_util.rs single_partition_vanilla_proofs, compound.rs).
// Challenges[i] are circuit sector i's challenged leaves, re-derived from
// Randomness, never read from the proofs.
type Partition struct {
	Info       Info
	Randomness [32]byte
	// Index is the WindowPoSt partition index the request names (0 for
	// WinningPoSt). It enters the challenges for ApiVersion 1.0 and 1.1 only.
	Index      int
	Sectors    []SectorProof
	Challenges [][]uint64
	// Given is the number of circuit sectors taken from the request; the
	// rest repeat sector Given−1.
	Given int
}

// NewWinning makes the WinningPoSt partition of a vanilla proof of the
// challenged sector: its 66 openings become 66 circuit sectors, circuit
// sector n challenged at challenge index n (ApiVersion 1.0: sector index n,
// one challenge per sector). It checks the proof's shape and the
// randomness, not the hashes: Verify does.
func NewWinning(info Info, randomness [32]byte, proof *SectorProof) (*Partition, error) {
	if !info.Winning {
		return nil, bad("%s is not a WinningPoSt proof", info.Name)
	}
	if err := checkRandomness(randomness); err != nil {
		return nil, err
	}
	if proof == nil {
		return nil, bad("no vanilla proof")
	}
	if err := proof.CheckShape(info); err != nil {
		return nil, err
	}
	p := &Partition{Info: info, Randomness: randomness, Given: info.SectorCount,
		Sectors: make([]SectorProof, info.SectorCount), Challenges: make([][]uint64, info.SectorCount)}
	for n := range p.Sectors {
		s := *proof
		s.Inclusion = proof.Inclusion[n : n+1 : n+1]
		p.Sectors[n] = s
		p.Challenges[n] = []uint64{LeafChallenge(randomness, proof.SectorID, ChallengeIndex(info.API, n, 1, 0), info.Nodes)}
	}
	return p, nil
}

// NewWindow makes WindowPoSt partition partitionIndex from its sectors'
// vanilla proofs, 1 to SectorCount of them with distinct sector ids, in the
// order given (the order of the proof's public sectors). Sector i is
// challenged at ChallengeIndex(API, partitionIndex·SectorCount + i, 10, n).
// It checks the proofs' shapes and the randomness, not the hashes: Verify
// does.
func NewWindow(info Info, randomness [32]byte, proofs []*SectorProof, partitionIndex int) (*Partition, error) {
	if info.Winning {
		return nil, bad("%s is not a WindowPoSt proof", info.Name)
	}
	if err := checkRandomness(randomness); err != nil {
		return nil, err
	}
	if len(proofs) == 0 || len(proofs) > info.SectorCount {
		return nil, bad("%d sector proofs, want 1 to %d", len(proofs), info.SectorCount)
	}
	if partitionIndex < 0 || partitionIndex > maxPartitionIndex {
		return nil, bad("partition index %d outside [0, %d]", partitionIndex, maxPartitionIndex)
	}
	seen := make(map[uint64]int, len(proofs))
	for i, s := range proofs {
		if s == nil {
			return nil, bad("sector %d: no vanilla proof", i)
		}
		if j, dup := seen[s.SectorID]; dup {
			return nil, bad("sector %d: sector number %d is also sector %d", i, s.SectorID, j)
		}
		seen[s.SectorID] = i
		if err := s.CheckShape(info); err != nil {
			return nil, err
		}
	}
	p := &Partition{Info: info, Randomness: randomness, Index: partitionIndex, Given: len(proofs),
		Sectors: make([]SectorProof, info.SectorCount), Challenges: make([][]uint64, info.SectorCount)}
	for i, s := range proofs {
		p.Sectors[i] = *s
		p.Challenges[i] = windowChallenges(info, randomness, s.SectorID, partitionIndex*info.SectorCount+i)
	}
	for i := len(proofs); i < info.SectorCount; i++ {
		p.Sectors[i], p.Challenges[i] = p.Sectors[i-1], p.Challenges[i-1]
	}
	return p, nil
}

// windowChallenges are the leaves of the sector at sectorIndex in a
// WindowPoSt proof.
func windowChallenges(info Info, randomness [32]byte, sectorID uint64, sectorIndex int) []uint64 {
	cs := make([]uint64, info.Challenges)
	for n := range cs {
		cs[n] = LeafChallenge(randomness, sectorID, ChallengeIndex(info.API, sectorIndex, info.Challenges, n), info.Nodes)
	}
	return cs
}

// checkRandomness refuses randomness that is not a canonical scalar, as
// filecoin-proofs does (as_safe_commitment); callers clear the top two bits
// of byte 31.
func checkRandomness(r [32]byte) error {
	if _, err := hash.Domain(r).Element(); err != nil {
		return bad("randomness %x is not a canonical field element (byte 31 must be masked with 0x3f)", r[:])
	}
	return nil
}

// PublicInputs are the circuit's public inputs, ONE excluded: per circuit
// sector comm_r, then its challenged leaf indices (storage-proofs-post
// fallback/compound.rs generate_public_inputs). The constructors check that
// every comm_r is canonical; a hand-made Partition must be checked with
// Verify first.
func (p *Partition) PublicInputs() []fr.Element {
	out := make([]fr.Element, 0, len(p.Sectors)*(1+p.Info.Challenges))
	for i := range p.Sectors {
		out = appendSectorInputs(out, p.Sectors[i].CommR, p.Challenges[i])
	}
	return out
}

func appendSectorInputs(out []fr.Element, commR hash.Domain, leaves []uint64) []fr.Element {
	e, err := commR.Element()
	if err != nil { // reduced mod r, as a non-canonical comm_r never gets here from a constructor
		var be [32]byte
		for i := range be {
			be[i] = commR[31-i]
		}
		e.SetBytes(be[:])
	}
	out = append(out, e)
	for _, c := range leaves {
		out = append(out, *new(fr.Element).SetUint64(c))
	}
	return out
}
