package c1

import (
	"encoding/binary"
	"fmt"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-project/cuzk/filecoin"
	"github.com/cuzk-project/cuzk/hash"
)

// The parents of a node: the graph's degree and the expanded count hashed
// into a label (storage-proofs-porep BASE_DEGREE, EXP_DEGREE, TOTAL_PARENTS).
const (
	DRGParents   = 6
	ExpParents   = 8
	TotalParents = 37
)

// CheckShape checks o against its registered proof's parameters: the
// vanilla variant, partitions × challenges, and in every proof the
// variant, levels and arities of each Merkle path (tree D binary with
// TreeDLevels levels, trees R and C of the TreeR shape), 6 DRG and 8
// expander columns of Layers rows, Layers labeling proofs and an encoding
// proof of 37 parents, every path index below its arity; and that every
// value the circuit reads as a field element (tree nodes, column rows,
// comm_r, comm_d, replica_id) is canonical, which rust-fil-proofs needs
// before it turns a domain into a scalar. It does not hash anything:
// Verify does. Errors wrap ErrBadVanillaProof.
func (o *Output) CheckShape() error {
	info, err := o.info()
	if err != nil {
		return at(bad("%v", err), "registered_proof")
	}
	if o.VanillaKey != info.VanillaKey {
		return at(bad("variant %q, %s files its proofs under %q", o.VanillaKey, info.Name, info.VanillaKey), "vanilla_proofs")
	}
	for _, c := range []struct {
		name string
		d    *hash.Domain
	}{{"comm_r", &o.CommR}, {"comm_d", &o.CommD}, {"replica_id", &o.ReplicaID}} {
		if err := canonical(c.d); err != nil {
			return at(err, c.name)
		}
	}
	if len(o.Partitions) != info.Partitions {
		return at(bad("%d partitions, want %d", len(o.Partitions), info.Partitions), "vanilla_proofs")
	}
	sh, err := shapeOf(info)
	if err != nil {
		return err
	}
	for k, part := range o.Partitions {
		if len(part) != info.Challenges {
			return at(bad("%d challenges, want %d", len(part), info.Challenges), fmt.Sprintf("vanilla_proofs partition %d", k))
		}
		for i := range part {
			if err := sh.proof(&part[i]); err != nil {
				return atChallenge(err, k, i)
			}
		}
	}
	return nil
}

// proofShape is what every proof of one registered proof looks like.
type proofShape struct {
	layers int
	treeD  treeShape
	treeR  treeShape
}

// treeShape is a Merkle proof's variant and the levels and arity of each
// of its parts.
type treeShape struct {
	kind                ProofKind
	baseLevels          int
	baseArity, sub, top int
}

func shapeOf(info filecoin.SealInfo) (proofShape, error) {
	if info.Nodes == 0 || info.Nodes > 1<<40 || info.Layers < 1 || info.TreeDLevels < 1 {
		return proofShape{}, bad("%s: unusable parameters", info.Name)
	}
	base, err := info.TreeR.BaseLevels(int(info.Nodes))
	if err != nil {
		return proofShape{}, bad("%s: tree R: %v", info.Name, err)
	}
	return proofShape{
		layers: info.Layers,
		treeD:  treeShape{kind: KindSingle, baseLevels: info.TreeDLevels, baseArity: 2},
		treeR: treeShape{kind: KindOf(info.TreeR), baseLevels: base, baseArity: info.TreeR.Base,
			sub: info.TreeR.Sub, top: info.TreeR.Top},
	}, nil
}

