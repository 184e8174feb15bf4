package filecoin

import (
	"errors"
	"fmt"
	"math/bits"

	"github.com/cuzk-project/cuzk/filecoin/internal/registry"
	"github.com/cuzk-project/cuzk/hash/merkle"
)

// SealProof is a registered seal proof in abi.RegisteredSealProof numbering
// (go-state-types, filecoin-ffi, and REGISTERED_PROOF_IDS of
// rust-filecoin-proofs-api src/registry.rs, which is also the id in porep_id).
// The numbering is append-only: five sector sizes per generation.
type SealProof int64

// The registered seal proofs. The identifiers are the serde names of
// rust-filecoin-proofs-api's RegisteredSealProof; the synthetic ones carry
// "V1_1" although they belong to API version 1.2 (a naming slip upstream kept
// for compatibility).
const (
	StackedDrg2KiBV1 SealProof = iota
	StackedDrg8MiBV1
	StackedDrg512MiBV1
	StackedDrg32GiBV1
	StackedDrg64GiBV1

	StackedDrg2KiBV1_1
	StackedDrg8MiBV1_1
	StackedDrg512MiBV1_1
	StackedDrg32GiBV1_1
	StackedDrg64GiBV1_1

	StackedDrg2KiBV1_1_Feat_SyntheticPoRep
	StackedDrg8MiBV1_1_Feat_SyntheticPoRep
	StackedDrg512MiBV1_1_Feat_SyntheticPoRep
	StackedDrg32GiBV1_1_Feat_SyntheticPoRep
	StackedDrg64GiBV1_1_Feat_SyntheticPoRep

	StackedDrg2KiBV1_2_Feat_NonInteractivePoRep
	StackedDrg8MiBV1_2_Feat_NonInteractivePoRep
	StackedDrg512MiBV1_2_Feat_NonInteractivePoRep
	StackedDrg32GiBV1_2_Feat_NonInteractivePoRep
	StackedDrg64GiBV1_2_Feat_NonInteractivePoRep

	numSealProofs = iota
)

// ErrUnknownProof reports a seal proof id or name outside the registry.
var ErrUnknownProof = errors.New("filecoin: unknown registered seal proof")

// APIVersion is rust-fil-proofs' ApiVersion. The graph depends on it: from
// 1.1 on, a DRG node's immediate predecessor is parent 0 (1.0: parent 5) and
// expander parents keep all their high bits.
type APIVersion int

const (
	APIV1_0 APIVersion = iota // 1.0.0: StackedDrg*V1
	APIV1_1                   // 1.1.0: StackedDrg*V1_1
	APIV1_2                   // 1.2.0: synthetic and non-interactive PoRep
)

func (v APIVersion) String() string {
	switch v {
	case APIV1_0:
		return "1.0.0"
	case APIV1_1:
		return "1.1.0"
	case APIV1_2:
		return "1.2.0"
	}
	return fmt.Sprintf("APIVersion(%d)", int(v))
}

// PoRepFeature says how a proof's challenges are derived.
type PoRepFeature int

const (
	// Interactive: challenges from the seed drawn after pre-commit.
	Interactive PoRepFeature = iota
	// Synthetic: C1 picks the interactive challenges from a set of 2^18
	// synthetic challenges derived from comm_r, selected by the seed.
	Synthetic
	// NonInteractive: challenges from comm_r alone; many more partitions.
	NonInteractive
)

func (f PoRepFeature) String() string {
	switch f {
	case Interactive:
		return "interactive"
	case Synthetic:
		return "synthetic"
	case NonInteractive:
		return "non-interactive"
	}
	return fmt.Sprintf("PoRepFeature(%d)", int(f))
}

