package update

import (
	"sync"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-project/cuzk/gadgets/num"
	"github.com/cuzk-project/cuzk/gadgets/sha256"
	"github.com/cuzk-project/cuzk/r1cs"
)

var (
	shapes   sync.Map // Config → r1cs.Shape
	oneValue = fr.One()
)

// Shape is the size of the system r1cs.Synthesize builds from a partition
// of shape c: inputs with ONE, aux variables, and rows with the input rows
// appended. Every challenge has the same rows and variables, and so has
// every SHA-254 hash of the apex tree, so it counts the partition's own part
// without the apex tree, one challenge and one apex hash, and extrapolates
// (about 1/50 of a 32 GiB partition); results are cached per configuration.
func (c Config) Shape() (r1cs.Shape, error) {
	if s, ok := shapes.Load(c); ok {
		return s.(r1cs.Shape), nil
	}
	if err := c.Validate(); err != nil {
		return r1cs.Shape{}, err
	}
	p := BlankConfig(c)
	p.countOnly = true
	var base, first, apex r1cs.Counter
	base.AllocInput(oneValue)
	if err := p.synthesize(&base, 0); err != nil {
		return r1cs.Shape{}, err
	}
	first.AllocInput(oneValue)
	if err := p.synthesize(&first, 1); err != nil {
		return r1cs.Shape{}, err
	}
	apex.AllocInput(oneValue)
	sha256.HashMultiLeaf(&apex, []num.AllocatedNum{num.Alloc(&apex, oneValue), num.Alloc(&apex, oneValue)})
	apex.Aux -= 2 // the leaves
	apex.Inputs--
	n, h := c.Challenges(), c.ApexLeaves()-1
	s := r1cs.Shape{
		Inputs:      base.Inputs + n*(first.Inputs-base.Inputs),
		Aux:         base.Aux + n*(first.Aux-base.Aux) + h*apex.Aux,
		Constraints: base.Constraints + n*(first.Constraints-base.Constraints) + h*apex.Constraints,
	}
	s.Constraints += s.Inputs // the input rows r1cs.Finalize appends
	shapes.Store(c, s)
	return s, nil
}
