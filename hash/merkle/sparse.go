package merkle

import (
	"fmt"
	"runtime"
	"slices"
	"sync"

	"github.com/cuzk-project/cuzk/hash"
)

// Sparse is a tree in which only some leaves are set and every other leaf is
// zero. It holds only the nodes above set leaves; every other node is the
// empty-subtree digest of its level (EmptyDigests), so a sector-sized tree
// with a few thousand set leaves costs a few thousand hashes per level.
//
// Its root and proofs are those of the full Tree over the same leaves (zero
// where unset): the same shape, the same level order (base levels, then the
// sub and top layers) and the same path layout, so Proof.Verify accepts them.
type Sparse struct {
	hasher  Hasher
	shape   Shape
	leaves  uint64
	arities []int                    // per level above the leaves, bottom up
	empty   []hash.Domain            // empty[l]: an all-zero subtree's digest at level l
	nodes   []map[uint64]hash.Domain // nodes[l]: the non-empty-path nodes of level l (0 = leaves)
}

// NewSparse builds a tree of shape over `leaves` leaves with h, of which
// those in set are given and the rest are zero. The hashing of each level is
// spread over GOMAXPROCS goroutines, which all return before NewSparse does.
func NewSparse(h Hasher, shape Shape, leaves uint64, set map[uint64]hash.Domain) (*Sparse, error) {
	ar, err := levelArities(shape, leaves)
	if err != nil {
		return nil, err
	}
	empty, err := emptyDigests(h, ar)
	if err != nil {
		return nil, err
	}
	s := &Sparse{hasher: h, shape: shape, leaves: leaves, arities: ar, empty: empty,
		nodes: make([]map[uint64]hash.Domain, len(ar)+1)}
	s.nodes[0] = make(map[uint64]hash.Domain, len(set))
	for i, v := range set {
		if i >= leaves {
			return nil, fmt.Errorf("merkle: sparse leaf %d out of range [0, %d)", i, leaves)
		}
		s.nodes[0][i] = v
	}
	for l, a := range ar {
		if s.nodes[l+1], err = s.hashLevel(l, a); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// hashLevel computes level l+1's nodes above level l's set nodes.
func (s *Sparse) hashLevel(l, arity int) (map[uint64]hash.Domain, error) {
	below := s.nodes[l]
	parents := make([]uint64, 0, len(below))
	for j := range below {
		parents = append(parents, j/uint64(arity))
	}
	slices.Sort(parents)
	parents = slices.Compact(parents)
	digests := make([]hash.Domain, len(parents))

	workers := min(runtime.GOMAXPROCS(0), (len(parents)+63)/64)
	errs := make([]error, max(workers, 1))
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			children := make([]hash.Domain, arity)
			for k := w; k < len(parents); k += workers {
				s.children(l, parents[k], arity, children)
				d, err := s.hasher.Node(children)
				if err != nil {
					errs[w] = fmt.Errorf("merkle: sparse level %d node %d: %w", l+1, parents[k], err)
					return
				}
				digests[k] = d
			}
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	out := make(map[uint64]hash.Domain, len(parents))
	for k, p := range parents {
		out[p] = digests[k]
	}
	return out, nil
}

// children fills out with the arity children, at level l, of node p of level l+1.
func (s *Sparse) children(l int, p uint64, arity int, out []hash.Domain) {
	for i := range arity {
		out[i] = s.node(l, p*uint64(arity)+uint64(i))
	}
}

func (s *Sparse) node(l int, j uint64) hash.Domain {
	if d, ok := s.nodes[l][j]; ok {
		return d
	}
	return s.empty[l]
}

// Root is the tree's root.
func (s *Sparse) Root() hash.Domain { return s.node(len(s.arities), 0) }

// Leaves is the number of leaves.
func (s *Sparse) Leaves() uint64 { return s.leaves }

// Shape is the tree's shape.
func (s *Sparse) Shape() Shape { return s.shape }

// Leaf returns leaf i (zero when it was not set).
func (s *Sparse) Leaf(i uint64) (hash.Domain, error) {
	if i >= s.leaves {
		return hash.Domain{}, fmt.Errorf("merkle: leaf %d out of range [0, %d)", i, s.leaves)
	}
	return s.node(0, i), nil
}

// Prove returns the inclusion proof of leaf i, set or not.
func (s *Sparse) Prove(i uint64) (*Proof, error) {
	leaf, err := s.Leaf(i)
	if err != nil {
		return nil, err
	}
	p := &Proof{Leaf: leaf, Root: s.Root(), Path: make([]PathElement, len(s.arities))}
	j := i
	for l, a := range s.arities {
		start := j / uint64(a) * uint64(a)
		e := PathElement{Index: int(j - start), Siblings: make([]hash.Domain, 0, a-1)}
		for k := start; k < start+uint64(a); k++ {
			if k != j {
				e.Siblings = append(e.Siblings, s.node(l, k))
			}
		}
		p.Path[l] = e
		j /= uint64(a)
	}
	return p, nil
}
