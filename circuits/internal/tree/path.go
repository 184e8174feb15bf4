package tree

import (
	"fmt"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	gmerkle "github.com/cuzk-project/cuzk/gadgets/merkle"
)

// BlankPath is the path of the given arities with index 0 and zero
// siblings at every level (a blank circuit's). Levels of one arity share
// their zero siblings: the path must not be modified.
func BlankPath(arities []int) []gmerkle.PathElement {
	sib := BlankSiblings(arities)
	path := make([]gmerkle.PathElement, len(arities))
	for l := range path {
		path[l] = gmerkle.PathElement{Siblings: sib[l]}
	}
	return path
}

// BlankSiblings is the zero siblings of every level of a path of the given
// arities, shared between levels of one arity: they must not be modified.
func BlankSiblings(arities []int) [][]fr.Element {
	zeros := make(map[int][]fr.Element)
	sib := make([][]fr.Element, len(arities))
	for l, a := range arities {
		if zeros[a] == nil {
			zeros[a] = make([]fr.Element, a-1)
		}
		sib[l] = zeros[a]
	}
	return sib
}

// CheckPath checks, wrapping errShape, that path has one level per arity,
// arity − 1 siblings at each and an index below the arity.
func CheckPath(errShape error, path []gmerkle.PathElement, arities []int) error {
	if len(path) != len(arities) {
		return levelsError(errShape, len(path), len(arities))
	}
	for l, e := range path {
		if err := siblingsError(errShape, l, len(e.Siblings), arities[l]); err != nil {
			return err
		}
		if e.Index < 0 || e.Index >= arities[l] {
			return fmt.Errorf("%w: level %d index %d of arity %d", errShape, l, e.Index, arities[l])
		}
	}
	return nil
}

// CheckSiblings is CheckPath for a path given as its siblings alone (the
// index comes from the challenge).
func CheckSiblings(errShape error, path [][]fr.Element, arities []int) error {
	if len(path) != len(arities) {
		return levelsError(errShape, len(path), len(arities))
	}
	for l, sib := range path {
		if err := siblingsError(errShape, l, len(sib), arities[l]); err != nil {
			return err
		}
	}
	return nil
}

func levelsError(errShape error, got, want int) error {
	return fmt.Errorf("%w: %d levels, want %d", errShape, got, want)
}

func siblingsError(errShape error, level, siblings, arity int) error {
	if siblings+1 == arity {
		return nil
	}
	return fmt.Errorf("%w: level %d has %d siblings, want %d", errShape, level, siblings, arity-1)
}
