package gen

import (
	"fmt"

	"github.com/cuzk-project/cuzk/filecoin/c1"
	"github.com/cuzk-project/cuzk/filecoin/sdr"
	"github.com/cuzk-project/cuzk/hash"
	"github.com/cuzk-project/cuzk/hash/merkle"
)

// errInternal marks a generated value that fails its own check: a bug in
// the generator, never bad input.
var errInternal = fmt.Errorf("gen: internal inconsistency")

// prove assembles the vanilla proof of challenge c as storage-proofs-porep's
// prove_layers fills it: the tree D opening, the tree R opening, the
// columns of c and of its 6 DRG and 8 expander parents with their tree C
// openings, one labeling proof per layer (the 37 expanded parent labels:
// DRG parents from the same layer, expander parents from the layer below,
// 6×6+1 in layer 1 and 14+14+9 above) and the encoding proof, which repeats
// the last layer's labeling proof.
func (s *sector) prove(c uint64) (c1.Proof, error) {
	var p c1.Proof
	if c == 0 || c >= s.info.Nodes {
		return p, fmt.Errorf("%w: challenge %d outside [1, %d)", errInternal, c, s.info.Nodes)
	}
	var parents [14]uint32
	s.graph.Parents(uint32(c), &parents)

	d, err := s.treeD.Prove(c)
	if err != nil {
		return p, fmt.Errorf("gen: tree D opening of %d: %w", c, err)
	}
	if err := p.CommDProofs.FromNative(d, merkle.ShapeBinary); err != nil {
		return p, err
	}
	r, err := s.treeR.Prove(c)
	if err != nil {
		return p, fmt.Errorf("gen: tree R opening of %d: %w", c, err)
	}
	if err := p.CommRLastProof.FromNative(r, s.info.TreeR); err != nil {
		return p, err
	}

	cx, err := s.columnProof(uint32(c))
	if err != nil {
		return p, err
	}
	p.ReplicaColumnProofs.CX = cx
	cols := make([]c1.ColumnProof, 14)
	for i, v := range parents {
		if cols[i], err = s.columnProof(v); err != nil {
			return p, err
		}
	}
	p.ReplicaColumnProofs.DRGParents = cols[:6:6]
	p.ReplicaColumnProofs.ExpParents = cols[6:]

	L := s.info.Layers
	p.LabelingProofs = make([]c1.LabelingProof, L)
	for l := 1; l <= L; l++ {
		var drg [6][32]byte
		var exp [8][32]byte
		for i := range drg {
			drg[i] = cols[i].Rows[l-1]
		}
		if l > 1 {
			for i := range exp {
				exp[i] = cols[6+i].Rows[l-2]
			}
		}
		expanded := sdr.ExpandParents(l, &drg, &exp)
		if got := hash.Domain(sdr.Label(s.replicaID, uint32(l), c, &expanded)); got != cx.Rows[l-1] {
			return p, fmt.Errorf("%w: label of node %d in layer %d is %s, its column holds %s", errInternal, c, l, got, cx.Rows[l-1])
		}
		lp := c1.LabelingProof{Parents: make([]hash.Domain, len(expanded)), LayerIndex: uint32(l), Node: c}
		for i := range expanded {
			lp.Parents[i] = expanded[i]
		}
		p.LabelingProofs[l-1] = lp
	}
	last := p.LabelingProofs[L-1]
	p.EncodingProof = c1.LabelingProof{Parents: append([]hash.Domain(nil), last.Parents...), LayerIndex: last.LayerIndex, Node: last.Node}
	if r.Leaf != cx.Rows[L-1] {
		return p, fmt.Errorf("%w: replica of node %d is %s, its last label %s (zero data)", errInternal, c, r.Leaf, cx.Rows[L-1])
	}
	return p, nil
}

// columnProof opens node v's column in tree C.
func (s *sector) columnProof(v uint32) (c1.ColumnProof, error) {
	rows, ok := s.column(v)
	if !ok {
		return c1.ColumnProof{}, fmt.Errorf("%w: node %d has no column", errInternal, v)
	}
	t, err := s.treeC.Prove(uint64(v))
	if err != nil {
		return c1.ColumnProof{}, fmt.Errorf("gen: tree C opening of %d: %w", v, err)
	}
	cp := c1.ColumnProof{Index: v, Rows: append([]hash.Domain(nil), rows...)}
	if err := cp.Inclusion.FromNative(t, s.info.TreeR); err != nil {
		return c1.ColumnProof{}, err
	}
	return cp, nil
}
