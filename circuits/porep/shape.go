package porep

import (
	"sync"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-project/cuzk/r1cs"
)

var (
	shapes   sync.Map // Config → r1cs.Shape
	oneValue = fr.One()
)

// Shape is the size of the system r1cs.Synthesize builds from a partition
// of shape c: inputs with ONE, aux variables, and rows with the input rows
// appended. Every challenge has the same rows and variables, so it counts
// the partition's own part and one challenge (1/18 of a 32 GiB partition,
// seconds) and extrapolates; results are cached per configuration. Use it as
// a capacity hint or for memory estimates.
func (c Config) Shape() (r1cs.Shape, error) {
	if s, ok := shapes.Load(c); ok {
		return s.(r1cs.Shape), nil
	}
	if err := c.Validate(); err != nil {
		return r1cs.Shape{}, err
	}
	one := c
	one.Challenges = 1
	p := BlankConfig(one)
	var base, first r1cs.Counter
	base.AllocInput(oneValue)
	if err := p.synthesize(&base, 0); err != nil {
		return r1cs.Shape{}, err
	}
	first.AllocInput(oneValue)
	if err := p.synthesize(&first, 1); err != nil {
		return r1cs.Shape{}, err
	}
	n := c.Challenges
	s := r1cs.Shape{
		Inputs:      base.Inputs + n*(first.Inputs-base.Inputs),
		Aux:         base.Aux + n*(first.Aux-base.Aux),
		Constraints: base.Constraints + n*(first.Constraints-base.Constraints),
	}
	s.Constraints += s.Inputs // the input rows r1cs.Finalize appends
	shapes.Store(c, s)
	return s, nil
}
