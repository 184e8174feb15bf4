package update

import (
	"errors"
	"fmt"
	"math/bits"

	"github.com/cuzk-project/cuzk/circuits/internal/tree"
	hmerkle "github.com/cuzk-project/cuzk/hash/merkle"
)

// ErrShape reports a partition whose values do not have its configuration's
// shape (or a configuration no circuit can be built from).
var ErrShape = errors.New("update: bad partition shape")

// HSelectBits is the number of h values the circuit chooses from, one
// h_select bit each.
const HSelectBits = 6

// Config is what fixes a partition circuit's shape: the sector size in
// nodes and the shape of trees R_old and R_new. Everything else (partitions,
// challenges, apex leaves, the allowed h) follows from the sector size
// (storage-proofs-update constants.rs). Two partitions with equal
// configurations have the same constraint system.
type Config struct {
	// Nodes is the number of 32-byte nodes of the sector.
	Nodes uint64
	// TreeR is the shape of trees R_old and R_new (tree D is binary).
	TreeR hmerkle.Shape
}

// Partitions is the number of partition proofs: 1 up to 8 KiB, 2 up to
// 32 KiB, 4 up to 16 MiB, 16 above.
func (c Config) Partitions() int {
	switch {
	case c.Nodes <= 1<<8:
		return 1
	case c.Nodes <= 1<<10:
		return 2
	case c.Nodes <= 1<<19:
		return 4
	}
	return 16
}

// Challenges is the number of challenges per partition: 10 up to 16 MiB,
// 86 above.
func (c Config) Challenges() int {
	if c.Nodes <= 1<<19 {
		return 10
	}
	return 86
}

// ApexLeaves is the number of tree D nodes per partition the apex tree is
// built over: 8 up to 8 KiB, 128 above.
func (c Config) ApexLeaves() int {
	if c.Nodes <= 1<<8 {
		return 8
	}
	return 128
}

// Hs are the numbers of high challenge bits rho may be derived from, one
// selected per proof by a bit of h_select: all 1 up to 32 KiB, 7 to 12
// above.
func (c Config) Hs() [HSelectBits]int {
	if c.Nodes <= 1<<10 {
		return [HSelectBits]int{1, 1, 1, 1, 1, 1}
	}
	return [HSelectBits]int{7, 8, 9, 10, 11, 12}
}

// DefaultH is the h Filecoin proves with, Hs()[3]: 10 at production sizes.
func (c Config) DefaultH() int { return c.Hs()[3] }

// HSelect is the h_select value of h: 1 << (the first index of h in Hs),
// or 0 when h is not allowed.
func (c Config) HSelect(h int) uint64 {
	for i, v := range c.Hs() {
		if v == h {
			return 1 << i
		}
	}
	return 0
}

// KAndHSelect is the first public input, k | h_select << log2(partitions).
func (c Config) KAndHSelect(k, h int) uint64 {
	return uint64(k) | c.HSelect(h)<<c.partitionBits()
}

// challengeBits is log2(nodes), the bits of a challenge.
func (c Config) challengeBits() int { return bits.TrailingZeros64(c.Nodes) }

func (c Config) partitionBits() int { return bits.TrailingZeros(uint(c.Partitions())) }

func (c Config) apexBits() int { return bits.TrailingZeros(uint(c.ApexLeaves())) }

// randomBits is the bits per challenge drawn from a digest; the partition
// bits follow them.
func (c Config) randomBits() int { return c.challengeBits() - c.partitionBits() }

// levelsToApex is the number of tree D levels from a leaf to its apex leaf.
func (c Config) levelsToApex() int { return c.randomBits() - c.apexBits() }

// ChallengesPerDigest is how many challenges one digest's 254 usable bits
// give.
func (c Config) ChallengesPerDigest() int { return 254 / c.randomBits() }

// Digests is the number of challenge digests per partition.
func (c Config) Digests() int {
	per := c.ChallengesPerDigest()
	return (c.Challenges() + per - 1) / per
}

// Validate checks that c describes a circuit: a power-of-two node count
// that fills the tree R shape and has room for the partition, apex and h
// bits.
func (c Config) Validate() error {
	if err := tree.CheckSector(ErrShape, c.Nodes, c.TreeR); err != nil {
		return err
	}
	if c.levelsToApex() < 0 || c.randomBits() < 1 {
		return fmt.Errorf("%w: %d nodes leave no challenge bits below %d partitions of %d apex leaves",
			ErrShape, c.Nodes, c.Partitions(), c.ApexLeaves())
	}
	for _, h := range c.Hs() {
		if h > c.challengeBits() {
			return fmt.Errorf("%w: h = %d above the %d challenge bits", ErrShape, h, c.challengeBits())
		}
	}
	return nil
}

// NumInputs is the number of public inputs the circuit allocates, ONE
// excluded: k_and_h_select, comm_r_old, comm_d_new, comm_r_new.
func (c Config) NumInputs() int { return 4 }
