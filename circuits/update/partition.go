package update

import (
	"context"
	"fmt"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-project/cuzk/circuits/internal/tree"
	"github.com/cuzk-project/cuzk/gadgets/boolean"
	gmerkle "github.com/cuzk-project/cuzk/gadgets/merkle"
	"github.com/cuzk-project/cuzk/gadgets/num"
	"github.com/cuzk-project/cuzk/gadgets/poseidon"
	native "github.com/cuzk-project/cuzk/hash/poseidon"
	"github.com/cuzk-project/cuzk/r1cs"
)

// Partition is one EmptySectorUpdate partition circuit with its values. It
// implements r1cs.Circuit.
type Partition struct {
	Config Config

	// K is the partition index and H the number of high challenge bits rho
	// is derived from (one of Config.Hs); together they are the first
	// public input.
	K, H int

	CommROld, CommDNew, CommRNew fr.Element // public

	// CommC is the sector's comm_c (unchanged by the update); RootROld and
	// RootRNew are the roots of trees R_old and R_new.
	CommC, RootROld, RootRNew fr.Element

	// ApexLeaves are this partition's tree D nodes the apex tree is built
	// over (Config.ApexLeaves of them, left to right), and PartitionPath
	// the siblings of the apex tree's root up to comm_d_new, bottom up
	// (log2(Config.Partitions) of them).
	ApexLeaves    []fr.Element
	PartitionPath []fr.Element

	Challenges []Challenge

	// Ctx, when set, is checked before every challenge: a 32 GiB partition
	// synthesizes 81 M rows. Synthesis then returns an error wrapping
	// Ctx.Err().
	Ctx context.Context

	// countOnly leaves out the apex tree's hashes (Shape counts one and
	// multiplies).
	countOnly bool
}

// Challenge is what the circuit takes from one challenge's vanilla proof
// (circuit.rs ChallengeProof): the leaves of trees R_old and D_new and the
// siblings of their paths, and the siblings of tree R_new's path; the leaf
// of R_new is computed.
type Challenge struct {
	LeafROld, LeafDNew fr.Element
	// PathROld and PathRNew are the siblings of every tree R level, bottom up.
	PathROld, PathRNew [][]fr.Element
	// PathDNew is the tree D siblings from the leaf to its apex leaf,
	// bottom up (the levels below the apex tree).
	PathDNew []fr.Element
}

// Validate checks that p has its configuration's shape: k, h, the apex
// leaves, the partition path, the number of challenges and every path's
// levels and arities.
func (p *Partition) Validate() error {
	c := p.Config
	if err := c.Validate(); err != nil {
		return err
	}
	if p.K < 0 || p.K >= c.Partitions() {
		return fmt.Errorf("%w: partition %d of %d", ErrShape, p.K, c.Partitions())
	}
	if c.HSelect(p.H) == 0 {
		return fmt.Errorf("%w: h = %d is not one of %v", ErrShape, p.H, c.Hs())
	}
	if len(p.ApexLeaves) != c.ApexLeaves() {
		return fmt.Errorf("%w: %d apex leaves, want %d", ErrShape, len(p.ApexLeaves), c.ApexLeaves())
	}
	if len(p.PartitionPath) != c.partitionBits() {
		return fmt.Errorf("%w: partition path of %d levels, want %d", ErrShape, len(p.PartitionPath), c.partitionBits())
	}
	if len(p.Challenges) != c.Challenges() {
		return fmt.Errorf("%w: %d challenges, want %d", ErrShape, len(p.Challenges), c.Challenges())
	}
	arities := tree.Arities(c.TreeR, c.Nodes)
	for i := range p.Challenges {
		ch := &p.Challenges[i]
		if err := tree.CheckSiblings(ErrShape, ch.PathROld, arities); err != nil {
			return fmt.Errorf("challenge %d: tree R_old path: %w", i, err)
		}
		if err := tree.CheckSiblings(ErrShape, ch.PathRNew, arities); err != nil {
			return fmt.Errorf("challenge %d: tree R_new path: %w", i, err)
		}
		if len(ch.PathDNew) != c.levelsToApex() {
			return fmt.Errorf("%w: challenge %d: tree D path of %d levels below the apex leaves, want %d",
				ErrShape, i, len(ch.PathDNew), c.levelsToApex())
		}
	}
	return nil
}

