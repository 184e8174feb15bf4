package porep

import (
	"github.com/cuzk-project/cuzk/circuits/internal/shape"
	"github.com/cuzk-project/cuzk/r1cs"
)

var shapes shape.Memo[Config]

// Shape is the size of the system r1cs.Synthesize builds from a partition
// of shape c: inputs with ONE, aux variables, and rows with the input rows
// appended. Every challenge has the same rows and variables, so it counts
// the partition's own part and one challenge (1/18 of a 32 GiB partition,
// seconds) and extrapolates; results are cached per configuration. Use it as
// a capacity hint or for memory estimates.
func (c Config) Shape() (r1cs.Shape, error) { return shapes.Shape(c, Config.count) }

// count is Shape without ONE and the input rows, for a valid c.
func (c Config) count() (r1cs.Shape, error) {
	one := c
	one.Challenges = 1
	return shape.Units(BlankConfig(one).synthesize, c.Challenges)
}
