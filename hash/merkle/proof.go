package merkle

import (
	"errors"
	"fmt"

	"github.com/cuzk-project/cuzk/hash"
)

// ErrBadProof reports an inclusion proof that does not hash to its root or
// does not fit the expected shape.
var ErrBadProof = errors.New("merkle: bad inclusion proof")

// PathElement is one level of an inclusion proof: the node's position among
// its parent's children and the other children in order.
type PathElement struct {
	Index    int
	Siblings []hash.Domain
}

// Arity is the number of children at this level.
func (e PathElement) Arity() int { return len(e.Siblings) + 1 }

// Proof is an inclusion proof of Leaf under Root, path from the bottom up.
type Proof struct {
	Leaf hash.Domain
	Path []PathElement
	Root hash.Domain
}

// LeafIndex is the leaf's index in the tree: the path indexes read as
// little-endian digits in their levels' arities.
func (p *Proof) LeafIndex() uint64 {
	var idx, scale uint64 = 0, 1
	for _, e := range p.Path {
		idx += uint64(e.Index) * scale
		scale *= uint64(e.Arity())
	}
	return idx
}

// CheckShape verifies that the path has the levels of a tree of shape with
// `leaves` leaves: BaseLevels elements of arity Base, then one of Sub, then
// one of Top.
func (p *Proof) CheckShape(shape Shape, leaves int) error {
	levels, err := shape.BaseLevels(leaves)
	if err != nil {
		return err
	}
	want := make([]int, 0, levels+2)
	for range levels {
		want = append(want, shape.Base)
	}
	for _, a := range []int{shape.Sub, shape.Top} {
		if a > 0 {
			want = append(want, a)
		}
	}
	if len(p.Path) != len(want) {
		return fmt.Errorf("%w: %d path elements, shape %s with %d leaves needs %d", ErrBadProof, len(p.Path), shape, leaves, len(want))
	}
	for l, a := range want {
		if p.Path[l].Arity() != a {
			return fmt.Errorf("%w: level %d has %d siblings, want %d", ErrBadProof, l, len(p.Path[l].Siblings), a-1)
		}
	}
	return nil
}

// ComputeRoot hashes the leaf up the path with h.
func (p *Proof) ComputeRoot(h Hasher) (hash.Domain, error) {
	cur := p.Leaf
	var children []hash.Domain
	for l, e := range p.Path {
		a := e.Arity()
		if e.Index < 0 || e.Index >= a {
			return hash.Domain{}, fmt.Errorf("%w: level %d index %d out of range [0, %d)", ErrBadProof, l, e.Index, a)
		}
		children = append(children[:0], e.Siblings[:e.Index]...)
		children = append(children, cur)
		children = append(children, e.Siblings[e.Index:]...)
		next, err := h.Node(children)
		if err != nil {
			return hash.Domain{}, fmt.Errorf("%w: level %d: %w", ErrBadProof, l, err)
		}
		cur = next
	}
	return cur, nil
}

// Verify checks that the leaf hashes up the path to Root with h.
func (p *Proof) Verify(h Hasher) error {
	got, err := p.ComputeRoot(h)
	if err != nil {
		return err
	}
	if got != p.Root {
		return fmt.Errorf("%w: %s path computes root %s, proof claims %s", ErrBadProof, h.Name(), got, p.Root)
	}
	return nil
}
