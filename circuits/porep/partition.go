package porep

import (
	"context"
	"fmt"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-project/cuzk/circuits/internal/tree"
	"github.com/cuzk-project/cuzk/gadgets/boolean"
	"github.com/cuzk-project/cuzk/gadgets/label"
	gmerkle "github.com/cuzk-project/cuzk/gadgets/merkle"
	"github.com/cuzk-project/cuzk/gadgets/num"
	"github.com/cuzk-project/cuzk/gadgets/poseidon"
	"github.com/cuzk-project/cuzk/r1cs"
)

// Partition is one PoRep partition circuit with its values. It implements
// r1cs.Circuit.
type Partition struct {
	Config Config

	ReplicaID, CommD, CommR fr.Element // public
	CommRLast, CommC        fr.Element // private; comm_r = Poseidon₂(comm_c, comm_r_last)

	Challenges []Challenge

	// Ctx, when set, is checked before every challenge: a 32 GiB partition
	// synthesizes for minutes. Synthesize then returns an error wrapping
	// Ctx.Err().
	Ctx context.Context
}

// Challenge is what the circuit takes from one challenge's vanilla proof
// (params.rs From<VanillaProof>): the data leaf and its comm_d path, the
// challenge, the parent columns, and the paths of the encoded node in
// comm_r_last and of the challenged column in comm_c. The labels, the
// encoded node and the challenged column are recomputed, not taken.
type Challenge struct {
	Node      uint64
	DataLeaf  fr.Element
	CommDPath []gmerkle.PathElement // tree D, bottom up

	DRG [DRGParents]Column
	Exp [ExpanderParents]Column

	CommRLastPath []gmerkle.PathElement // tree R, bottom up
	CommCPath     []gmerkle.PathElement // tree C, bottom up
}

// Column is a parent's column opening: one label per layer (row i is layer
// i + 1) and the column hash's path in comm_c.
type Column struct {
	Rows []fr.Element
	Path []gmerkle.PathElement
}

// Validate checks that p has its configuration's shape: the number of
// challenges, rows per column, and every path's levels, arities and indices.
func (p *Partition) Validate() error {
	c := p.Config
	if err := c.Validate(); err != nil {
		return err
	}
	if len(p.Challenges) != c.Challenges {
		return fmt.Errorf("%w: %d challenges, want %d", ErrShape, len(p.Challenges), c.Challenges)
	}
	d, r := tree.Binary(c.TreeDLevels), tree.Arities(c.TreeR, c.Nodes)
	for i := range p.Challenges {
		ch := &p.Challenges[i]
		if ch.Node >= c.Nodes {
			return fmt.Errorf("%w: challenge %d: node %d of %d", ErrShape, i, ch.Node, c.Nodes)
		}
		if err := tree.CheckPath(ErrShape, ch.CommDPath, d); err != nil {
			return fmt.Errorf("challenge %d: comm_d path: %w", i, err)
		}
		for j := range ch.DRG {
			if err := ch.DRG[j].check(c.Layers, r); err != nil {
				return fmt.Errorf("challenge %d: DRG parent %d: %w", i, j, err)
			}
		}
		for j := range ch.Exp {
			if err := ch.Exp[j].check(c.Layers, r); err != nil {
				return fmt.Errorf("challenge %d: expander parent %d: %w", i, j, err)
			}
		}
		if err := tree.CheckPath(ErrShape, ch.CommRLastPath, r); err != nil {
			return fmt.Errorf("challenge %d: comm_r_last path: %w", i, err)
		}
		if err := tree.CheckPath(ErrShape, ch.CommCPath, r); err != nil {
			return fmt.Errorf("challenge %d: comm_c path: %w", i, err)
		}
	}
	return nil
}

func (col *Column) check(layers int, arities []int) error {
	if len(col.Rows) != layers {
		return fmt.Errorf("%w: %d rows, want %d", ErrShape, len(col.Rows), layers)
	}
	return tree.CheckPath(ErrShape, col.Path, arities)
}

// Synthesize writes the partition to cs (proof.rs StackedCircuit::synthesize).
// The shape is validated first, so that a bad partition adds nothing.
func (p *Partition) Synthesize(cs r1cs.ConstraintSystem) error {
	if err := p.Validate(); err != nil {
		return err
	}
	return p.synthesize(cs, len(p.Challenges))
}

// synthesize writes the partition's own rows and its first n challenges.
func (p *Partition) synthesize(cs r1cs.ConstraintSystem, n int) error {
	rt, replicaIDBits, err := p.synthesizeOwn(cs)
	if err != nil {
		return err
	}
	for i := range p.Challenges[:n] {
		if err := p.synthesizeChallenge(cs, i, rt, replicaIDBits); err != nil {
			return err
		}
	}
	return nil
}

// synthesizeChallenge writes challenge i, after checking Ctx.
func (p *Partition) synthesizeChallenge(cs r1cs.ConstraintSystem, i int, rt roots, replicaIDBits []boolean.Boolean) error {
	if p.Ctx != nil {
		if err := p.Ctx.Err(); err != nil {
			return fmt.Errorf("porep: before challenge %d: %w", i, err)
		}
	}
	if err := p.Challenges[i].synthesize(cs, rt, replicaIDBits); err != nil {
		return fmt.Errorf("porep: challenge %d: %w", i, err)
	}
	return nil
}

// synthesizeOwn writes what precedes the challenges: the public
// commitments, the replica id's bits and comm_r = Poseidon₂(comm_c,
// comm_r_last). It returns what every challenge uses.
func (p *Partition) synthesizeOwn(cs r1cs.ConstraintSystem) (roots, []boolean.Boolean, error) {
	replicaID := num.Alloc(cs, p.ReplicaID)
	replicaID.Inputize(cs)
	replicaIDBits := label.DomainBits(cs, replicaID)

	commD := num.Alloc(cs, p.CommD)
	commD.Inputize(cs)
	commR := num.Alloc(cs, p.CommR)
	commR.Inputize(cs)
	commRLast := num.Alloc(cs, p.CommRLast)
	commC := num.Alloc(cs, p.CommC)

	h, err := poseidon.HashMerkleTree(cs, []num.AllocatedNum{commC, commRLast})
	if err != nil {
		return roots{}, nil, fmt.Errorf("porep: comm_r hash: %w", err)
	}
	num.Equal(cs, commR, h)
	return roots{commD: commD, commC: commC, commRLast: commRLast}, replicaIDBits, nil
}

// roots are the partition's allocated commitments every challenge proves
// inclusion under.
type roots struct {
	commD, commC, commRLast num.AllocatedNum
}
