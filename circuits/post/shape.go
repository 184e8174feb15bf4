package post

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
// appended. Every circuit sector has the same rows and variables, and so
// has every challenge of a sector, so it counts one sector with one and
// with two challenges and extrapolates (milliseconds, where a 32 GiB
// WindowPoSt count takes minutes); results are cached per configuration.
func (c Config) Shape() (r1cs.Shape, error) {
	if s, ok := shapes.Load(c); ok {
		return s.(r1cs.Shape), nil
	}
	sector, challenge, err := c.sectorShape()
	if err != nil {
		return r1cs.Shape{}, err
	}
	n, ch := c.Sectors, c.Challenges
	s := r1cs.Shape{
		Inputs:      1 + n*(sector.Inputs+ch*challenge.Inputs),
		Aux:         n * (sector.Aux + ch*challenge.Aux),
		Constraints: n * (sector.Constraints + ch*challenge.Constraints),
	}
	s.Constraints += s.Inputs // the input rows r1cs.Finalize appends
	shapes.Store(c, s)
	return s, nil
}

// sectorShape counts what one circuit sector adds without its challenges,
// and what each challenge adds (no input rows in either).
func (c Config) sectorShape() (sector, challenge r1cs.Shape, err error) {
	if err := c.Validate(); err != nil {
		return sector, challenge, err
	}
	count := func(challenges int) (r1cs.Shape, error) {
		one := c
		one.Sectors, one.Challenges = 1, challenges
		var cnt r1cs.Counter
		if err := BlankConfig(one).synthesize(&cnt, 0, 1); err != nil {
			return r1cs.Shape{}, err
		}
		return r1cs.Shape{Inputs: cnt.Inputs, Aux: cnt.Aux, Constraints: cnt.Constraints}, nil
	}
	one, err := count(1)
	if err != nil {
		return sector, challenge, err
	}
	two, err := count(2)
	if err != nil {
		return sector, challenge, err
	}
	challenge = r1cs.Shape{Inputs: two.Inputs - one.Inputs, Aux: two.Aux - one.Aux, Constraints: two.Constraints - one.Constraints}
	sector = r1cs.Shape{Inputs: one.Inputs - challenge.Inputs, Aux: one.Aux - challenge.Aux, Constraints: one.Constraints - challenge.Constraints}
	return sector, challenge, nil
}
