package gen

import (
	"fmt"
	"slices"

	"github.com/cuzk-project/cuzk/filecoin"
	"github.com/cuzk-project/cuzk/filecoin/c1"
	"github.com/cuzk-project/cuzk/filecoin/sdr"
	"github.com/cuzk-project/cuzk/hash"
	"github.com/cuzk-project/cuzk/hash/merkle"
)

// checkPoRep is the generator's own check of a C1, independent of
// c1.Verify: every opening verifies with hash/merkle at the index it
// claims, every label recomputes from the parents' columns, the challenges
// are the registered proof's, and each node has one column in the whole
// output.
func checkPoRep(p *PoRep) error {
	o := p.Output
	info := o.Info()
	if info.Name == "" {
		return fmt.Errorf("unknown registered proof %q", o.RegisteredProof)
	}
	g, err := sdr.GraphFor(info)
	if err != nil {
		return err
	}
	r, err := commR(p.CommC, p.CommRLast)
	if err != nil {
		return err
	}
	if r != o.CommR {
		return fmt.Errorf("comm_r %s is not H(comm_c, comm_r_last) = %s", o.CommR, r)
	}
	d, err := merkle.EmptyDigests(merkle.Sha254{}, merkle.ShapeBinary, info.Nodes)
	if err != nil {
		return err
	}
	if o.CommD != d[len(d)-1] {
		return fmt.Errorf("comm_d %s is not the empty sector's %s", o.CommD, d[len(d)-1])
	}
	if want := filecoin.ReplicaID(filecoin.ProverID(p.Info.Miner), p.Info.Number, o.Ticket, o.CommD, filecoin.PoRepID(info.Proof)); o.ReplicaID != want {
		return fmt.Errorf("replica_id %s, want %s", o.ReplicaID, hash.Domain(want))
	}
	if len(o.Partitions) != info.Partitions {
		return fmt.Errorf("%d partitions, want %d", len(o.Partitions), info.Partitions)
	}
	columns := map[uint32][]hash.Domain{}
	for k, part := range o.Partitions {
		want, err := sdr.Challenges(info, o.ReplicaID, o.Seed, o.CommR, k)
		if err != nil {
			return err
		}
		if len(part) != len(want) {
			return fmt.Errorf("partition %d: %d proofs, want %d", k, len(part), len(want))
		}
		for i := range part {
			if err := checkProof(info, g, o, p, &part[i], want[i], columns); err != nil {
				return fmt.Errorf("partition %d challenge %d (node %d): %w", k, i, want[i], err)
			}
		}
	}
	return nil
}

func checkOpening(m *c1.MerkleProof, h merkle.Hasher, shape merkle.Shape, nodes, index uint64, root hash.Domain) error {
	if m.Kind != c1.KindOf(shape) {
		return fmt.Errorf("kind %s, want %s", m.Kind, c1.KindOf(shape))
	}
	n := m.Native()
	if err := n.CheckShape(shape, int(nodes)); err != nil {
		return err
	}
	if err := n.Verify(h); err != nil {
		return err
	}
	if n.LeafIndex() != index {
		return fmt.Errorf("opens leaf %d, want %d", n.LeafIndex(), index)
	}
	if m.Root != root {
		return fmt.Errorf("root %s, want %s", m.Root, root)
	}
	return nil
}

func checkProof(info filecoin.SealInfo, g *sdr.Graph, o *c1.Output, p *PoRep, pr *c1.Proof, c uint64, columns map[uint32][]hash.Domain) error {
	if err := checkOpening(&pr.CommDProofs, merkle.Sha254{}, merkle.ShapeBinary, info.Nodes, c, o.CommD); err != nil {
		return fmt.Errorf("comm_d proof: %w", err)
	}
	if pr.CommDProofs.Leaf != (hash.Domain{}) {
		return fmt.Errorf("comm_d leaf %s, want zero data", pr.CommDProofs.Leaf)
	}
	if err := checkOpening(&pr.CommRLastProof, merkle.Poseidon{}, info.TreeR, info.Nodes, c, p.CommRLast); err != nil {
		return fmt.Errorf("comm_r_last proof: %w", err)
	}
	var parents [14]uint32
	g.Parents(uint32(c), &parents)
	rc := &pr.ReplicaColumnProofs
	if len(rc.DRGParents) != 6 || len(rc.ExpParents) != 8 {
		return fmt.Errorf("%d DRG and %d expander columns", len(rc.DRGParents), len(rc.ExpParents))
	}
	all := append([]c1.ColumnProof{rc.CX}, rc.DRGParents...)
	all = append(all, rc.ExpParents...)
	nodes := append([]uint32{uint32(c)}, parents[:]...)
	for j := range all {
		col := &all[j]
		if col.Index != nodes[j] {
			return fmt.Errorf("column %d is of node %d, want %d", j, col.Index, nodes[j])
		}
		if len(col.Rows) != info.Layers {
			return fmt.Errorf("column %d has %d rows", j, len(col.Rows))
		}
		if err := checkOpening(&col.Inclusion, merkle.Poseidon{}, info.TreeR, info.Nodes, uint64(col.Index), p.CommC); err != nil {
			return fmt.Errorf("column %d: %w", j, err)
		}
		leaf, err := columnLeaf(col.Rows)
		if err != nil {
			return err
		}
		if leaf != col.Inclusion.Leaf {
			return fmt.Errorf("column %d: rows hash to %s, tree C leaf %s", j, leaf, col.Inclusion.Leaf)
		}
		if seen, ok := columns[col.Index]; ok && !slices.Equal(seen, col.Rows) {
			return fmt.Errorf("node %d has two different columns", col.Index)
		}
		columns[col.Index] = col.Rows
	}
	if len(pr.LabelingProofs) != info.Layers {
		return fmt.Errorf("%d labeling proofs", len(pr.LabelingProofs))
	}
	for l := 1; l <= info.Layers; l++ {
		lp := &pr.LabelingProofs[l-1]
		var drg [6][32]byte
		var exp [8][32]byte
		for i := range drg {
			drg[i] = rc.DRGParents[i].Rows[l-1]
		}
		if l > 1 {
			for i := range exp {
				exp[i] = rc.ExpParents[i].Rows[l-2]
			}
		}
		want := sdr.ExpandParents(l, &drg, &exp)
		if lp.LayerIndex != uint32(l) || lp.Node != c || len(lp.Parents) != len(want) {
			return fmt.Errorf("labeling proof %d: layer %d node %d, %d parents", l, lp.LayerIndex, lp.Node, len(lp.Parents))
		}
		var got [37][32]byte
		for i := range lp.Parents {
			got[i] = lp.Parents[i]
		}
		if got != want {
			return fmt.Errorf("labeling proof %d: parents are not the columns' labels", l)
		}
		if lab := hash.Domain(sdr.Label(o.ReplicaID, uint32(l), c, &got)); lab != rc.CX.Rows[l-1] {
			return fmt.Errorf("layer %d: label %s, column %s", l, lab, rc.CX.Rows[l-1])
		}
	}
	last := pr.LabelingProofs[info.Layers-1]
	e := pr.EncodingProof
	if e.LayerIndex != last.LayerIndex || e.Node != last.Node || !slices.Equal(e.Parents, last.Parents) {
		return fmt.Errorf("encoding proof is not the last labeling proof")
	}
	if pr.CommRLastProof.Leaf != rc.CX.Rows[info.Layers-1] {
		return fmt.Errorf("replica %s is not the last label plus zero data", pr.CommRLastProof.Leaf)
	}
	return nil
}