// SealInfo is everything a registered seal proof fixes about a sector and
// its PoRep circuit.
type SealInfo struct {
	Proof SealProof
	// Name is the serde name (C1's registered_proof), e.g. "StackedDrg32GiBV1_1".
	Name string
	// VanillaKey is the key of C1's vanilla_proofs map, always the V1 name of
	// the size, e.g. "StackedDrg32GiBV1".
	VanillaKey string
	SectorSize uint64 // bytes
	Nodes      uint64 // 32-byte nodes: SectorSize / 32
	Layers     int
	Partitions int
	// Challenges is the number of challenges per partition (the circuit's
	// max_count): ⌈minimum challenges / partitions⌉.
	Challenges int
	// TreeR is the shape of trees C and R (comm_c, comm_r_last).
	TreeR merkle.Shape
	// TreeDLevels is the height of the binary tree D: log2(Nodes).
	TreeDLevels int
	API         APIVersion
	Feature     PoRepFeature
}

// porepSize holds what one sector size fixes about its PoRep, whatever the
// generation.
type porepSize struct {
	layers     int
	partitions int // interactive and synthetic
	niParts    int // non-interactive
	minimum    int // interactive minimum challenges
	niMinimum  int // non-interactive minimum challenges
}

// Values of rust-fil-proofs filecoin-proofs/src/constants.rs, in
// SectorSizes order. The NI partition counts were chosen there so that
// challenges per partition stay 2 and 18, which keeps the interactive
// circuits and parameter files.
var porepSizes = [NumSectorSizes]porepSize{
	{2, 1, 13, 2, 26},        // 2 KiB
	{2, 1, 13, 2, 26},        // 8 MiB
	{2, 1, 13, 2, 26},        // 512 MiB
	{11, 10, 126, 176, 2253}, // 32 GiB
	{11, 10, 126, 176, 2253}, // 64 GiB
}

// SealProofs lists every registered seal proof in id order.
func SealProofs() []SealProof { return registry.IDs(SealProof(numSealProofs)) }

// Info returns the proof's parameters, or ErrUnknownProof.
func (p SealProof) Info() (SealInfo, error) {
	if p < 0 || p >= numSealProofs {
		return SealInfo{}, fmt.Errorf("%w: %d", ErrUnknownProof, int64(p))
	}
	size, s := sectorSizes[p%NumSectorSizes], porepSizes[p%NumSectorSizes]
	nodes := size.Bytes / 32
	info := SealInfo{
		Proof:       p,
		VanillaKey:  "StackedDrg" + size.Label + "V1",
		SectorSize:  size.Bytes,
		Nodes:       nodes,
		Layers:      s.layers,
		Partitions:  s.partitions,
		TreeR:       size.TreeR,
		TreeDLevels: bits.TrailingZeros64(nodes),
	}
	minimum := s.minimum
	switch p / 5 {
	case 0:
		info.Name, info.API, info.Feature = info.VanillaKey, APIV1_0, Interactive
	case 1:
		info.Name, info.API, info.Feature = "StackedDrg"+size.Label+"V1_1", APIV1_1, Interactive
	case 2:
		info.Name, info.API, info.Feature = "StackedDrg"+size.Label+"V1_1_Feat_SyntheticPoRep", APIV1_2, Synthetic
	case 3:
		info.Name, info.API, info.Feature = "StackedDrg"+size.Label+"V1_2_Feat_NonInteractivePoRep", APIV1_2, NonInteractive
		info.Partitions, minimum = s.niParts, s.niMinimum
	}
	info.Challenges = (minimum + info.Partitions - 1) / info.Partitions
	return info, nil
}

// String is the serde name, or "SealProof(<id>)" outside the registry.
func (p SealProof) String() string {
	info, err := p.Info()
	if err != nil {
		return fmt.Sprintf("SealProof(%d)", int64(p))
	}
	return info.Name
}

// ParseSealProof maps a serde name ("StackedDrg32GiBV1_1") to its id.
func ParseSealProof(name string) (SealProof, error) {
	if p, ok := registry.Parse(name, SealProof(numSealProofs)); ok {
		return p, nil
	}
	return 0, fmt.Errorf("%w: %q", ErrUnknownProof, name)
}
