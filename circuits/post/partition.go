package post

import (
	"context"
	"fmt"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-project/cuzk/circuits/internal/tree"
	gmerkle "github.com/cuzk-project/cuzk/gadgets/merkle"
	"github.com/cuzk-project/cuzk/gadgets/num"
	"github.com/cuzk-project/cuzk/gadgets/poseidon"
	"github.com/cuzk-project/cuzk/r1cs"
)

// Partition is one FallbackPoSt circuit with its values. It implements
// r1cs.Circuit.
type Partition struct {
	Config Config

	// Sectors are the circuit sectors in order, between 1 and
	// Config.Sectors of them; the last is repeated up to Config.Sectors.
	Sectors []Sector

	// Ctx, when set, is checked before every sector: a 32 GiB WindowPoSt
	// partition synthesizes 125 M rows. Synthesis then returns an error
	// wrapping Ctx.Err().
	Ctx context.Context

	// CheckRoot, when set, is given the root each opening's path hashes
	// to (circuit sector i, challenge j) as synthesis computes it; its
	// error ends the synthesis (NewPartition sets it: the vanilla proofs'
	// paths are hashed here, not before, fpost.Partition.VerifyUnhashed).
	CheckRoot func(i, j int, root fr.Element) error
}

// Sector is what the circuit takes from one sector's vanilla proof
// (circuit.rs Sector::circuit): comm_r (public) with comm_c and comm_r_last,
// and one opening of tree R per challenge.
type Sector struct {
	CommR, CommC, CommRLast fr.Element
	Challenges              []Challenge
}

// Challenge is one challenged leaf of tree R and its path, bottom up. The
// path indices are the leaf index, the challenge's public input.
type Challenge struct {
	Leaf fr.Element
	Path []gmerkle.PathElement
}

// Validate checks that p has its configuration's shape: 1 to Config.Sectors
// sectors, each with Config.Challenges challenges whose paths have tree R's
// levels, arities and indices.
func (p *Partition) Validate() error {
	c := p.Config
	if err := c.Validate(); err != nil {
		return err
	}
	if len(p.Sectors) < 1 || len(p.Sectors) > c.Sectors {
		return fmt.Errorf("%w: %d sectors, want 1 to %d", ErrShape, len(p.Sectors), c.Sectors)
	}
	arities := tree.Arities(c.TreeR, c.Nodes)
	for i := range p.Sectors {
		s := &p.Sectors[i]
		if len(s.Challenges) != c.Challenges {
			return fmt.Errorf("%w: sector %d: %d challenges, want %d", ErrShape, i, len(s.Challenges), c.Challenges)
		}
		for j := range s.Challenges {
			if err := tree.CheckPath(ErrShape, s.Challenges[j].Path, arities); err != nil {
				return fmt.Errorf("sector %d challenge %d: %w", i, j, err)
			}
		}
	}
	return nil
}

// sector is circuit sector i: the last given sector once i is past them.
func (p *Partition) sector(i int) *Sector {
	return &p.Sectors[min(i, len(p.Sectors)-1)]
}

// Synthesize writes the partition to cs (circuit.rs
// FallbackPoStCircuit::synthesize_default). The shape is validated first,
// so that a bad partition adds nothing.
func (p *Partition) Synthesize(cs r1cs.ConstraintSystem) error {
	if err := p.Validate(); err != nil {
		return err
	}
	return p.synthesize(cs, 0, p.Config.Sectors)
}

// synthesize writes circuit sectors [from, to).
func (p *Partition) synthesize(cs r1cs.ConstraintSystem, from, to int) error {
	for i := from; i < to; i++ {
		if p.Ctx != nil {
			if err := p.Ctx.Err(); err != nil {
				return fmt.Errorf("post: before sector %d: %w", i, err)
			}
		}
		var check func(j int, root fr.Element) error
		if p.CheckRoot != nil {
			check = func(j int, root fr.Element) error { return p.CheckRoot(i, j, root) }
		}
		if err := p.sector(i).synthesize(cs, check); err != nil {
			return fmt.Errorf("post: sector %d: %w", i, err)
		}
	}
	return nil
}

// synthesize writes one circuit sector (circuit.rs Sector::synthesize),
// each challenge's computed root given to check (when set).
func (s *Sector) synthesize(cs r1cs.ConstraintSystem, check func(j int, root fr.Element) error) error {
	commRLast := num.Alloc(cs, s.CommRLast)
	commC := num.Alloc(cs, s.CommC)
	commR := num.Alloc(cs, s.CommR)
	commR.Inputize(cs)

	h, err := poseidon.HashMerkleTree(cs, []num.AllocatedNum{commC, commRLast})
	if err != nil {
		return fmt.Errorf("comm_r hash: %w", err)
	}
	num.Equal(cs, commR, h)

	for j := range s.Challenges {
		por := gmerkle.PoRCircuit{
			Hasher:  gmerkle.Poseidon{},
			Value:   gmerkle.RootVal(s.Challenges[j].Leaf),
			Path:    s.Challenges[j].Path,
			Root:    gmerkle.RootVar(commRLast),
			Private: true,
		}
		if check != nil {
			por.CheckRoot = func(root fr.Element) error { return check(j, root) }
		}
		if err := por.Synthesize(cs); err != nil {
			return fmt.Errorf("challenge %d inclusion: %w", j, err)
		}
	}
	return nil
}
