package post

import (
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-project/cuzk/circuits/internal/shape"
	"github.com/cuzk-project/cuzk/r1cs"
)

var (
	shapes   shape.Memo[Config]
	oneValue = fr.One()
)

// Shape is the size of the system r1cs.Synthesize builds from a partition
// of shape c: inputs with ONE, aux variables, and rows with the input rows
// appended. Every circuit sector has the same rows and variables, and so
// has every challenge of a sector, so it counts one sector with one and
// with two challenges and extrapolates (milliseconds, where a 32 GiB
// WindowPoSt count takes minutes); results are cached per configuration.
func (c Config) Shape() (r1cs.Shape, error) { return shapes.Shape(c, Config.count) }

// count is Shape without ONE and the input rows: Sectors circuit sectors
// of Challenges challenges each (a partition has nothing of its own). c is
// valid.
func (c Config) count() (r1cs.Shape, error) {
	sector, challenge, err := c.sectorShape()
	if err != nil {
		return r1cs.Shape{}, err
	}
	return shape.Add(r1cs.Shape{}, shape.Add(sector, challenge, c.Challenges), c.Sectors), nil
}

// sectorShape counts what one circuit sector adds without its challenges,
// and what each challenge adds (no ONE and no input rows in either).
func (c Config) sectorShape() (sector, challenge r1cs.Shape, err error) {
	if err := c.Validate(); err != nil {
		return sector, challenge, err
	}
	count := func(challenges int) (r1cs.Shape, error) {
		one := c
		one.Sectors, one.Challenges = 1, challenges
		return shape.Count(func(cs r1cs.ConstraintSystem) error { return BlankConfig(one).synthesize(cs, 0, 1) })
	}
	one, err := count(1)
	if err != nil {
		return sector, challenge, err
	}
	two, err := count(2)
	if err != nil {
		return sector, challenge, err
	}
	challenge = shape.Diff(one, two)
	return shape.Diff(challenge, one), challenge, nil
}