func (sh *proofShape) proof(p *Proof) error {
	if err := sh.treeD.check(&p.CommDProofs); err != nil {
		return at(err, "comm_d_proofs")
	}
	if err := sh.treeR.check(&p.CommRLastProof); err != nil {
		return at(err, "comm_r_last_proof")
	}
	r := &p.ReplicaColumnProofs
	if err := sh.column(&r.CX); err != nil {
		return at(at(err, "c_x"), "replica_column_proofs")
	}
	for _, g := range []struct {
		name string
		cols []ColumnProof
		want int
	}{{"drg_parents", r.DRGParents, DRGParents}, {"exp_parents", r.ExpParents, ExpParents}} {
		if len(g.cols) != g.want {
			return at(at(bad("%d columns, want %d", len(g.cols), g.want), g.name), "replica_column_proofs")
		}
		for j := range g.cols {
			if err := sh.column(&g.cols[j]); err != nil {
				return at(at(atIndex(err, j), g.name), "replica_column_proofs")
			}
		}
	}
	if len(p.LabelingProofs) != sh.layers {
		return at(bad("%d labeling proofs, want %d (one per layer)", len(p.LabelingProofs), sh.layers), "labeling_proofs")
	}
	for j := range p.LabelingProofs {
		if n := len(p.LabelingProofs[j].Parents); n != TotalParents {
			return at(atIndex(at(bad("%d parents, want %d", n, TotalParents), "parents"), j), "labeling_proofs")
		}
	}
	if n := len(p.EncodingProof.Parents); n != TotalParents {
		return at(at(bad("%d parents, want %d", n, TotalParents), "parents"), "encoding_proof")
	}
	return nil
}

func (sh *proofShape) column(c *ColumnProof) error {
	if len(c.Rows) != sh.layers {
		return at(at(bad("%d rows, want %d (one per layer)", len(c.Rows), sh.layers), "rows"), "column")
	}
	for l := range c.Rows {
		if err := canonical(&c.Rows[l]); err != nil {
			return at(at(atIndex(err, l), "rows"), "column")
		}
	}
	return at(sh.treeR.check(&c.Inclusion), "inclusion_proof")
}

// pathPart is one InclusionPath of a Merkle proof and what it must be.
type pathPart struct {
	name          string
	path          []PathElement
	levels, arity int
}

// check compares m with the shape; the error names the part at fault.
func (t *treeShape) check(m *MerkleProof) error {
	if m.Kind != t.kind {
		return bad("%s proof, want %s", m.Kind, t.kind)
	}
	var parts []pathPart
	switch t.kind {
	case KindSingle:
		parts = []pathPart{{"path", m.Base, t.baseLevels, t.baseArity}}
	case KindSub:
		parts = []pathPart{{"base_proof", m.Base, t.baseLevels, t.baseArity}, {"sub_proof", m.Sub, 1, t.sub}}
	default:
		parts = []pathPart{{"base_proof", m.Base, t.baseLevels, t.baseArity}, {"sub_proof", m.Sub, 1, t.sub},
			{"top_proof", m.Top, 1, t.top}}
	}
	if (t.kind < KindSub && len(m.Sub) != 0) || (t.kind < KindTop && len(m.Top) != 0) {
		return bad("a %s proof with paths of layers it does not have", t.kind)
	}
	for _, p := range parts {
		if len(p.path) != p.levels {
			return at(bad("%d levels, want %d", len(p.path), p.levels), p.name)
		}
		for l, e := range p.path {
			if len(e.Siblings) != p.arity-1 {
				return at(atIndex(at(bad("%d siblings, want %d", len(e.Siblings), p.arity-1), "hashes"), l), p.name)
			}
			if e.Index < 0 || e.Index >= p.arity {
				return at(atIndex(at(bad("%d, want < %d", e.Index, p.arity), "index"), l), p.name)
			}
			for j := range e.Siblings {
				if err := canonical(&e.Siblings[j]); err != nil {
					return at(atIndex(at(atIndex(err, j), "hashes"), l), p.name)
				}
			}
		}
	}
	if err := canonical(&m.Root); err != nil {
		return at(err, "root")
	}
	if err := canonical(&m.Leaf); err != nil {
		return at(err, "leaf")
	}
	return nil
}

func canonical(d *hash.Domain) error {
	if !isCanonical(d) {
		return bad("%x is not a canonical field element", d[:])
	}
	return nil
}

// modulusWords is r, the scalar field modulus, as little-endian 64-bit
// words.
var modulusWords = func() (w [4]uint64) {
	var b [32]byte
	fr.Modulus().FillBytes(b[:]) // big-endian
	for i := range w {
		w[i] = binary.BigEndian.Uint64(b[32-8*(i+1):])
	}
	return w
}()

// isCanonical reports d < r, read little-endian, without converting it.
func isCanonical(d *hash.Domain) bool {
	for i := 3; i >= 0; i-- {
		if w := binary.LittleEndian.Uint64(d[8*i:]); w != modulusWords[i] {
			return w < modulusWords[i]
		}
	}
	return false
}
