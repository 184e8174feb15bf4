package gen

import (
	"context"
	"fmt"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-project/cuzk/filecoin/c1"
	"github.com/cuzk-project/cuzk/filecoin/update"
	"github.com/cuzk-project/cuzk/hash"
	"github.com/cuzk-project/cuzk/hash/merkle"
)

// SnapOptions says which SnapDeals update to make.
type SnapOptions struct {
	Proof update.Proof
	// Seed determines everything drawn: comm_c, the old replica, the new
	// data. The same options give the same bytes.
	Seed uint64
	// Miner and Sector name the sector in the request and the public data;
	// an update proof does not depend on them.
	Miner, Sector uint64
}

// Snap is a generated update with what is known about its sector.
type Snap struct {
	Info          update.Info
	Miner, Sector uint64
	// CommROld, CommDNew and CommRNew are the comms as Curio's request
	// carries them (SubmitProofRequest comm_r_old, comm_d_new, comm_r_new):
	// raw 32-byte digests.
	CommROld, CommDNew, CommRNew hash.Domain
	// CommC is the old sector's comm_c; comm_r_old = Poseidon₂(CommC,
	// RootROld) and comm_r_new = Poseidon₂(CommC, RootRNew).
	CommC, RootROld, RootRNew hash.Domain
	// Partitions are the vanilla partition proofs, VanillaProofs their
	// bincode encodings: the request's vanilla_proofs, one per partition.
	Partitions    []*update.PartitionProof
	VanillaProofs [][]byte
	// Public is the update's public data for verification; Proof is empty
	// until the partitions are proven.
	Public update.ReplicaUpdateInfo
	// Structured is true when the trees were built from repeated subtrees
	// (sectors above DenseMaxNodes) rather than from a random value per leaf.
	Structured bool
}

// Partition is partition k with the comms, as a verifier takes it.
func (s *Snap) Partition(k int) *update.Partition {
	return &update.Partition{Info: s.Info, K: k, CommROld: s.CommROld, CommDNew: s.CommDNew, CommRNew: s.CommRNew,
		Proof: s.Partitions[k]}
}

// snapTree is a tree the generator opens.
type snapTree interface {
	Root() hash.Domain
	Prove(i uint64) (*merkle.Proof, error)
}

// GenerateSnap makes the vanilla proofs of an update of a sector of
// o.Proof's size, for any registered size, deterministic from o.Seed.
//
// The challenges derive from comm_r_new, the root of the new replica tree,
// which depends on every leaf; and a leaf of it can be given only after
// rho, which depends on comm_d_new and comm_r_old, that is on every leaf
// of the data and the old replica. So no generator can pick the challenged
// nodes first and fill only those: every leaf of all three trees must be
// defined, and new = old + data·rho must hold at each. Up to DenseMaxNodes
// (2 KiB, 8 MiB) each old-replica and data leaf is drawn from the seed and
// the full trees are built. Above, the old replica and the data are
// patterned trees (a few kinds of node per level, each kind's children
// fixed; see updatetree.go): every leaf is defined and non-zero, every
// opening has siblings unlike the node at every level, yet the trees cost a
// few hashes per level. The new replica tree then has one distinct subtree
// per (old kind, data kind, rho block) below the height rho changes at, so
// it costs about 25 Poseidon hashes per block of 2^(log2(nodes) − h) nodes
// (1,024 blocks) at any size. Both ways, the proofs verify
// (update.Partition.Verify) and satisfy the circuit exactly as a real
// update's would.
func GenerateSnap(ctx context.Context, o SnapOptions) (*Snap, error) {
	info, err := o.Proof.Info()
	if err != nil {
		return nil, fmt.Errorf("gen: %w", err)
	}
	return generateSnap(ctx, info, o, info.Nodes > DenseMaxNodes)
}

// generateSnap is GenerateSnap with the construction chosen by the caller:
// tests also build small sectors structured.
func generateSnap(ctx context.Context, info update.Info, o SnapOptions, structured bool) (*Snap, error) {
	build := func(s *Snap) (rOld, d, rNew snapTree, err error) {
		if structured {
			return s.structuredTrees(o.Seed)
		}
		return s.denseTrees(ctx, o.Seed, update.Encode)
	}
	return generateSnapWith(ctx, info, o, structured, build)
}

// generateSnapWith cuts the partitions from the trees build makes (and
// whose old roots it records with setOld).
func generateSnapWith(ctx context.Context, info update.Info, o SnapOptions, structured bool,
	build func(*Snap) (rOld, d, rNew snapTree, err error)) (*Snap, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s := &Snap{Info: info, Miner: o.Miner, Sector: o.Sector, Structured: structured,
		CommC: drawElement(o.Seed, "snap/comm_c")}
	rOld, d, rNew, err := build(s)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.RootRNew = rNew.Root()
	if s.CommRNew, err = commR(s.CommC, s.RootRNew); err != nil {
		return nil, err
	}
	s.Public = update.NewReplicaUpdateInfo(info.Proof, s.CommROld, s.CommRNew, s.CommDNew)

	s.Partitions = make([]*update.PartitionProof, info.Partitions)
	s.VanillaProofs = make([][]byte, info.Partitions)
	for k := range info.Partitions {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		p, err := s.partition(k, rOld, d, rNew)
		if err != nil {
			return nil, fmt.Errorf("gen: partition %d: %w", k, err)
		}
		s.Partitions[k] = p
		if s.VanillaProofs[k], err = p.MarshalBinary(); err != nil {
			return nil, fmt.Errorf("gen: partition %d: %w", k, err)
		}
	}
	return s, nil
}

