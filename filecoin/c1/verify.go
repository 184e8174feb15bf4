package c1

import (
	"fmt"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-project/cuzk/filecoin"
	"github.com/cuzk-project/cuzk/filecoin/sdr"
	"github.com/cuzk-project/cuzk/gadgets/encoding"
	"github.com/cuzk-project/cuzk/hash"
	"github.com/cuzk-project/cuzk/hash/merkle"
	"github.com/cuzk-project/cuzk/hash/poseidon"
	"github.com/cuzk-project/cuzk/internal/parallel"
)

// Verify checks the vanilla proofs of o with nothing but o: no parameters,
// no device. It is what C2 must know before it synthesizes a circuit, and
// more than rust-fil-proofs' vanilla verifier checks:
//
//   - o has the registered proof's shape (CheckShape); comm_d, comm_r and
//     the seed are non-zero, as filecoin-proofs requires before C2;
//   - comm_r = Poseidon(comm_c, comm_r_last), where comm_c and comm_r_last
//     are the roots every proof of every partition states alike;
//   - each proof's challenge is partition k's challenge i re-derived from
//     the seed (or comm_r, by the proof's feature): the tree D, tree R and
//     c_x openings and the column index open that node, and every labeling
//     proof and the encoding proof name it;
//   - the tree D opening hashes (SHA-254) to comm_d, the tree R opening
//     (Poseidon) to comm_r_last, and every column to comm_c, each column's
//     leaf being the Poseidon hash of its rows;
//   - the parent columns are the graph's parents of the challenge, 6 DRG
//     then 8 expander, by index and by opened leaf;
//   - for every layer l the label recomputed from the parent columns (layer
//     l of the DRG parents, layer l−1 of the expander parents, expanded to
//     37) equals row l of c_x, and labeling proof l states exactly those
//     37 parents (rust-fil-proofs checks the label against the labeling
//     proof's own parents and never compares them with the columns; the
//     circuit uses only the columns);
//   - the encoding proof restates the last labeling proof, and the tree R
//     leaf is the last label plus the tree D leaf in Fr.
//
// replica_id is taken as given, canonical: it cannot be recomputed from C1
// alone (it needs the prover id, which C1 does not carry). The challenges
// are checked in parallel. Every failure wraps ErrBadVanillaProof and names
// partition, challenge and field; with several failures the first in
// (partition, challenge) order is reported.
func Verify(o *Output) error {
	if err := o.CheckShape(); err != nil {
		return err
	}
	info := o.Info()
	var zero hash.Domain
	for _, c := range []struct {
		name string
		d    hash.Domain
	}{{"comm_d", o.CommD}, {"comm_r", o.CommR}, {"seed", o.Seed}} {
		if c.d == zero {
			return at(bad("all zero"), c.name)
		}
	}
	g, err := sdr.GraphFor(info)
	if err != nil {
		return fmt.Errorf("%w: %s: %w", ErrBadVanillaProof, info.Name, err)
	}
	v := &verifier{o: o, info: info, g: g, commC: o.CommC(), commRLast: o.CommRLast()}
	commR, err := merkle.Poseidon{}.Node([]hash.Domain{v.commC, v.commRLast})
	if err != nil {
		return at(bad("%v", err), "comm_r")
	}
	if commR != o.CommR {
		return at(bad("%s, but Poseidon(comm_c %s, comm_r_last %s) = %s", o.CommR, v.commC, v.commRLast, commR), "comm_r")
	}
	challenges := make([][]uint64, len(o.Partitions))
	for k := range o.Partitions {
		cs, err := sdr.Challenges(info, o.ReplicaID, o.Seed, o.CommR, k)
		if err != nil {
			return fmt.Errorf("%w: partition %d: challenges: %w", ErrBadVanillaProof, k, err)
		}
		if len(cs) != info.Challenges {
			return fmt.Errorf("%w: partition %d: %d challenges derived, want %d", ErrBadVanillaProof, k, len(cs), info.Challenges)
		}
		challenges[k] = cs
	}
	return v.all(challenges)
}

type verifier struct {
	o                *Output
	info             filecoin.SealInfo
	g                *sdr.Graph
	commC, commRLast hash.Domain
	memo             nodeMemo
}

// The trees a memo key names.
const (
	treeD uint8 = iota
	treeC
	treeR
)

// all checks every challenge on GOMAXPROCS goroutines; after a failure the
// remaining work is skipped and the failure first in order is returned.
func (v *verifier) all(challenges [][]uint64) error {
	per := v.info.Challenges
	return parallel.FirstError(len(challenges)*per, func(j int) error {
		k, i := j/per, j%per
		if err := v.challenge(&v.o.Partitions[k][i], challenges[k][i]); err != nil {
			return atChallenge(err, k, i)
		}
		return nil
	})
}

