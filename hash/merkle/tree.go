package merkle

import (
	"errors"
	"fmt"

	"github.com/cuzk-project/cuzk/hash"
)

// ErrShape reports a tree shape or leaf count the tree cannot be built with.
var ErrShape = errors.New("merkle: bad tree shape")

// Shape is a tree's arities, bottom to top: Base for the base trees, Sub for
// the layer that joins base trees (0: none), Top for the layer that joins
// sub trees (0: none; requires Sub > 0).
type Shape struct{ Base, Sub, Top int }

// The shapes Filecoin uses.
var (
	ShapeBinary = Shape{Base: 2} // tree D (SHA-254)
	Shape800    = Shape{Base: 8}
	Shape880    = Shape{Base: 8, Sub: 8}
	Shape882    = Shape{Base: 8, Sub: 8, Top: 2}
)

func (s Shape) String() string { return fmt.Sprintf("%d-%d-%d", s.Base, s.Sub, s.Top) }

// BaseTrees is the number of base trees: Sub·Top with absent layers as 1.
func (s Shape) BaseTrees() int {
	n := 1
	if s.Sub > 0 {
		n *= s.Sub
	}
	if s.Top > 0 {
		n *= s.Top
	}
	return n
}

func isPow2(n int) bool { return n > 0 && n&(n-1) == 0 }

// Validate checks that every arity present is a power of two ≥ 2 and a top
// layer has a sub layer under it.
func (s Shape) Validate() error {
	if s.Base < 2 || !isPow2(s.Base) {
		return fmt.Errorf("%w: %s: base arity must be a power of two ≥ 2", ErrShape, s)
	}
	for _, a := range []int{s.Sub, s.Top} {
		if a != 0 && (a < 2 || !isPow2(a)) {
			return fmt.Errorf("%w: %s: arities must be 0 or a power of two ≥ 2", ErrShape, s)
		}
	}
	if s.Top > 0 && s.Sub == 0 {
		return fmt.Errorf("%w: %s: a top layer needs a sub layer", ErrShape, s)
	}
	return nil
}

// BaseLevels is the number of base-tree levels above the leaves for a tree
// of `leaves` leaves, or an error when the leaves do not fill the shape.
func (s Shape) BaseLevels(leaves int) (int, error) {
	if err := s.Validate(); err != nil {
		return 0, err
	}
	n := s.BaseTrees()
	if leaves <= 0 || leaves%n != 0 {
		return 0, fmt.Errorf("%w: %s: %d leaves do not split into %d base trees", ErrShape, s, leaves, n)
	}
	per, levels := leaves/n, 0
	for per > 1 {
		if per%s.Base != 0 {
			return 0, fmt.Errorf("%w: %s: %d leaves per base tree is not a power of %d", ErrShape, s, leaves/n, s.Base)
		}
		per /= s.Base
		levels++
	}
	if levels == 0 {
		return 0, fmt.Errorf("%w: %s: base trees need at least %d leaves", ErrShape, s, s.Base)
	}
	return levels, nil
}

// Tree is a fully built tree held in memory: every level of every base tree,
// the sub-tree roots and the root.
type Tree struct {
	shape    Shape
	hasher   Hasher
	leaves   int
	base     [][][]hash.Domain // base[b][level][i]; level 0 = leaves
	subRoots []hash.Domain     // one per group of Sub base trees (Top > 0 only)
	root     hash.Domain
}

// NewSha254 builds tree D: a binary SHA-254 tree.
func NewSha254(leaves []hash.Domain) (*Tree, error) {
	return New(Sha254{}, ShapeBinary, leaves)
}

// NewPoseidon builds a Poseidon tree of the given shape.
func NewPoseidon(shape Shape, leaves []hash.Domain) (*Tree, error) {
	return New(Poseidon{}, shape, leaves)
}

