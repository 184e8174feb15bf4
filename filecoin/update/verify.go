package update

import (
	"fmt"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-project/cuzk/filecoin/c1"
	"github.com/cuzk-project/cuzk/hash"
	"github.com/cuzk-project/cuzk/hash/merkle"
	"github.com/cuzk-project/cuzk/internal/parallel"
)

// Partition is partition K of an update proof with the public comms it is
// proven against.
type Partition struct {
	Info Info
	K    int
	// CommROld is the sector's comm_r before the update (the sector key's),
	// CommDNew the new data's comm_d, CommRNew the updated replica's comm_r.
	CommROld, CommDNew, CommRNew hash.Domain
	Proof                        *PartitionProof
}

// PublicInputs are the partition circuit's public inputs, ONE excluded:
// [k_and_h_select, comm_r_old, comm_d_new, comm_r_new] (storage-proofs-update
// circuit.rs PublicInputs::to_vec). They need no vanilla proof: a verifier
// computes them from the proof type, the partition and the three comms. It
// fails when k is out of range or a comm is not canonical.
func PublicInputs(info Info, k int, commROld, commDNew, commRNew hash.Domain) ([]fr.Element, error) {
	if k < 0 || k >= info.Partitions {
		return nil, fmt.Errorf("%w: partition %d of %d", ErrBadVanillaProof, k, info.Partitions)
	}
	in := make([]fr.Element, 4)
	in[0].SetUint64(info.KAndHSelect(k))
	for j, c := range []struct {
		name string
		d    hash.Domain
	}{{"comm_r_old", commROld}, {"comm_d_new", commDNew}, {"comm_r_new", commRNew}} {
		var err error
		if in[j+1], err = c.d.Element(); err != nil {
			return nil, fmt.Errorf("%w: %s: %w", ErrBadVanillaProof, c.name, err)
		}
	}
	return in, nil
}

// PublicInputs is PublicInputs of p's proof type, partition and comms.
func (p *Partition) PublicInputs() ([]fr.Element, error) {
	return PublicInputs(p.Info, p.K, p.CommROld, p.CommDNew, p.CommRNew)
}

// CheckShape checks that p has the counts, variants, path lengths, arities
// and index ranges of info's trees and that every domain is canonical, as
// DecodePartitionProof does; a proof built in memory can then be indexed
// like a decoded one.
func (p *PartitionProof) CheckShape(info Info) error {
	shR, shD, err := info.shapes()
	if err != nil {
		return err
	}
	if err := canonical("comm_c", p.CommC); err != nil {
		return err
	}
	if len(p.ApexLeaves) != info.ApexLeaves {
		return bad("apex_leafs", "%d leaves, want %d", len(p.ApexLeaves), info.ApexLeaves)
	}
	for j, a := range p.ApexLeaves {
		if err := canonical(fmt.Sprintf("apex_leafs[%d]", j), a); err != nil {
			return err
		}
	}
	if len(p.Challenges) != info.Challenges {
		return bad("challenge_proofs", "%d proofs, want %d", len(p.Challenges), info.Challenges)
	}
	for j := range p.Challenges {
		c := &p.Challenges[j]
		for _, o := range c.openings(shR, shD) {
			if err := checkShape(o.m, o.sh); err != nil {
				return within(within(err, o.name), fmt.Sprintf("challenge_proofs[%d]", j))
			}
		}
	}
	return nil
}

func canonical(field string, d hash.Domain) error {
	if _, err := d.Element(); err != nil {
		return bad(field, "%s is not a canonical scalar", d)
	}
	return nil
}