// setOld records the old replica and data roots and the comms they fix.
func (s *Snap) setOld(rOld, d snapTree) error {
	s.RootROld, s.CommDNew = rOld.Root(), d.Root()
	var err error
	s.CommROld, err = commR(s.CommC, s.RootROld)
	return err
}

// denseTrees draws every old-replica and data leaf and builds the full
// trees (merkle.Sparse with every leaf set, hashed on every CPU), the new
// replica's leaves with encode (update.Encode; tests break it).
func (s *Snap) denseTrees(ctx context.Context, seed uint64, encode func(old, data, rho fr.Element) fr.Element) (rOld, d, rNew snapTree, err error) {
	info := s.Info
	n := info.Nodes
	old := make(map[uint64]hash.Domain, n)
	data := make(map[uint64]hash.Domain, n)
	for i := range n {
		old[i] = drawElement(seed, "snap/r_old", i)
		data[i] = drawElement(seed, "snap/data", i)
	}
	tOld, err := merkle.NewSparse(merkle.Poseidon{}, info.TreeR, n, old)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("gen: old replica tree: %w", err)
	}
	tD, err := merkle.NewSparse(merkle.Sha254{}, merkle.ShapeBinary, n, data)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("gen: tree D: %w", err)
	}
	if err := s.setOld(tOld, tD); err != nil {
		return nil, nil, nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, nil, nil, err
	}
	phi, err := update.Phi(s.CommDNew, s.CommROld)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("gen: %w", err)
	}
	rhos := make([]fr.Element, 1<<info.H)
	for high := range rhos {
		rhos[high] = update.Rho(phi, uint64(high))
	}
	enc := make([]hash.Domain, n)
	if err := parallel(n, func(lo, hi uint64) error {
		for i := lo; i < hi; i++ {
			o, err := old[i].Element()
			if err != nil {
				return err
			}
			v, err := data[i].Element()
			if err != nil {
				return err
			}
			r := encode(o, v, rhos[info.High(i)])
			enc[i] = hash.DomainOf(&r)
		}
		return nil
	}); err != nil {
		return nil, nil, nil, fmt.Errorf("gen: new replica: %w", err)
	}
	clear(old)
	for i, v := range enc {
		old[uint64(i)] = v
	}
	tNew, err := merkle.NewSparse(merkle.Poseidon{}, info.TreeR, n, old)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("gen: new replica tree: %w", err)
	}
	return tOld, tD, tNew, nil
}

// structuredTrees builds the patterned old replica and data trees and the
// encoded new replica tree over them.
func (s *Snap) structuredTrees(seed uint64) (rOld, d, rNew snapTree, err error) {
	info := s.Info
	lr, err := levelsOf(info.TreeR, info.Nodes)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("gen: replica tree: %w", err)
	}
	ld, err := levelsOf(merkle.ShapeBinary, info.Nodes)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("gen: tree D: %w", err)
	}
	tOld, err := newPatternTree(merkle.Poseidon{}, lr, seed, "snap/r_old",
		func(k int) hash.Domain { return drawNonZero(seed, fmt.Sprintf("snap/r_old/leaf%d", k)) })
	if err != nil {
		return nil, nil, nil, err
	}
	tD, err := newPatternTree(merkle.Sha254{}, ld, seed, "snap/data",
		func(k int) hash.Domain { return drawNonZero(seed, fmt.Sprintf("snap/data/leaf%d", k)) })
	if err != nil {
		return nil, nil, nil, err
	}
	if err := s.setOld(tOld, tD); err != nil {
		return nil, nil, nil, err
	}
	phi, err := update.Phi(s.CommDNew, s.CommROld)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("gen: %w", err)
	}
	tNew, err := newEncodedTree(info, lr, tOld, tD, phi)
	if err != nil {
		return nil, nil, nil, err
	}
	return tOld, tD, tNew, nil
}

// partition cuts partition k's proof from the trees.
func (s *Snap) partition(k int, rOld, d, rNew snapTree) (*update.PartitionProof, error) {
	info := s.Info
	p := &update.PartitionProof{CommC: s.CommC, ApexLeaves: make([]hash.Domain, info.ApexLeaves),
		Challenges: make([]update.ChallengeProof, info.Challenges)}
	h := info.ApexHeight()
	for j := range p.ApexLeaves {
		a := uint64(k*info.ApexLeaves + j)
		leaf, err := d.Prove(a << h)
		if err != nil {
			return nil, fmt.Errorf("apex leaf %d: %w", j, err)
		}
		below := &merkle.Proof{Leaf: leaf.Leaf, Path: leaf.Path[:h]}
		if p.ApexLeaves[j], err = below.ComputeRoot(merkle.Sha254{}); err != nil {
			return nil, fmt.Errorf("apex leaf %d: %w", j, err)
		}
	}
	challenges, err := update.Challenges(info, s.CommRNew, k)
	if err != nil {
		return nil, err
	}
	for i, c := range challenges {
		cp := &p.Challenges[i]
		for _, t := range []struct {
			tree  snapTree
			shape merkle.Shape
			out   *c1.MerkleProof
		}{{rOld, info.TreeR, &cp.ROld}, {d, merkle.ShapeBinary, &cp.DNew}, {rNew, info.TreeR, &cp.RNew}} {
			np, err := t.tree.Prove(c)
			if err != nil {
				return nil, fmt.Errorf("challenge %d: %w", i, err)
			}
			if err := t.out.FromNative(np, t.shape); err != nil {
				return nil, fmt.Errorf("challenge %d: %w", i, err)
			}
		}
	}
	return p, nil
}