// randomness is the Poseidon arity-2 hash with the custom domain tag
// 2^40 (HashType::Custom(Arbitrary(1))) of phi, rho and the challenge
// digests.
var randomness = func() *native.Constants {
	c, err := native.Custom(2, 1)
	if err != nil {
		panic(err) // arity 2 and id 1 are always supported
	}
	return c
}()

// Synthesize writes the partition to cs (circuit.rs
// EmptySectorUpdateCircuit::synthesize). The shape is validated first, so
// that a bad partition adds nothing.
func (p *Partition) Synthesize(cs r1cs.ConstraintSystem) error {
	if err := p.Validate(); err != nil {
		return err
	}
	return p.synthesize(cs, len(p.Challenges))
}

// partition is what every challenge uses of the partition's own part.
type partition struct {
	partitionBits, hSelectBits []boolean.AllocatedBit
	phi, rootROld, rootRNew    num.AllocatedNum
	apexLeaves                 []num.AllocatedNum
	challengeBits              [][]boolean.AllocatedBit // each challenge's random bits
}

// synthesize writes the partition's own rows and its first n challenges.
func (p *Partition) synthesize(cs r1cs.ConstraintSystem, n int) error {
	pt, err := p.synthesizeOwn(cs)
	if err != nil {
		return err
	}
	hs := p.Config.Hs()
	for i := range p.Challenges[:n] {
		if err := p.synthesizeChallenge(cs, pt, i, hs[:]); err != nil {
			return err
		}
	}
	return nil
}

// synthesizeOwn writes the partition's own rows: what every challenge
// reads.
func (p *Partition) synthesizeOwn(cs r1cs.ConstraintSystem) (*partition, error) {
	c := p.Config
	var pt partition

	var kh fr.Element
	kh.SetUint64(c.KAndHSelect(p.K, p.H))
	kAndHSelect := num.Alloc(cs, kh)
	kAndHSelect.Inputize(cs)
	pt.partitionBits, pt.hSelectBits = decompose(cs, kAndHSelect, c.partitionBits(), HSelectBits)
	k := num.PackBits(cs, booleans(pt.partitionBits))

	commROld := num.Alloc(cs, p.CommROld)
	commROld.Inputize(cs)
	commDNew := num.Alloc(cs, p.CommDNew)
	commDNew.Inputize(cs)
	commRNew := num.Alloc(cs, p.CommRNew)
	commRNew.Inputize(cs)

	var err error
	if pt.phi, err = poseidon.Hash(cs, []num.AllocatedNum{commDNew, commROld}, randomness); err != nil {
		return nil, fmt.Errorf("update: phi: %w", err)
	}

	commC := num.Alloc(cs, p.CommC)
	pt.rootROld = num.Alloc(cs, p.RootROld)
	pt.rootRNew = num.Alloc(cs, p.RootRNew)
	pt.apexLeaves = allocAll(cs, p.ApexLeaves)
	partitionPath := make([][]num.AllocatedNum, len(p.PartitionPath))
	for i := range partitionPath {
		partitionPath[i] = []num.AllocatedNum{num.Alloc(cs, p.PartitionPath[i])}
	}

	for _, r := range []struct {
		name       string
		root, comm num.AllocatedNum
	}{{"comm_r_old", pt.rootROld, commROld}, {"comm_r_new", pt.rootRNew, commRNew}} {
		h, err := poseidon.HashMerkleTree(cs, []num.AllocatedNum{commC, r.root})
		if err != nil {
			return nil, fmt.Errorf("update: %s hash: %w", r.name, err)
		}
		num.Equal(cs, h, r.comm)
	}

	apex := pt.apexLeaves
	if p.countOnly {
		apex = apex[:1]
	}
	if err := apexPoR(cs, apex, pt.partitionBits, partitionPath, commDNew); err != nil {
		return nil, fmt.Errorf("update: apex tree: %w", err)
	}

	if pt.challengeBits, err = challengeBits(cs, commRNew, k, c.Challenges(), c.randomBits()); err != nil {
		return nil, fmt.Errorf("update: challenges: %w", err)
	}
	return &pt, nil
}