// challenge checks one proof against its challenge c.
func (v *verifier) challenge(p *Proof, c uint64) error {
	if c == 0 || c >= v.info.Nodes {
		return bad("challenge %d outside [1, %d)", c, v.info.Nodes)
	}
	if err := v.opening(&p.CommDProofs, merkle.Sha254{}, treeD, v.o.CommD, "comm_d", c); err != nil {
		return at(err, "comm_d_proofs")
	}
	if err := v.opening(&p.CommRLastProof, merkle.Poseidon{}, treeR, v.commRLast, "comm_r_last", c); err != nil {
		return at(err, "comm_r_last_proof")
	}

	r := &p.ReplicaColumnProofs
	if err := v.column(&r.CX, c); err != nil {
		return at(at(err, "c_x"), "replica_column_proofs")
	}
	var parents [sdr.Degree]uint32
	v.g.Parents(uint32(c), &parents)
	for j := range r.DRGParents {
		if err := v.column(&r.DRGParents[j], uint64(parents[j])); err != nil {
			return at(at(atIndex(err, j), "drg_parents"), "replica_column_proofs")
		}
	}
	for j := range r.ExpParents {
		if err := v.column(&r.ExpParents[j], uint64(parents[DRGParents+j])); err != nil {
			return at(at(atIndex(err, j), "exp_parents"), "replica_column_proofs")
		}
	}

	var drg [DRGParents][32]byte
	var exp [ExpParents][32]byte
	var expanded [TotalParents][32]byte
	for layer := 1; layer <= v.info.Layers; layer++ {
		for j := range drg {
			drg[j] = r.DRGParents[j].Rows[layer-1]
		}
		if layer > 1 {
			for j := range exp {
				exp[j] = r.ExpParents[j].Rows[layer-2]
			}
		}
		expanded = sdr.ExpandParents(layer, &drg, &exp)
		label := hash.Domain(sdr.Label(v.o.ReplicaID, uint32(layer), c, &expanded))
		if got := r.CX.Rows[layer-1]; got != label {
			return at(at(at(atIndex(bad("%s, but the label of layer %d from the parent columns is %s", got, layer, label), layer-1), "rows"), "column"), "replica_column_proofs.c_x")
		}
		if err := labeling(&p.LabelingProofs[layer-1], layer, c, &expanded); err != nil {
			return at(atIndex(err, layer-1), "labeling_proofs")
		}
	}
	if err := labeling(&p.EncodingProof, v.info.Layers, c, &expanded); err != nil {
		return at(err, "encoding_proof")
	}

	key, err := r.CX.Rows[v.info.Layers-1].Element()
	if err != nil {
		return at(bad("%v", err), "replica_column_proofs.c_x.column.rows")
	}
	data, err := p.CommDProofs.Leaf.Element()
	if err != nil {
		return at(bad("%v", err), "comm_d_proofs.leaf")
	}
	enc := encoding.EncodeNative(key, data)
	if want := hash.DomainOf(&enc); p.CommRLastProof.Leaf != want {
		return at(bad("%s, but last label + data leaf = %s", p.CommRLastProof.Leaf, want), "comm_r_last_proof.leaf")
	}
	return nil
}

// opening checks that m opens node c under root (the commitment called
// name) and hashes up to it with h.
func (v *verifier) opening(m *MerkleProof, h merkle.Hasher, tree uint8, root hash.Domain, name string, c uint64) error {
	if m.Root != root {
		return at(bad("%s, but %s is %s", m.Root, name, root), "root")
	}
	if got := m.LeafIndex(); got != c {
		return bad("opens node %d, want %d", got, c)
	}
	got, err := v.memo.root(h, tree, m)
	if err != nil {
		return err
	}
	if got != root {
		return bad("the path hashes to %s, not to %s %s", got, name, root)
	}
	return nil
}

// column checks a column of tree C: its index and opening are node, its
// leaf is the Poseidon hash of its rows, and it opens under comm_c.
func (v *verifier) column(col *ColumnProof, node uint64) error {
	if uint64(col.Index) != node {
		return at(at(bad("%d, want %d", col.Index, node), "index"), "column")
	}
	var buf [16]fr.Element
	rows := buf[:0]
	for l := range col.Rows {
		e, err := col.Rows[l].Element()
		if err != nil {
			return at(at(atIndex(bad("%v", err), l), "rows"), "column")
		}
		rows = append(rows, e)
	}
	h, err := poseidon.HashMerkleTree(rows)
	if err != nil {
		return at(bad("%v", err), "column")
	}
	if want := hash.DomainOf(&h); col.Inclusion.Leaf != want {
		return at(at(bad("%s, but the column hashes to %s", col.Inclusion.Leaf, want), "leaf"), "inclusion_proof")
	}
	if err := v.opening(&col.Inclusion, merkle.Poseidon{}, treeC, v.commC, "comm_c", node); err != nil {
		return at(err, "inclusion_proof")
	}
	return nil
}

// labeling checks that a labeling (or encoding) proof states layer, node c
// and the expanded parents.
func labeling(l *LabelingProof, layer int, c uint64, expanded *[TotalParents][32]byte) error {
	if l.LayerIndex != uint32(layer) {
		return at(bad("%d, want %d", l.LayerIndex, layer), "layer_index")
	}
	if l.Node != c {
		return at(bad("%d, want challenge %d", l.Node, c), "node")
	}
	for j := range l.Parents {
		if l.Parents[j] != expanded[j] {
			return at(atIndex(bad("%s, but the parent columns give %s", l.Parents[j], hash.Domain(expanded[j])), j), "parents")
		}
	}
	return nil
}
