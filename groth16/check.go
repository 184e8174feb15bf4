package groth16

import (
	"errors"
	"fmt"
	"math/bits"

	"github.com/cuzk-project/cuzk/r1cs"
)

// ErrAssignmentMismatch is returned (wrapped, with what differs) when an
// assignment does not fit the parameters or is inconsistent in itself.
// Every device's Prepare returns it for such an assignment.
var ErrAssignmentMismatch = errors.New("groth16: assignment does not match the parameters")

// maxLogDomain bounds log2 of the evaluation domain as bellperson does:
// log2 m < 32, the two-adicity of the BLS12-381 scalar field.
const maxLogDomain = 31

// CheckAssignment reports whether a is consistent and fits p, naming the
// first mismatch: what every device checks in Prepare before it touches a
// vector. Errors wrap ErrAssignmentMismatch, and also ErrParamsMismatch
// when the parameters' vector lengths are what differs.
func CheckAssignment(a *Assignment, p *Params) error {
	if a == nil || p == nil {
		return fmt.Errorf("%w: nil assignment or parameters", ErrAssignmentMismatch)
	}
	n := a.NumConstraints()
	if n == 0 {
		return fmt.Errorf("%w: the assignment has no constraints", ErrAssignmentMismatch)
	}
	if a.WitnessOnly() {
		if len(a.Input) != a.System.NumInputs || len(a.Aux) != a.System.NumAux {
			return fmt.Errorf("%w: the witness has %d inputs, %d aux; its compiled system %d, %d",
				ErrAssignmentMismatch, len(a.Input), len(a.Aux), a.System.NumInputs, a.System.NumAux)
		}
	} else if len(a.B) != n || len(a.C) != n {
		return fmt.Errorf("%w: a, b, c have %d, %d, %d rows", ErrAssignmentMismatch, n, len(a.B), len(a.C))
	}
	if len(a.Input) == 0 {
		return fmt.Errorf("%w: the assignment has no inputs (ONE is missing)", ErrAssignmentMismatch)
	}
	for _, bm := range []struct {
		name string
		b    *r1cs.Bitmap
		n    int
	}{
		{"A-aux density", a.ADensityAux, len(a.Aux)},
		{"B-input density", a.BDensityInput, len(a.Input)},
		{"B-aux density", a.BDensityAux, len(a.Aux)},
	} {
		if err := checkDensity(bm.name, bm.b, bm.n); err != nil {
			return err
		}
	}
	if lg := bits.TrailingZeros(uint(r1cs.DomainSize(n))); lg > maxLogDomain {
		return fmt.Errorf("%w: %d rows need a domain of 2^%d > 2^%d", ErrAssignmentMismatch, n, lg, maxLogDomain)
	}
	if err := p.CheckShape(ShapeOfAssignment(a)); err != nil {
		return fmt.Errorf("%w: %w", ErrAssignmentMismatch, err)
	}
	return nil
}

// checkDensity checks that b is a bitmap over exactly n variables.
func checkDensity(name string, b *r1cs.Bitmap, n int) error {
	if b == nil {
		return fmt.Errorf("%w: %s is missing", ErrAssignmentMismatch, name)
	}
	if b.N != n || len(b.Words) != (n+63)/64 {
		return fmt.Errorf("%w: %s has %d bits (%d words), want %d", ErrAssignmentMismatch, name, b.N, len(b.Words), n)
	}
	if r := n % 64; r != 0 && b.Words[len(b.Words)-1]>>uint(r) != 0 {
		return fmt.Errorf("%w: %s has bits set beyond its %d variables", ErrAssignmentMismatch, name, n)
	}
	return nil
}