// New builds a tree of shape over leaves with h. The leaves are copied.
func New(h Hasher, shape Shape, leaves []hash.Domain) (*Tree, error) {
	levels, err := shape.BaseLevels(len(leaves))
	if err != nil {
		return nil, err
	}
	t := &Tree{shape: shape, hasher: h, leaves: len(leaves)}
	nb := shape.BaseTrees()
	per := len(leaves) / nb
	roots := make([]hash.Domain, nb)
	for b := range nb {
		lv := make([][]hash.Domain, levels+1)
		lv[0] = append([]hash.Domain(nil), leaves[b*per:(b+1)*per]...)
		for l := 1; l <= levels; l++ {
			below := lv[l-1]
			cur := make([]hash.Domain, len(below)/shape.Base)
			for i := range cur {
				if cur[i], err = h.Node(below[i*shape.Base : (i+1)*shape.Base]); err != nil {
					return nil, fmt.Errorf("merkle: base tree %d level %d node %d: %w", b, l, i, err)
				}
			}
			lv[l] = cur
		}
		t.base = append(t.base, lv)
		roots[b] = lv[levels][0]
	}
	switch {
	case shape.Sub == 0:
		t.root = roots[0]
	default:
		groups := nb / shape.Sub
		t.subRoots = make([]hash.Domain, groups)
		for g := range groups {
			if t.subRoots[g], err = h.Node(roots[g*shape.Sub : (g+1)*shape.Sub]); err != nil {
				return nil, fmt.Errorf("merkle: sub tree %d: %w", g, err)
			}
		}
		if shape.Top == 0 {
			t.root = t.subRoots[0]
		} else if t.root, err = h.Node(t.subRoots); err != nil {
			return nil, fmt.Errorf("merkle: top: %w", err)
		}
	}
	return t, nil
}

// Root is the tree's root.
func (t *Tree) Root() hash.Domain { return t.root }

// Leaves is the number of leaves.
func (t *Tree) Leaves() int { return t.leaves }

// Shape is the tree's shape.
func (t *Tree) Shape() Shape { return t.shape }

// Leaf returns leaf i.
func (t *Tree) Leaf(i int) (hash.Domain, error) {
	if i < 0 || i >= t.leaves {
		return hash.Domain{}, fmt.Errorf("merkle: leaf %d out of range [0, %d)", i, t.leaves)
	}
	per := t.leaves / len(t.base)
	return t.base[i/per][0][i%per], nil
}

// Prove returns the inclusion proof of leaf i.
func (t *Tree) Prove(i int) (*Proof, error) {
	leaf, err := t.Leaf(i)
	if err != nil {
		return nil, err
	}
	per := t.leaves / len(t.base)
	b, j := i/per, i%per
	p := &Proof{Leaf: leaf, Root: t.root}
	lv := t.base[b]
	for l := 0; l+1 < len(lv); l++ {
		p.Path = append(p.Path, siblings(lv[l], j, t.shape.Base))
		j /= t.shape.Base
	}
	if t.shape.Sub > 0 {
		g := b / t.shape.Sub
		roots := make([]hash.Domain, t.shape.Sub)
		for k := range roots {
			bt := t.base[g*t.shape.Sub+k]
			roots[k] = bt[len(bt)-1][0]
		}
		p.Path = append(p.Path, siblings(roots, b%t.shape.Sub, t.shape.Sub))
		if t.shape.Top > 0 {
			p.Path = append(p.Path, siblings(t.subRoots, g, t.shape.Top))
		}
	}
	return p, nil
}

// siblings is the path element of node j in row: the other arity − 1
// children of j's parent, in order.
func siblings(row []hash.Domain, j, arity int) PathElement {
	start := j / arity * arity
	e := PathElement{Index: j % arity, Siblings: make([]hash.Domain, 0, arity-1)}
	for k := start; k < start+arity; k++ {
		if k != j {
			e.Siblings = append(e.Siblings, row[k])
		}
	}
	return e
}
