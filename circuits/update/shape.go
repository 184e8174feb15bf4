package update

import (
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-project/cuzk/circuits/internal/shape"
	"github.com/cuzk-project/cuzk/gadgets/num"
	"github.com/cuzk-project/cuzk/gadgets/sha256"
	"github.com/cuzk-project/cuzk/r1cs"
)

var (
	shapes   shape.Memo[Config]
	oneValue = fr.One()
)

// Shape is the size of the system r1cs.Synthesize builds from a partition
// of shape c: inputs with ONE, aux variables, and rows with the input rows
// appended. Every challenge has the same rows and variables, and so has
// every SHA-254 hash of the apex tree, so it counts the partition's own part
// without the apex tree, one challenge and one apex hash, and extrapolates
// (about 1/50 of a 32 GiB partition); results are cached per configuration.
func (c Config) Shape() (r1cs.Shape, error) { return shapes.Shape(c, Config.count) }

// count is Shape without ONE and the input rows, for a valid c.
func (c Config) count() (r1cs.Shape, error) {
	p := BlankConfig(c)
	p.countOnly = true
	s, err := shape.Units(p.synthesize, c.Challenges())
	if err != nil {
		return r1cs.Shape{}, err
	}
	leaves := r1cs.Shape{Aux: 2} // the two hashed nodes
	withHash, err := shape.Count(func(cs r1cs.ConstraintSystem) error {
		sha256.HashMultiLeaf(cs, []num.AllocatedNum{num.Alloc(cs, oneValue), num.Alloc(cs, oneValue)})
		return nil
	})
	if err != nil {
		return r1cs.Shape{}, err
	}
	return shape.Add(s, shape.Diff(leaves, withHash), c.ApexLeaves()-1), nil
}
