package groth16

import (
	"fmt"

	"github.com/cuzk-project/cuzk/r1cs"
)

// Shape is what a circuit fixes about its parameters. Inputs counts ONE;
// Constraints counts every row, the input constraints included.
type Shape struct {
	Inputs, Aux                                      int
	ADensityAuxPop, BDensityInputPop, BDensityAuxPop int
	Constraints                                      int
}

// ShapeOfAssignment reads the shape of a synthesized assignment.
func ShapeOfAssignment(a *Assignment) Shape {
	s := Shape{Inputs: len(a.Input), Aux: len(a.Aux), Constraints: a.NumConstraints()}
	if a.ADensityAux != nil {
		s.ADensityAuxPop = a.ADensityAux.PopCount()
	}
	if a.BDensityInput != nil {
		s.BDensityInputPop = a.BDensityInput.PopCount()
	}
	if a.BDensityAux != nil {
		s.BDensityAuxPop = a.BDensityAux.PopCount()
	}
	return s
}

// ShapeOfCounter reads the shape counted by c (run it through
// r1cs.Synthesize so that ONE and the input constraints are counted).
func ShapeOfCounter(c *r1cs.Counter) Shape {
	return Shape{
		Inputs:           c.Inputs,
		Aux:              c.Aux,
		ADensityAuxPop:   c.ADensityAuxCount(),
		BDensityInputPop: c.BDensityInputCount(),
		BDensityAuxPop:   c.BDensityAuxCount(),
		Constraints:      c.Constraints,
	}
}

// DomainSize is m, the smallest power of two ≥ Constraints (at least 1):
// r1cs.DomainSize.
func (s Shape) DomainSize() int { return r1cs.DomainSize(s.Constraints) }

// CheckShape compares the vector lengths of p with the circuit's shape. The
// error wraps ErrParamsMismatch and names the first mismatch.
func (p *Params) CheckShape(s Shape) error {
	mismatch := func(format string, args ...any) error {
		return fmt.Errorf("params: %w: "+format, append([]any{ErrParamsMismatch}, args...)...)
	}
	if got := len(p.VK.IC); got != s.Inputs {
		return mismatch("|ic| = %d but the circuit has %d inputs (ONE included)", got, s.Inputs)
	}
	if got := p.Len(QueryL); got != s.Aux {
		return mismatch("|l| = %d but the circuit has %d aux variables", got, s.Aux)
	}
	if got, want := p.Len(QueryA), s.Inputs+s.ADensityAuxPop; got != want {
		return mismatch("|a| = %d but the circuit needs %d (%d inputs + %d aux with A density)",
			got, want, s.Inputs, s.ADensityAuxPop)
	}
	wantB := s.BDensityInputPop + s.BDensityAuxPop
	if got := p.Len(QueryBG1); got != wantB {
		return mismatch("|b_g1| = %d but the circuit needs %d (%d inputs + %d aux with B density)",
			got, wantB, s.BDensityInputPop, s.BDensityAuxPop)
	}
	if got := p.Len(QueryBG2); got != wantB {
		return mismatch("|b_g2| = %d but the circuit needs %d (%d inputs + %d aux with B density)",
			got, wantB, s.BDensityInputPop, s.BDensityAuxPop)
	}
	if m := s.DomainSize(); p.Len(QueryH) != m-1 {
		return mismatch("|h| = %d but the circuit's %d constraints need a domain of %d, so |h| = %d",
			p.Len(QueryH), s.Constraints, m, m-1)
	}
	return nil
}