func checkShape(m *c1.MerkleProof, sh treeShape) error {
	if m.Kind != sh.kind {
		return bad("variant", "%s, want %s", m.Kind, sh.kind)
	}
	if err := canonical("root", m.Root); err != nil {
		return err
	}
	if err := canonical("leaf", m.Leaf); err != nil {
		return err
	}
	want := []struct {
		name          string
		path          []merkle.PathElement
		arity, levels int
	}{{"base", m.Base, sh.baseArity, sh.baseLevels}, {"sub", m.Sub, sh.sub, 0}, {"top", m.Top, sh.top, 0}}
	if sh.kind == c1.KindSingle {
		want[0].name = "path"
	}
	if sh.sub > 0 {
		want[1].levels = 1
	}
	if sh.top > 0 {
		want[2].levels = 1
	}
	for _, w := range want {
		if len(w.path) != w.levels {
			return bad(w.name, "%d levels, want %d", len(w.path), w.levels)
		}
		for l, e := range w.path {
			if len(e.Siblings) != w.arity-1 {
				return bad(fmt.Sprintf("%s[%d].hashes", w.name, l), "%d siblings, want %d", len(e.Siblings), w.arity-1)
			}
			if e.Index < 0 || e.Index >= w.arity {
				return bad(fmt.Sprintf("%s[%d].index", w.name, l), "%d, arity %d", e.Index, w.arity)
			}
			for j, sib := range e.Siblings {
				if err := canonical(fmt.Sprintf("%s[%d].hashes[%d]", w.name, l, j), sib); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// Verify checks partition K's vanilla proof against the comms as
// storage-proofs-update's vanilla verifier does, and additionally whatever
// the partition circuit needs to be satisfiable:
//
//   - the proof has info's shape (CheckShape) and the comms are canonical;
//   - comm_r_old = Poseidon₂(comm_c, root_r_old) and comm_r_new =
//     Poseidon₂(comm_c, root_r_new), the roots being those of challenge 0's
//     replica openings;
//   - the apex leaves hash (SHA-254, pairwise) to the apex root, and the
//     apex root with challenge 0's tree D siblings above it, along k's bits,
//     to comm_d_new (the circuit's check; rust-fil-proofs' vanilla verifier
//     only asks that each apex-level sibling occurs in the apex tree);
//   - challenge i is the i-th re-derived from comm_r_new, and every opening
//     opens that node, states its tree's root (root_r_old, comm_d_new,
//     root_r_new) and hashes to it (Poseidon, SHA-254, Poseidon);
//   - each tree D opening passes through the apex leaf the challenge's bits
//     select, with the apex tree's nodes as its siblings above it;
//   - the new replica leaf is the old one plus the data leaf times
//     rho(phi, high h bits of the challenge).
//
// Every failure wraps ErrBadVanillaProof and names the partition, the
// challenge and the field; the first failing challenge is reported. The
// challenges are checked in parallel.
func (p *Partition) Verify() error {
	info, k := p.Info, p.K
	fail := func(err error, i int) error { return atChallenge(err, k, i) }
	if k < 0 || k >= info.Partitions {
		return fail(bad("k", "partition %d of %d", k, info.Partitions), -1)
	}
	if p.Proof == nil {
		return fail(bad("", "no proof"), -1)
	}
	if err := p.Proof.CheckShape(info); err != nil {
		return fail(err, -1)
	}
	for _, c := range []struct {
		name string
		d    hash.Domain
	}{{"comm_r_old", p.CommROld}, {"comm_d_new", p.CommDNew}, {"comm_r_new", p.CommRNew}} {
		if _, err := c.d.Element(); err != nil {
			return fail(bad(c.name, "%s is not a canonical scalar", c.d), -1)
		}
	}
	pr := p.Proof
	first := &pr.Challenges[0]
	rootROld, rootRNew := first.ROld.Root, first.RNew.Root
	for _, c := range []struct {
		name       string
		comm, root hash.Domain
	}{{"comm_r_old", p.CommROld, rootROld}, {"comm_r_new", p.CommRNew, rootRNew}} {
		got, err := merkle.Poseidon{}.Node([]hash.Domain{pr.CommC, c.root})
		if err != nil {
			return fail(bad("comm_c", "%v", err), -1)
		}
		if got != c.comm {
			return fail(bad(c.name, "%s, but Poseidon(comm_c %s, root %s) = %s", c.comm, pr.CommC, c.root, got), -1)
		}
	}
	apex, err := apexTree(pr.ApexLeaves)
	if err != nil {
		return fail(err, -1)
	}
	if err := p.checkApexRoot(apex[len(apex)-1][0]); err != nil {
		return fail(err, -1)
	}
	phi, err := Phi(p.CommDNew, p.CommROld)
	if err != nil {
		return fail(bad("", "%v", err), -1)
	}
	challenges, err := Challenges(info, p.CommRNew, k)
	if err != nil {
		return fail(bad("", "%v", err), -1)
	}
	return p.checkChallenges(challenges, phi, rootROld, rootRNew, apex)
}

// checkChallenges checks the challenges on GOMAXPROCS goroutines, which
// take them in order; after a failure no further challenge is taken, so the
// failure first in order is the one reported.
func (p *Partition) checkChallenges(challenges []uint64, phi fr.Element, rootROld, rootRNew hash.Domain, apex [][]hash.Domain) error {
	return parallel.FirstError(len(challenges), func(i int) error {
		c := challenges[i]
		rho := Rho(phi, p.Info.High(c))
		if err := p.checkChallenge(&p.Proof.Challenges[i], c, rootROld, rootRNew, apex, rho); err != nil {
			return atChallenge(err, p.K, i)
		}
		return nil
	})
}

// apexTree hashes the apex leaves pairwise up to the apex root: rows[0] are
// the leaves, rows[len−1] the root alone.
func apexTree(leaves []hash.Domain) ([][]hash.Domain, error) {
	rows := [][]hash.Domain{leaves}
	for row := leaves; len(row) > 1; {
		next := make([]hash.Domain, len(row)/2)
		for j := range next {
			var err error
			if next[j], err = (merkle.Sha254{}).Node(row[2*j : 2*j+2]); err != nil {
				return nil, bad("apex_leafs", "%v", err)
			}
		}
		rows = append(rows, next)
		row = next
	}
	return rows, nil
}

// checkApexRoot hashes the apex root up the partition levels of tree D with
// challenge 0's siblings there, along k's bits, and compares with
// comm_d_new.
func (p *Partition) checkApexRoot(root hash.Domain) error {
	info := p.Info
	top := info.ApexHeight() + info.ApexBits()
	path := p.Proof.Challenges[0].DNew.Base[top:]
	cur := root
	for l, e := range path {
		children := []hash.Domain{cur, e.Siblings[0]}
		if (p.K>>l)&1 == 1 {
			children[0], children[1] = e.Siblings[0], cur
		}
		var err error
		if cur, err = (merkle.Sha254{}).Node(children); err != nil {
			return bad("apex_leafs", "%v", err)
		}
	}
	if cur != p.CommDNew {
		return bad("apex_leafs", "apex root %s and challenge 0's partition path give %s, comm_d_new is %s", root, cur, p.CommDNew)
	}
	return nil
}

// checkChallenge checks one challenge's three openings and the encoding.
func (p *Partition) checkChallenge(cp *ChallengeProof, c uint64, rootROld, rootRNew hash.Domain, apex [][]hash.Domain, rho fr.Element) error {
	info := p.Info
	for _, o := range []struct {
		name string
		m    *c1.MerkleProof
		h    merkle.Hasher
		root hash.Domain
	}{
		{"proof_r_old", &cp.ROld, merkle.Poseidon{}, rootROld},
		{"proof_d_new", &cp.DNew, merkle.Sha254{}, p.CommDNew},
		{"proof_r_new", &cp.RNew, merkle.Poseidon{}, rootRNew},
	} {
		if got := o.m.LeafIndex(); got != c {
			return bad(o.name, "opens node %d, challenge is node %d", got, c)
		}
		if o.m.Root != o.root {
			return bad(o.name+".root", "%s, want %s", o.m.Root, o.root)
		}
		if err := o.m.Native().Verify(o.h); err != nil {
			return bad(o.name, "node %d: %v", c, err)
		}
	}
	// The tree D opening below the apex, then through the apex tree.
	h := info.ApexHeight()
	below := &merkle.Proof{Leaf: cp.DNew.Leaf, Path: cp.DNew.Base[:h]}
	node, err := below.ComputeRoot(merkle.Sha254{})
	if err != nil {
		return bad("proof_d_new", "%v", err)
	}
	a := (c >> h) & uint64(info.ApexLeaves-1)
	if node != apex[0][a] {
		return bad("proof_d_new", "node %d's tree D ancestor at height %d is %s, apex leaf %d is %s", c, h, node, a, apex[0][a])
	}
	for l, row := range apex[:len(apex)-1] {
		e := cp.DNew.Base[h+l]
		if sib := a>>l ^ 1; e.Siblings[0] != row[sib] {
			return bad(fmt.Sprintf("proof_d_new.path[%d]", h+l), "sibling %s, apex tree node %d of row %d is %s", e.Siblings[0], sib, l, row[sib])
		}
	}
	// CheckShape found both leaves canonical.
	old, _ := cp.ROld.Leaf.Element()
	data, _ := cp.DNew.Leaf.Element()
	want := Encode(old, data, rho)
	if got := hash.DomainOf(&want); got != cp.RNew.Leaf {
		return bad("proof_r_new.leaf", "%s, but old %s + data %s·rho(%d) = %s", cp.RNew.Leaf, cp.ROld.Leaf, cp.DNew.Leaf, info.High(c), got)
	}
	return nil
}
