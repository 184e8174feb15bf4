package porep

import (
	"fmt"

	"github.com/cuzk-project/cuzk/gadgets/boolean"
	"github.com/cuzk-project/cuzk/gadgets/encoding"
	"github.com/cuzk-project/cuzk/gadgets/label"
	gmerkle "github.com/cuzk-project/cuzk/gadgets/merkle"
	"github.com/cuzk-project/cuzk/gadgets/num"
	"github.com/cuzk-project/cuzk/gadgets/poseidon"
	u32 "github.com/cuzk-project/cuzk/gadgets/uint32"
	u64 "github.com/cuzk-project/cuzk/gadgets/uint64"
	"github.com/cuzk-project/cuzk/r1cs"
)

// synthesize writes one challenge (params.rs Proof::synthesize).
func (ch *Challenge) synthesize(cs r1cs.ConstraintSystem, rt roots, replicaID []boolean.Boolean) error {
	dataLeaf := num.Alloc(cs, ch.DataLeaf)
	if err := inclusion(cs, gmerkle.Sha254{}, ch.CommDPath, rt.commD, dataLeaf); err != nil {
		return fmt.Errorf("comm_d inclusion: %w", err)
	}

	var drg [DRGParents][]num.AllocatedNum
	for i := range ch.DRG {
		rows, err := ch.DRG[i].synthesize(cs, rt.commC)
		if err != nil {
			return fmt.Errorf("DRG parent %d: %w", i, err)
		}
		drg[i] = rows
	}
	var exp [ExpanderParents][]num.AllocatedNum
	for i := range ch.Exp {
		rows, err := ch.Exp[i].synthesize(cs, rt.commC)
		if err != nil {
			return fmt.Errorf("expander parent %d: %w", i, err)
		}
		exp[i] = rows
	}

	node := u64.Alloc(cs, ch.Node)
	node.PackIntoInput(cs)

	layers := len(ch.DRG[0].Rows)
	labels := make([]num.AllocatedNum, layers)
	parents := make([][]boolean.Boolean, 0, DRGParents+ExpanderParents)
	expanded := make([][]boolean.Boolean, 0, label.TotalParents)
	for layer := 1; layer <= layers; layer++ {
		// Every layer decomposes its parents again, DRG rows of this layer
		// first, then (above layer 1) the expander rows of the layer below.
		parents = parents[:0]
		for i := range drg {
			parents = append(parents, label.DomainBits(cs, drg[i][layer-1]))
		}
		if layer > 1 {
			for i := range exp {
				parents = append(parents, label.DomainBits(cs, exp[i][layer-2]))
			}
		}
		expanded = expandParents(expanded[:0], parents)
		l, err := label.Circuit(cs, replicaID, expanded, u32.Constant(uint32(layer)), node)
		if err != nil {
			return fmt.Errorf("label of layer %d: %w", layer, err)
		}
		labels[layer-1] = l
	}

	encoded := encoding.Encode(cs, labels[layers-1], dataLeaf)
	if err := inclusion(cs, gmerkle.Poseidon{}, ch.CommRLastPath, rt.commRLast, encoded); err != nil {
		return fmt.Errorf("comm_r_last inclusion: %w", err)
	}

	column, err := poseidon.HashMerkleTree(cs, labels)
	if err != nil {
		return fmt.Errorf("column hash: %w", err)
	}
	if err := inclusion(cs, gmerkle.Poseidon{}, ch.CommCPath, rt.commC, column); err != nil {
		return fmt.Errorf("comm_c inclusion: %w", err)
	}
	return nil
}

// expandParents appends the 37 parents a label hashes: 6 DRG parents six
// times and the first once more at layer 1; above it the 14 parents twice and
// the first 9 once more.
func expandParents(dst, parents [][]boolean.Boolean) [][]boolean.Boolean {
	for len(dst)+len(parents) <= label.TotalParents {
		dst = append(dst, parents...)
	}
	return append(dst, parents[:label.TotalParents-len(dst)]...)
}

// synthesize allocates the column's rows, hashes them and proves the hash in
// comm_c (column_proof.rs alloc, column.rs hash, params.rs enforce_inclusion).
func (col *Column) synthesize(cs r1cs.ConstraintSystem, commC num.AllocatedNum) ([]num.AllocatedNum, error) {
	rows := make([]num.AllocatedNum, len(col.Rows))
	for i := range rows {
		rows[i] = num.Alloc(cs, col.Rows[i])
	}
	h, err := poseidon.HashMerkleTree(cs, rows)
	if err != nil {
		return nil, fmt.Errorf("column hash: %w", err)
	}
	if err := inclusion(cs, gmerkle.Poseidon{}, col.Path, commC, h); err != nil {
		return nil, fmt.Errorf("comm_c inclusion: %w", err)
	}
	return rows, nil
}

// inclusion is params.rs enforce_inclusion: a private PoR whose leaf and root
// are existing variables; its path bits become one public input.
func inclusion(cs r1cs.ConstraintSystem, h gmerkle.NodeHasher, path []gmerkle.PathElement, root, leaf num.AllocatedNum) error {
	por := gmerkle.PoRCircuit{
		Hasher:  h,
		Value:   gmerkle.RootVar(leaf),
		Path:    path,
		Root:    gmerkle.RootVar(root),
		Private: true,
	}
	return por.Synthesize(cs)
}
