package synthetic

import (
	"errors"
	"fmt"
	"math"
)

// ErrBadConfig is returned (wrapped) for a Config that cannot describe a
// circuit.
var ErrBadConfig = errors.New("synthetic: bad config")

// MaxConstraints bounds Config.Constraints (a 2^28 domain is far above any
// Filecoin circuit).
const MaxConstraints = 1 << 28

// Config describes one synthetic circuit.
type Config struct {
	// Constraints is the total number of rows after r1cs.Synthesize:
	// circuit constraints + Inputs + 1 input constraints.
	Constraints int
	// Inputs is the number of public inputs, ONE excluded.
	Inputs int
	// BoolFraction is the fraction of aux values drawn from {0, 1}.
	BoolFraction float64
	// ADensity and BDensity are the fractions of aux variables that appear
	// in some A (resp. B) linear combination with a non-zero coefficient.
	ADensity, BDensity float64
	// Seed selects the circuit; equal configs give equal assignments.
	Seed uint64
}

// Default returns a PoRep-partition-like config with the given total row
// count: a few public inputs, 75 % boolean aux values, A-aux density
// 99.7 %, B-aux density 25 %.
func Default(constraints int) Config {
	return Config{
		Constraints:  constraints,
		Inputs:       7,
		BoolFraction: 0.75,
		ADensity:     0.997,
		BDensity:     0.25,
		Seed:         1,
	}
}

// Validate reports what is wrong with c, wrapping ErrBadConfig.
func (c Config) Validate() error {
	if c.Inputs < 0 {
		return fmt.Errorf("%w: Inputs = %d is negative", ErrBadConfig, c.Inputs)
	}
	if c.Constraints < c.Inputs+1 {
		return fmt.Errorf("%w: Constraints = %d is less than the %d input constraints (Inputs + ONE)",
			ErrBadConfig, c.Constraints, c.Inputs+1)
	}
	if c.Constraints > MaxConstraints {
		return fmt.Errorf("%w: Constraints = %d exceeds %d", ErrBadConfig, c.Constraints, MaxConstraints)
	}
	for _, f := range []struct {
		name string
		v    float64
	}{{"BoolFraction", c.BoolFraction}, {"ADensity", c.ADensity}, {"BDensity", c.BDensity}} {
		if math.IsNaN(f.v) || f.v < 0 || f.v > 1 {
			return fmt.Errorf("%w: %s = %v is outside [0, 1]", ErrBadConfig, f.name, f.v)
		}
	}
	return nil
}

// CircuitConstraints is the number of rows the circuit itself enforces.
func (c Config) CircuitConstraints() int { return c.Constraints - c.Inputs - 1 }

// Shape is the exact size of a synthesized circuit.
type Shape struct {
	Rows          int // constraints after r1cs.Synthesize (= Config.Constraints)
	Inputs        int // ONE included
	Aux           int
	Bools         int // aux values in {0, 1}
	ADensityAux   int // popcount of the A-aux density
	BDensityInput int // popcount of the B-input density
	BDensityAux   int // popcount of the B-aux density
}

// Shape computes c's exact counts by replaying its per-variable decisions
// (no field arithmetic). c must be valid.
func (c Config) Shape() Shape {
	n := c.CircuitConstraints()
	s := Shape{Rows: c.Constraints, Inputs: c.Inputs + 1, Aux: n}
	if n > 0 {
		s.BDensityInput = 1 // ONE is in every circuit row's B
	}
	t := c.thresholds()
	for j := 0; j < n; j++ {
		d := t.decide(c.Seed, j)
		if d.isBool {
			s.Bools++
		}
		if d.inA {
			s.ADensityAux++
		}
		if d.inB {
			s.BDensityAux++
		}
	}
	return s
}
