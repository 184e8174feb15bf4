package c1

import (
	"fmt"

	"github.com/cuzk-project/cuzk/hash"
	"github.com/cuzk-project/cuzk/hash/merkle"
)

// ProofKind is the variant of storage-proofs-core's ProofData enum: which
// layers of a compound tree a MerkleProof crosses.
type ProofKind uint8

const (
	// KindSingle is a plain tree: the base path only (tree D, 8-0-0).
	KindSingle ProofKind = iota
	// KindSub is base trees joined by one sub layer (8-8-0).
	KindSub
	// KindTop adds a top layer over the sub trees (8-8-2).
	KindTop
)

// String is the serde variant name.
func (k ProofKind) String() string {
	switch k {
	case KindSingle:
		return "Single"
	case KindSub:
		return "Sub"
	case KindTop:
		return "Top"
	}
	return fmt.Sprintf("ProofKind(%d)", uint8(k))
}

// KindOf is the variant a tree of shape s proves with.
func KindOf(s merkle.Shape) ProofKind {
	switch {
	case s.Sub == 0:
		return KindSingle
	case s.Top == 0:
		return KindSub
	}
	return KindTop
}

// PathElement is one level of an inclusion path: Index is the node's
// position among its parent's children, Siblings (serde "hashes") the other
// children in order.
type PathElement = merkle.PathElement

// MerkleProof is storage-proofs-core's MerkleProof: the base-tree path (for
// Single, the whole path), the sub-tree path and the top-tree path, each
// bottom-up. Sub is empty for KindSingle, Top empty unless KindTop.
type MerkleProof struct {
	Kind ProofKind
	Base []PathElement
	Sub  []PathElement
	Top  []PathElement
	Root hash.Domain
	Leaf hash.Domain
}

// Native is the proof as hash/merkle checks it: one bottom-up path, base
// levels then sub then top. The path elements share their siblings with m.
func (m *MerkleProof) Native() *merkle.Proof {
	path := make([]merkle.PathElement, 0, len(m.Base)+len(m.Sub)+len(m.Top))
	path = append(path, m.Base...)
	path = append(path, m.Sub...)
	path = append(path, m.Top...)
	return &merkle.Proof{Leaf: m.Leaf, Path: path, Root: m.Root}
}

// LeafIndex is the opened leaf's index: the path indexes read as
// little-endian digits in their levels' arities.
func (m *MerkleProof) LeafIndex() uint64 {
	var idx, scale uint64 = 0, 1
	for _, part := range [3][]PathElement{m.Base, m.Sub, m.Top} {
		for _, e := range part {
			idx += uint64(e.Index) * scale
			scale *= uint64(e.Arity())
		}
	}
	return idx
}

// Levels is the number of path elements over all layers.
func (m *MerkleProof) Levels() int { return len(m.Base) + len(m.Sub) + len(m.Top) }

// FromNative sets m to the serde form of p for a tree of the given shape:
// the last element is the top level when shape has one, the one before it
// (or the last) the sub level when shape has one, the rest the base path.
// m shares p's siblings.
func (m *MerkleProof) FromNative(p *merkle.Proof, shape merkle.Shape) error {
	if err := shape.Validate(); err != nil {
		return err
	}
	base := len(p.Path)
	kind := KindOf(shape)
	if kind >= KindSub {
		base--
	}
	if kind == KindTop {
		base--
	}
	if base < 1 {
		return fmt.Errorf("%w: %d path elements cannot fill shape %s", merkle.ErrShape, len(p.Path), shape)
	}
	*m = MerkleProof{Kind: kind, Base: p.Path[:base:base], Root: p.Root, Leaf: p.Leaf}
	if kind >= KindSub {
		m.Sub = p.Path[base : base+1 : base+1]
	}
	if kind == KindTop {
		m.Top = p.Path[base+1 : base+2 : base+2]
	}
	return nil
}
