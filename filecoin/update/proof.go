package update

import (
	"errors"
	"fmt"
	"math/bits"
	"strings"

	"github.com/cuzk-project/cuzk/filecoin"
	"github.com/cuzk-project/cuzk/filecoin/internal/registry"
	"github.com/cuzk-project/cuzk/hash/merkle"
)

// Proof is a registered update proof in abi.RegisteredUpdateProof numbering
// (go-state-types; rust-filecoin-proofs-api src/registry.rs
// RegisteredUpdateProof, all of API version 1.1.0).
type Proof int64

// The registered update proofs, one per sector size. The names are the
// serde names of rust-filecoin-proofs-api's RegisteredUpdateProof.
const (
	StackedDrg2KiBV1 Proof = iota
	StackedDrg8MiBV1
	StackedDrg512MiBV1
	StackedDrg32GiBV1
	StackedDrg64GiBV1

	numProofs = iota
)

// ErrUnknownProof reports an update proof id, name or circuit id outside
// the registry.
var ErrUnknownProof = errors.New("update: unknown registered update proof")

// NumH is the number of h values the circuit is built for; h_select picks
// one of them.
const NumH = 6

// Info is everything a registered update proof fixes about a sector and its
// EmptySectorUpdate partition circuit (storage-proofs-update constants.rs).
type Info struct {
	Proof Proof
	// Name is the serde name, e.g. "StackedDrg32GiBV1".
	Name       string
	SectorSize uint64 // bytes
	Nodes      uint64 // 32-byte nodes
	// Partitions: 1 up to 8 KiB, 2 up to 32 KiB, 4 up to 16 MiB, else 16.
	Partitions int
	// Challenges per partition: 10 up to 16 MiB, else 86.
	Challenges int
	// ApexLeaves per partition: 8 up to 8 KiB, else 128.
	ApexLeaves int
	// Hs are the h values the circuit selects from: all 1 up to 32 KiB,
	// else 7..12. H is the one proofs use (Hs[3]: 1 for 2 KiB, 10 from
	// 8 MiB on) and HSelect = 1 << its index in Hs (1 for 2 KiB, else 8).
	Hs      [NumH]int
	H       int
	HSelect uint64
	// TreeR is the shape of the old and new replica trees.
	TreeR merkle.Shape
	// TreeDLevels is the height of the binary tree D: log2(Nodes).
	TreeDLevels int
	// SealProof is the V1_1 seal proof of the sector size.
	SealProof filecoin.SealProof
}

// Node counts the constants are stated in.
const (
	nodes8KiB  = 8 << 10 / 32
	nodes32KiB = 32 << 10 / 32
	nodes16MiB = 16 << 20 / 32
)

// Proofs lists every registered update proof in id order.
func Proofs() []Proof { return registry.IDs(Proof(numProofs)) }

// Info returns the proof's parameters, or ErrUnknownProof.
func (p Proof) Info() (Info, error) {
	if p < 0 || p >= numProofs {
		return Info{}, fmt.Errorf("%w: %d", ErrUnknownProof, int64(p))
	}
	s := filecoin.SectorSizes()[p]
	n := s.Bytes / 32
	info := Info{
		Proof:       p,
		Name:        "StackedDrg" + s.Label + "V1",
		SectorSize:  s.Bytes,
		Nodes:       n,
		Partitions:  16,
		Challenges:  86,
		ApexLeaves:  128,
		Hs:          [NumH]int{7, 8, 9, 10, 11, 12},
		TreeR:       s.TreeR,
		TreeDLevels: bits.TrailingZeros64(n),
		SealProof:   filecoin.StackedDrg2KiBV1_1 + filecoin.SealProof(p),
	}
	switch {
	case n <= nodes8KiB:
		info.Partitions = 1
	case n <= nodes32KiB:
		info.Partitions = 2
	case n <= nodes16MiB:
		info.Partitions = 4
	}
	if n <= nodes16MiB {
		info.Challenges = 10
	}
	if n <= nodes8KiB {
		info.ApexLeaves = 8
	}
	if n <= nodes32KiB {
		info.Hs = [NumH]int{1, 1, 1, 1, 1, 1}
	}
	info.H = info.Hs[3]
	for i, h := range info.Hs {
		if h == info.H {
			info.HSelect = 1 << i
			break
		}
	}
	return info, nil
}

// String is the serde name, or "UpdateProof(<id>)" outside the registry.
func (p Proof) String() string {
	info, err := p.Info()
	if err != nil {
		return fmt.Sprintf("UpdateProof(%d)", int64(p))
	}
	return info.Name
}

// ParseProof maps a serde name ("StackedDrg32GiBV1") to its id.
func ParseProof(name string) (Proof, error) {
	if p, ok := registry.Parse(name, Proof(numProofs)); ok {
		return p, nil
	}
	return 0, fmt.Errorf("%w: %q", ErrUnknownProof, name)
}

// ForSealProof is the update proof of a sector sealed with p: the one of its
// size, whatever p's generation (go-state-types
// RegisteredSealProof.RegisteredUpdateProof).
func ForSealProof(p filecoin.SealProof) (Proof, error) {
	si, err := p.Info()
	if err != nil {
		return 0, fmt.Errorf("update: %w", err)
	}
	if i, ok := filecoin.SectorSizeIndex(si.SectorSize); ok {
		return Proof(i), nil
	}
	return 0, fmt.Errorf("%w: no update proof for %d-byte sectors", ErrUnknownProof, si.SectorSize)
}

// PartitionBits is log2(Partitions): the challenge bits that name the
// partition.
func (i Info) PartitionBits() int { return bits.TrailingZeros(uint(i.Partitions)) }

// ApexBits is log2(ApexLeaves): the height of a partition's apex tree.
func (i Info) ApexBits() int { return bits.TrailingZeros(uint(i.ApexLeaves)) }

// ChallengeBits is the number of random bits of a challenge: log2(Nodes)
// minus the partition bits, which are appended at the top.
func (i Info) ChallengeBits() int { return i.TreeDLevels - i.PartitionBits() }

// ApexHeight is the tree D level (0 = leaves) of the apex leaves: below the
// apex tree and the partition levels.
func (i Info) ApexHeight() int { return i.TreeDLevels - i.PartitionBits() - i.ApexBits() }

// KAndHSelect is the circuit's first public input: k | HSelect <<
// PartitionBits (2 KiB: 1; 8 MiB: k | 32; 512 MiB and up: k | 128).
func (i Info) KAndHSelect(k int) uint64 {
	return uint64(k) | i.HSelect<<i.PartitionBits()
}

// CircuitID is cuzk's name for the proof's partition circuit and so its
// parameter set: "snap-2k", "snap-8m", "snap-512m", "snap-32g", "snap-64g".
func (i Info) CircuitID() string { return "snap-" + filecoin.SizeName(i.SectorSize) }

// ParseCircuitID inverts CircuitID.
func ParseCircuitID(id string) (Info, error) {
	if size, ok := strings.CutPrefix(id, "snap-"); ok {
		if p, ok := filecoin.ParseSizeName(size); ok {
			return Proof(p).Info()
		}
	}
	return Info{}, fmt.Errorf("%w: circuit id %q is not snap-{2k,8m,512m,32g,64g}", ErrUnknownProof, id)
}
