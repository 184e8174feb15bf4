package post

import (
	"errors"
	"fmt"
	"strings"

	"github.com/cuzk-project/cuzk/filecoin"
	"github.com/cuzk-project/cuzk/filecoin/internal/registry"
	"github.com/cuzk-project/cuzk/hash/merkle"
)

// Proof is a registered PoSt proof in abi.RegisteredPoStProof numbering
// (go-state-types, filecoin-ffi): five sector sizes (2 KiB, 8 MiB, 512 MiB,
// 32 GiB, 64 GiB) per kind, Winning V1 0–4, Window V1 5–9, Window V1_1
// 10–14. rust-filecoin-proofs-api calls the last five StackedDrgWindow*V1_2.
type Proof int64

const (
	StackedDrgWinning2KiBV1 Proof = iota
	StackedDrgWinning8MiBV1
	StackedDrgWinning512MiBV1
	StackedDrgWinning32GiBV1
	StackedDrgWinning64GiBV1

	StackedDrgWindow2KiBV1
	StackedDrgWindow8MiBV1
	StackedDrgWindow512MiBV1
	StackedDrgWindow32GiBV1
	StackedDrgWindow64GiBV1

	StackedDrgWindow2KiBV1_1
	StackedDrgWindow8MiBV1_1
	StackedDrgWindow512MiBV1_1
	StackedDrgWindow32GiBV1_1
	StackedDrgWindow64GiBV1_1

	numProofs = iota
)

// The challenge counts of filecoin-proofs constants.rs.
const (
	// WinningChallenges is the number of tree R openings of the one sector a
	// WinningPoSt proves (WINNING_POST_CHALLENGE_COUNT).
	WinningChallenges = 66
	// WindowChallenges is the number of openings per WindowPoSt sector
	// (WINDOW_POST_CHALLENGE_COUNT).
	WindowChallenges = 10
)

// windowSectors is WINDOW_POST_SECTOR_COUNT by sector size index: sectors
// per WindowPoSt partition (the 32 and 64 GiB counts fill a 2^27 domain).
var windowSectors = [5]int{2, 2, 2, 2349, 2300}

// ErrUnknownProof reports a PoSt proof id or name outside the registry.
var ErrUnknownProof = errors.New("post: unknown registered PoSt proof")

// Info is everything a registered PoSt proof fixes about its sectors and
// its circuit.
type Info struct {
	Proof Proof
	// Name is rust-filecoin-proofs-api's serde name, e.g.
	// "StackedDrgWinning32GiBV1" or "StackedDrgWindow32GiBV1_2" (id 13).
	Name    string
	Winning bool
	// SectorSize is in bytes, Nodes the 32-byte nodes of a sector.
	SectorSize, Nodes uint64
	// SectorCount is the number of circuit sectors in a partition: 66 for
	// WinningPoSt (its one sector unrolled, one challenge each), the
	// WindowPoSt partition size otherwise (2; 2349 at 32 GiB; 2300 at 64 GiB).
	SectorCount int
	// Challenges is the number of challenges per circuit sector: 1 for
	// WinningPoSt, 10 for WindowPoSt.
	Challenges int
	// TreeR is the shape of tree R (comm_r_last), the sealed sector's.
	TreeR merkle.Shape
	// API is the proofs ApiVersion: 1.0 for Winning and Window V1, 1.2 for
	// Window V1_1. It decides the challenge index (ChallengeIndex).
	API filecoin.APIVersion
}

// Proofs lists every registered PoSt proof in id order.
func Proofs() []Proof { return registry.IDs(Proof(numProofs)) }

// Info returns the proof's parameters, or ErrUnknownProof.
func (p Proof) Info() (Info, error) {
	if p < 0 || p >= numProofs {
		return Info{}, fmt.Errorf("%w: %d", ErrUnknownProof, int64(p))
	}
	size := int(p % filecoin.NumSectorSizes)
	s := filecoin.SectorSizes()[size]
	info := Info{Proof: p, SectorSize: s.Bytes, Nodes: s.Bytes / 32, TreeR: s.TreeR}
	switch p / filecoin.NumSectorSizes {
	case 0:
		info.Name, info.Winning, info.API = "StackedDrgWinning"+s.Label+"V1", true, filecoin.APIV1_0
		info.SectorCount, info.Challenges = WinningChallenges, 1
	case 1:
		info.Name, info.API = "StackedDrgWindow"+s.Label+"V1", filecoin.APIV1_0
		info.SectorCount, info.Challenges = windowSectors[size], WindowChallenges
	case 2:
		info.Name, info.API = "StackedDrgWindow"+s.Label+"V1_2", filecoin.APIV1_2
		info.SectorCount, info.Challenges = windowSectors[size], WindowChallenges
	}
	return info, nil
}

// String is the serde name, or "PoStProof(<id>)" outside the registry.
func (p Proof) String() string {
	info, err := p.Info()
	if err != nil {
		return fmt.Sprintf("PoStProof(%d)", int64(p))
	}
	return info.Name
}

// ParseProof maps a name to its id: the serde name
// ("StackedDrgWindow32GiBV1_2") or, for ids 10–14, go-state-types' name
// ("StackedDrgWindow32GiBV1_1", with or without "RegisteredPoStProof_").
func ParseProof(name string) (Proof, error) {
	n := strings.TrimPrefix(name, "RegisteredPoStProof_")
	for p := Proof(0); p < numProofs; p++ {
		s := p.String()
		if s == n || (p >= StackedDrgWindow2KiBV1_1 && strings.TrimSuffix(s, "V1_2")+"V1_1" == n) {
			return p, nil
		}
	}
	return 0, fmt.Errorf("%w: %q", ErrUnknownProof, name)
}

// VanillaChallenges is the number of openings in one vanilla sector proof:
// 66 for WinningPoSt, 10 for WindowPoSt.
func (i Info) VanillaChallenges() int {
	if i.Winning {
		return WinningChallenges
	}
	return WindowChallenges
}

// MaxSectors is the most vanilla sector proofs one partition request
// carries: 1 for WinningPoSt, SectorCount for WindowPoSt.
func (i Info) MaxSectors() int {
	if i.Winning {
		return 1
	}
	return i.SectorCount
}

// Fits reports whether a sector sealed with seal can be proven with i:
// PoSt proofs are bound to the sector size only.
func (i Info) Fits(seal filecoin.SealProof) bool {
	s, err := seal.Info()
	return err == nil && s.SectorSize == i.SectorSize
}
