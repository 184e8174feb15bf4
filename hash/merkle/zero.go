package merkle

import (
	"fmt"
	"math"

	"github.com/cuzk-project/cuzk/hash"
)

// levelArities lists the arity of every level above the leaves of a tree of
// shape with `leaves` leaves, bottom up: BaseLevels times Base, then Sub and
// Top where present. It is the order Tree hashes and Proof paths run in.
func levelArities(shape Shape, leaves uint64) ([]int, error) {
	if leaves > math.MaxInt {
		return nil, fmt.Errorf("%w: %s: %d leaves", ErrShape, shape, leaves)
	}
	levels, err := shape.BaseLevels(int(leaves))
	if err != nil {
		return nil, err
	}
	a := make([]int, 0, levels+2)
	for range levels {
		a = append(a, shape.Base)
	}
	for _, x := range []int{shape.Sub, shape.Top} {
		if x > 0 {
			a = append(a, x)
		}
	}
	return a, nil
}

// EmptyDigests returns the digest of an all-zero subtree at every level of a
// tree of shape with `leaves` leaves: d[0] is the zero leaf and d[l] is h of
// arity(l) copies of d[l−1], so d[len(d)−1] is the root of the all-zero tree.
//
// For tree D (Sha254, ShapeBinary) d[h] is the commitment of an all-zero
// piece of 32·2^h bytes, the comm_d of an empty sector of that size.
func EmptyDigests(h Hasher, shape Shape, leaves uint64) ([]hash.Domain, error) {
	ar, err := levelArities(shape, leaves)
	if err != nil {
		return nil, err
	}
	return emptyDigests(h, ar)
}

func emptyDigests(h Hasher, arities []int) ([]hash.Domain, error) {
	d := make([]hash.Domain, len(arities)+1)
	var children []hash.Domain
	for l, a := range arities {
		children = children[:0]
		for range a {
			children = append(children, d[l])
		}
		var err error
		if d[l+1], err = h.Node(children); err != nil {
			return nil, fmt.Errorf("merkle: empty %s digest at level %d: %w", h.Name(), l+1, err)
		}
	}
	return d, nil
}
