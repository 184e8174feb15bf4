package post

import (
	"errors"
	"fmt"

	"github.com/cuzk-project/cuzk/circuits/internal/tree"
	hmerkle "github.com/cuzk-project/cuzk/hash/merkle"
)

// Filecoin's FallbackPoSt parameters (filecoin-proofs constants.rs,
// parameters.rs).
const (
	// WinningChallenges is the number of leaf challenges of a WinningPoSt,
	// all in one sector; the circuit has that many sectors of one challenge.
	WinningChallenges = 66
	// WindowChallenges is the number of leaf challenges per WindowPoSt sector.
	WindowChallenges = 10
)

// ErrShape reports a partition whose values do not have its configuration's
// shape (or a configuration no circuit can be built from).
var ErrShape = errors.New("post: bad partition shape")

// Config is what fixes a FallbackPoSt circuit's shape: the sector size in
// nodes, the tree R shape, the number of circuit sectors and of challenges
// per circuit sector. Two partitions with equal configurations have the same
// constraint system.
type Config struct {
	// Nodes is the number of 32-byte nodes of a sector (leaves of tree R).
	Nodes uint64
	// TreeR is the shape of tree R (comm_r_last).
	TreeR hmerkle.Shape
	// Sectors is the number of circuit sectors (sector_count).
	Sectors int
	// Challenges is the number of challenges per circuit sector.
	Challenges int
}

// WinningConfig is the WinningPoSt circuit for sectors of nodes leaves and
// tree R shape: 66 circuit sectors of one challenge (parameters.rs
// winning_post_setup_params).
func WinningConfig(nodes uint64, treeR hmerkle.Shape) Config {
	return Config{Nodes: nodes, TreeR: treeR, Sectors: WinningChallenges, Challenges: 1}
}

// WindowConfig is the WindowPoSt partition circuit for sectors of nodes
// leaves and tree R shape: WindowSectors sectors of 10 challenges.
func WindowConfig(nodes uint64, treeR hmerkle.Shape) Config {
	return Config{Nodes: nodes, TreeR: treeR, Sectors: WindowSectors(nodes), Challenges: WindowChallenges}
}

// WindowSectors is the number of sectors of one WindowPoSt partition
// (constants.rs WINDOW_POST_SECTOR_COUNT, which the miner actor's
// scheduling mirrors): 2349 for 32 GiB sectors, 2300 for 64 GiB, 2 for
// every smaller size.
func WindowSectors(nodes uint64) int {
	switch nodes {
	case 1 << 30: // 32 GiB
		return 2349
	case 1 << 31: // 64 GiB
		return 2300
	}
	return 2
}

// Validate checks that c describes a circuit: a power-of-two node count
// that fills the tree R shape, and at least one sector and one challenge.
func (c Config) Validate() error {
	if err := tree.CheckSector(ErrShape, c.Nodes, c.TreeR); err != nil {
		return err
	}
	if c.Sectors < 1 {
		return fmt.Errorf("%w: %d sectors", ErrShape, c.Sectors)
	}
	if c.Challenges < 1 {
		return fmt.Errorf("%w: %d challenges", ErrShape, c.Challenges)
	}
	return nil
}

// NumInputs is the number of public inputs the circuit allocates, ONE
// excluded: per circuit sector comm_r and one leaf index per challenge.
func (c Config) NumInputs() int { return c.Sectors * (1 + c.Challenges) }
