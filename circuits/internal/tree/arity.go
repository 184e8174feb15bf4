package tree

import (
	"fmt"

	hmerkle "github.com/cuzk-project/cuzk/hash/merkle"
)

// Arities is the arity of every level of a path of a tree of shape s over
// nodes leaves, bottom up: the base levels, then the sub and top levels
// where s has them. It is nil when the leaves do not fill s.
func Arities(s hmerkle.Shape, nodes uint64) []int {
	base, err := s.BaseLevels(int(nodes))
	if err != nil {
		return nil
	}
	a := make([]int, 0, base+2)
	for range base {
		a = append(a, s.Base)
	}
	if s.Sub > 0 {
		a = append(a, s.Sub)
	}
	if s.Top > 0 {
		a = append(a, s.Top)
	}
	return a
}

// Binary is the arities of a binary tree's path of levels levels (tree D).
func Binary(levels int) []int {
	a := make([]int, levels)
	for i := range a {
		a[i] = 2
	}
	return a
}

// CheckSector checks, wrapping errShape, that a sector of nodes leaves has
// a tree of shape s: a power of two in [2, 2^40] that fills s.
func CheckSector(errShape error, nodes uint64, s hmerkle.Shape) error {
	if nodes < 2 || nodes&(nodes-1) != 0 || nodes > 1<<40 {
		return fmt.Errorf("%w: %d nodes is not a power of two in [2, 2^40]", errShape, nodes)
	}
	if _, err := s.BaseLevels(int(nodes)); err != nil {
		return fmt.Errorf("%w: tree R: %w", errShape, err)
	}
	return nil
}
