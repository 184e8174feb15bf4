package porep

import (
	"fmt"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-project/cuzk/filecoin/c1"
	gmerkle "github.com/cuzk-project/cuzk/gadgets/merkle"
	"github.com/cuzk-project/cuzk/hash"
	hmerkle "github.com/cuzk-project/cuzk/hash/merkle"
)

// NewPartition is partition k of a C1 output with its values, as
// rust-fil-proofs StackedCompound::circuit builds it: replica_id, comm_d and
// comm_r from the output; comm_r_last and comm_c from the first challenge's
// tree R opening and challenged column (every challenge must state the same);
// per challenge what params.rs From<VanillaProof> takes (see Challenge).
//
// It checks shapes and canonical values, not that the proofs verify: a proof
// that does not gives an unsatisfied circuit (c1.Verify checks before).
// Errors wrap c1.ErrBadVanillaProof.
func NewPartition(o *c1.Output, k int) (*Partition, error) {
	info := o.Info()
	if info.Name == "" {
		return nil, fmt.Errorf("%w: unknown registered proof %q", c1.ErrBadVanillaProof, o.RegisteredProof)
	}
	if k < 0 || k >= len(o.Partitions) {
		return nil, fmt.Errorf("%w: partition %d of %d", c1.ErrBadVanillaProof, k, len(o.Partitions))
	}
	proofs := o.Partitions[k]
	if len(proofs) == 0 {
		return nil, fmt.Errorf("%w: partition %d has no proofs", c1.ErrBadVanillaProof, k)
	}
	p := &Partition{Config: ConfigFor(info), Challenges: make([]Challenge, len(proofs))}
	var err error
	for _, f := range []struct {
		name string
		d    hash.Domain
		e    *fr.Element
	}{
		{"replica_id", o.ReplicaID, &p.ReplicaID},
		{"comm_d", o.CommD, &p.CommD},
		{"comm_r", o.CommR, &p.CommR},
		{"comm_r_last", proofs[0].CommRLastProof.Root, &p.CommRLast},
		{"comm_c", proofs[0].ReplicaColumnProofs.CX.Inclusion.Root, &p.CommC},
	} {
		if *f.e, err = f.d.Element(); err != nil {
			return nil, fmt.Errorf("%w: partition %d: %s: %w", c1.ErrBadVanillaProof, k, f.name, err)
		}
	}
	for i := range proofs {
		if err := p.Challenges[i].fromVanilla(&proofs[i], proofs[0].CommRLastProof.Root, proofs[0].ReplicaColumnProofs.CX.Inclusion.Root); err != nil {
			return nil, fmt.Errorf("%w: partition %d challenge %d: %w", c1.ErrBadVanillaProof, k, i, err)
		}
	}
	if err := p.Validate(); err != nil {
		return nil, fmt.Errorf("%w: partition %d: %w", c1.ErrBadVanillaProof, k, err)
	}
	return p, nil
}

func (ch *Challenge) fromVanilla(v *c1.Proof, commRLast, commC hash.Domain) error {
	rc := &v.ReplicaColumnProofs
	if v.CommRLastProof.Root != commRLast {
		return fmt.Errorf("comm_r_last %v differs from the first challenge's %v", v.CommRLastProof.Root, commRLast)
	}
	if rc.CX.Inclusion.Root != commC {
		return fmt.Errorf("comm_c %v differs from the first challenge's %v", rc.CX.Inclusion.Root, commC)
	}
	if len(v.LabelingProofs) == 0 {
		return fmt.Errorf("no labeling proofs")
	}
	if len(rc.DRGParents) != DRGParents || len(rc.ExpParents) != ExpanderParents {
		return fmt.Errorf("%d DRG and %d expander parent columns, want %d and %d",
			len(rc.DRGParents), len(rc.ExpParents), DRGParents, ExpanderParents)
	}
	ch.Node = v.Challenge()
	var err error
	if ch.DataLeaf, err = v.CommDProofs.Leaf.Element(); err != nil {
		return fmt.Errorf("comm_d leaf: %w", err)
	}
	if ch.CommDPath, err = path(v.CommDProofs.Native()); err != nil {
		return fmt.Errorf("comm_d path: %w", err)
	}
	if ch.CommRLastPath, err = path(v.CommRLastProof.Native()); err != nil {
		return fmt.Errorf("comm_r_last path: %w", err)
	}
	if ch.CommCPath, err = path(rc.CX.Inclusion.Native()); err != nil {
		return fmt.Errorf("c_x path: %w", err)
	}
	for j := range ch.DRG {
		if ch.DRG[j], err = column(&rc.DRGParents[j]); err != nil {
			return fmt.Errorf("DRG parent %d: %w", j, err)
		}
	}
	for j := range ch.Exp {
		if ch.Exp[j], err = column(&rc.ExpParents[j]); err != nil {
			return fmt.Errorf("expander parent %d: %w", j, err)
		}
	}
	return nil
}

func column(c *c1.ColumnProof) (Column, error) {
	col := Column{Rows: make([]fr.Element, len(c.Rows))}
	var err error
	for i := range c.Rows {
		if col.Rows[i], err = c.Rows[i].Element(); err != nil {
			return col, fmt.Errorf("row %d: %w", i, err)
		}
	}
	if col.Path, err = path(c.Inclusion.Native()); err != nil {
		return col, fmt.Errorf("path: %w", err)
	}
	return col, nil
}

// path converts a native path's siblings to field elements; the circuit
// takes neither its leaf nor its root.
func path(p *hmerkle.Proof) ([]gmerkle.PathElement, error) {
	out := make([]gmerkle.PathElement, len(p.Path))
	var err error
	for l, e := range p.Path {
		out[l] = gmerkle.PathElement{Index: e.Index, Siblings: make([]fr.Element, len(e.Siblings))}
		for i := range e.Siblings {
			if out[l].Siblings[i], err = e.Siblings[i].Element(); err != nil {
				return nil, fmt.Errorf("level %d sibling %d: %w", l, i, err)
			}
		}
	}
	return out, nil
}
