package post

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-project/cuzk/filecoin"
	"github.com/cuzk-project/cuzk/hash"
)

// PoStProof is go-state-types proof.PoStProof: the registered proof and
// the proof bytes (192 per partition), base64 in JSON.
type PoStProof struct {
	PoStProof  Proof
	ProofBytes []byte
}

// SectorInfo is go-state-types proof.SectorInfo: a challenged sector with
// the seal proof it was sealed with and comm_r as {"/":"bagboea…"}.
type SectorInfo struct {
	SealProof    filecoin.SealProof
	SectorNumber uint64
	SealedCID    filecoin.CID
}

// WinningPoStVerifyInfo is go-state-types proof.WinningPoStVerifyInfo with
// the same JSON: Randomness in base64, Prover the miner's actor id.
//
// Randomness is the chain's: its public inputs are computed, as Lotus's
// proof verifier does, with the top two bits of byte 31 cleared.
type WinningPoStVerifyInfo struct {
	Randomness        []byte
	Proofs            []PoStProof
	ChallengedSectors []SectorInfo
	Prover            uint64
}

// WindowPoStVerifyInfo is go-state-types proof.WindowPoStVerifyInfo with
// the same JSON.
type WindowPoStVerifyInfo struct {
	Randomness        []byte
	Proofs            []PoStProof
	ChallengedSectors []SectorInfo
	Prover            uint64
}

// PublicSector is a challenged sector as the public inputs see it.
type PublicSector struct {
	ID    uint64
	CommR hash.Domain
}

// PublicInputs checks w as Lotus and filecoin-ffi's VerifyWinningPoSt do
// before they verify (one proof of a winning type, exactly one challenged
// sector of the proof's sector size, 32 bytes of randomness, a canonical
// comm_r) and returns the proof's parameters and its public inputs, ONE
// excluded: 66 × [comm_r, leaf n] (filecoin-proofs winning_post.rs
// verify_winning_post repeats the sector 66 times; challenge index n).
func (w *WinningPoStVerifyInfo) PublicInputs() (Info, []fr.Element, error) {
	info, rand, sectors, err := publicData(w.Randomness, w.Proofs, w.ChallengedSectors, true)
	if err != nil {
		return Info{}, nil, err
	}
	if len(sectors) != 1 {
		return Info{}, nil, bad("ChallengedSectors: %d, a WinningPoSt proves exactly 1", len(sectors))
	}
	return info, WinningInputs(info, rand, sectors[0]), nil
}

// PublicInputs checks w as Lotus and filecoin-ffi's VerifyWindowPoSt do
// before they verify and returns the proof's parameters and each partition's public
// inputs, ONE excluded. As filecoin-proofs window_post.rs
// verify_window_post, the challenged sectors are taken in sector-number
// order, cut into partitions of SectorCount, and partition k's sector i
// has sector index k·SectorCount + i. The proof bytes should hold 192 bytes
// per partition. A sector number named twice is refused.
func (w *WindowPoStVerifyInfo) PublicInputs() (Info, [][]fr.Element, error) {
	info, rand, sectors, err := publicData(w.Randomness, w.Proofs, w.ChallengedSectors, false)
	if err != nil {
		return Info{}, nil, err
	}
	slices.SortFunc(sectors, func(a, b PublicSector) int { return cmp.Compare(a.ID, b.ID) })
	for i := 1; i < len(sectors); i++ {
		if sectors[i].ID == sectors[i-1].ID {
			return Info{}, nil, bad("ChallengedSectors: sector number %d twice", sectors[i].ID)
		}
	}
	var out [][]fr.Element
	for k := 0; k*info.SectorCount < len(sectors); k++ {
		chunk := sectors[k*info.SectorCount : min((k+1)*info.SectorCount, len(sectors))]
		in, err := WindowInputs(info, rand, chunk, k)
		if err != nil {
			return Info{}, nil, err
		}
		out = append(out, in)
	}
	return info, out, nil
}

// publicData checks what both verify infos share.
func publicData(randomness []byte, proofs []PoStProof, challenged []SectorInfo, winning bool) (Info, [32]byte, []PublicSector, error) {
	var rand [32]byte
	kind := "WindowPoSt"
	if winning {
		kind = "WinningPoSt"
	}
	if len(proofs) != 1 {
		return Info{}, rand, nil, bad("Proofs: %d, want 1", len(proofs))
	}
	info, err := proofs[0].PoStProof.Info()
	if err != nil {
		return Info{}, rand, nil, fmt.Errorf("Proofs[0].PoStProof: %w", err)
	}
	if info.Winning != winning {
		return Info{}, rand, nil, bad("Proofs[0].PoStProof: %s is not a %s proof", info.Name, kind)
	}
	if len(randomness) != 32 {
		return Info{}, rand, nil, bad("Randomness: %d bytes, want 32", len(randomness))
	}
	copy(rand[:], randomness)
	rand[31] &= 0x3f
	if len(challenged) == 0 {
		return Info{}, rand, nil, bad("ChallengedSectors: none")
	}
	sectors := make([]PublicSector, len(challenged))
	for i, c := range challenged {
		if !info.Fits(c.SealProof) {
			return Info{}, rand, nil, bad("ChallengedSectors[%d]: seal proof %s does not fit %s", i, c.SealProof, info.Name)
		}
		r, err := c.SealedCID.CommR()
		if err != nil {
			return Info{}, rand, nil, bad("ChallengedSectors[%d].SealedCID: %v", i, err)
		}
		d := hash.Domain(r)
		if err := canonical(&d); err != nil {
			return Info{}, rand, nil, bad("ChallengedSectors[%d].SealedCID: comm_r %v", i, err)
		}
		sectors[i] = PublicSector{ID: c.SectorNumber, CommR: d}
	}
	return info, rand, sectors, nil
}

// WinningInputs are a WinningPoSt's public inputs for its challenged
// sector: 66 × [comm_r, leaf n], n = 0..65. comm_r must be canonical.
func WinningInputs(info Info, randomness [32]byte, s PublicSector) []fr.Element {
	out := make([]fr.Element, 0, info.SectorCount*(1+info.Challenges))
	for n := range info.SectorCount {
		out = appendSectorInputs(out, s.CommR, []uint64{LeafChallenge(randomness, s.ID, ChallengeIndex(info.API, n, 1, 0), info.Nodes)})
	}
	return out
}

// WindowInputs are the public inputs of WindowPoSt partition
// partitionIndex with the given sectors (1 to SectorCount, in the proof's
// order): per sector [comm_r, its 10 leaves], the last sector's repeated up
// to SectorCount. comm_r must be canonical.
func WindowInputs(info Info, randomness [32]byte, sectors []PublicSector, partitionIndex int) ([]fr.Element, error) {
	if info.Winning {
		return nil, bad("%s is not a WindowPoSt proof", info.Name)
	}
	if len(sectors) == 0 || len(sectors) > info.SectorCount {
		return nil, bad("%d sectors, want 1 to %d", len(sectors), info.SectorCount)
	}
	if partitionIndex < 0 || partitionIndex > maxPartitionIndex {
		return nil, bad("partition index %d outside [0, %d]", partitionIndex, maxPartitionIndex)
	}
	out := make([]fr.Element, 0, info.SectorCount*(1+info.Challenges))
	for i, s := range sectors {
		out = appendSectorInputs(out, s.CommR, windowChallenges(info, randomness, s.ID, partitionIndex*info.SectorCount+i))
	}
	per := 1 + info.Challenges
	last := out[len(out)-per:]
	for range info.SectorCount - len(sectors) {
		out = append(out, last...)
	}
	return out, nil
}