// synthesizeChallenge writes challenge i, after checking Ctx.
func (p *Partition) synthesizeChallenge(cs r1cs.ConstraintSystem, pt *partition, i int, hs []int) error {
	if p.Ctx != nil {
		if err := p.Ctx.Err(); err != nil {
			return fmt.Errorf("update: before challenge %d: %w", i, err)
		}
	}
	if err := p.Challenges[i].synthesize(cs, p.Config, pt, i, hs); err != nil {
		return fmt.Errorf("update: challenge %d: %w", i, err)
	}
	return nil
}

// synthesize writes challenge i (the loop body of circuit.rs synthesize).
func (ch *Challenge) synthesize(cs r1cs.ConstraintSystem, c Config, pt *partition, i int, hs []int) error {
	bits := make([]boolean.AllocatedBit, 0, c.challengeBits())
	bits = append(bits, pt.challengeBits[i]...)
	bits = append(bits, pt.partitionBits...)

	high := highBits(cs, bits, pt.hSelectBits, hs)
	rho, err := poseidon.Hash(cs, []num.AllocatedNum{pt.phi, high}, randomness)
	if err != nil {
		return fmt.Errorf("rho: %w", err)
	}

	leafROld := num.Alloc(cs, ch.LeafROld)
	leafDNew := num.Alloc(cs, ch.LeafDNew)
	leafRNew := encode(cs, leafROld, leafDNew, rho)

	pathROld := allocPath(cs, ch.PathROld)
	if err := gmerkle.NoChallengeInput(cs, gmerkle.Poseidon{}, bits, leafROld, pathROld, pt.rootROld); err != nil {
		return fmt.Errorf("tree R_old inclusion: %w", err)
	}
	pathRNew := allocPath(cs, ch.PathRNew)
	if err := gmerkle.NoChallengeInput(cs, gmerkle.Poseidon{}, bits, leafRNew, pathRNew, pt.rootRNew); err != nil {
		return fmt.Errorf("tree R_new inclusion: %w", err)
	}

	below := c.levelsToApex()
	apexLeaf := gmerkle.Select(cs, pt.apexLeaves, booleans(bits[below:below+c.apexBits()]))
	pathD := make([][]num.AllocatedNum, len(ch.PathDNew))
	for l := range pathD {
		pathD[l] = []num.AllocatedNum{num.Alloc(cs, ch.PathDNew[l])}
	}
	if err := gmerkle.NoChallengeInput(cs, gmerkle.Sha254{}, bits[:below], leafDNew, pathD, apexLeaf); err != nil {
		return fmt.Errorf("tree D inclusion: %w", err)
	}
	return nil
}

func allocAll(cs r1cs.ConstraintSystem, vs []fr.Element) []num.AllocatedNum {
	out := make([]num.AllocatedNum, len(vs))
	for i := range vs {
		out[i] = num.Alloc(cs, vs[i])
	}
	return out
}

func allocPath(cs r1cs.ConstraintSystem, path [][]fr.Element) [][]num.AllocatedNum {
	out := make([][]num.AllocatedNum, len(path))
	for l := range path {
		out[l] = allocAll(cs, path[l])
	}
	return out
}

func booleans(bits []boolean.AllocatedBit) []boolean.Boolean {
	out := make([]boolean.Boolean, len(bits))
	for i, b := range bits {
		out[i] = boolean.Is(b)
	}
	return out
}
