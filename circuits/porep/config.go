package porep

import (
	"errors"
	"fmt"
	"math/bits"

	"github.com/cuzk-project/cuzk/circuits/internal/tree"
	hmerkle "github.com/cuzk-project/cuzk/hash/merkle"
	native "github.com/cuzk-project/cuzk/hash/poseidon"
)

// DRGParents and ExpanderParents are the SDR graph's degrees (base graph and
// expander): every challenge opens that many parent columns, DRG first.
const (
	DRGParents      = 6
	ExpanderParents = 8
)

// ErrShape reports a partition whose values do not have its configuration's
// shape (or a configuration no circuit can be built from).
var ErrShape = errors.New("porep: bad partition shape")

// Config is what fixes a partition circuit's shape: the tree sizes, the
// number of layers and of challenges per partition. Two partitions with equal
// configurations have the same constraint system.
type Config struct {
	// Nodes is the number of 32-byte nodes of the sector (leaves of trees D, C, R).
	Nodes uint64
	// Layers is the number of SDR layers, the rows of a column (2 or 11 in Filecoin).
	Layers int
	// TreeDLevels is the height of the binary SHA-254 tree D (log2 Nodes).
	TreeDLevels int
	// TreeR is the shape of the Poseidon trees C and R.
	TreeR hmerkle.Shape
	// Challenges is the number of challenges per partition.
	Challenges int
}

// Validate checks that c describes a circuit: a power-of-two node count that
// fills tree D and the tree R shape, a column hash Poseidon has constants
// for, and at least one challenge.
func (c Config) Validate() error {
	if err := tree.CheckSector(ErrShape, c.Nodes, c.TreeR); err != nil {
		return err
	}
	if want := bits.TrailingZeros64(c.Nodes); c.TreeDLevels != want {
		return fmt.Errorf("%w: tree D of %d levels for %d nodes, want %d", ErrShape, c.TreeDLevels, c.Nodes, want)
	}
	if c.Layers < 1 {
		return fmt.Errorf("%w: %d layers", ErrShape, c.Layers)
	}
	if _, err := native.MerkleTree(c.Layers); err != nil {
		return fmt.Errorf("%w: column of %d layers: %w", ErrShape, c.Layers, err)
	}
	if c.Challenges < 1 {
		return fmt.Errorf("%w: %d challenges", ErrShape, c.Challenges)
	}
	return nil
}

// NumInputs is the number of public inputs the circuit allocates, ONE
// excluded: replica_id, comm_d, comm_r, then 18 per challenge.
func (c Config) NumInputs() int { return 3 + c.Challenges*InputsPerChallenge }

// InputsPerChallenge is the public inputs of one challenge: the comm_d index,
// 6 DRG and 8 expander parent indices, the challenge, the comm_r_last index
// and the comm_c index.
const InputsPerChallenge = 1 + DRGParents + ExpanderParents + 3
