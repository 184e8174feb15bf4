package compiled

import (
	"fmt"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// Eval computes a = A·w, b = B·w and c = C·w for the witness w = input ‖ aux
// (ONE included as input 0), exactly the a, b and c a ProvingAssignment
// evaluates at Enforce time. len(input) must be NumInputs, len(aux) NumAux,
// and len(a) = len(b) = len(c) = NumConstraints. Rows are split over
// runtime.GOMAXPROCS goroutines.
//
// s must come from Compile, Read or Open, or have passed Validate.
func (s *System) Eval(input, aux, a, b, c []fr.Element) error {
	if len(input) != s.NumInputs || len(aux) != s.NumAux {
		return fmt.Errorf("%w: %d inputs and %d aux, the system has %d and %d",
			ErrBadWitness, len(input), len(aux), s.NumInputs, s.NumAux)
	}
	n := s.NumConstraints
	if len(a) != n || len(b) != n || len(c) != n {
		return fmt.Errorf("%w: a, b, c of %d, %d, %d rows, the system has %d",
			ErrBadWitness, len(a), len(b), len(c), n)
	}
	if len(s.A.RowPtr) != n+1 || len(s.B.RowPtr) != n+1 || len(s.C.RowPtr) != n+1 || len(s.Coeffs) < 2 {
		return fmt.Errorf("%w: matrices do not have %d rows (closed?)", ErrMalformed, n)
	}
	w := witness{input: input, aux: aux, inputs: uint32(len(input)), coeffs: s.Coeffs}
	parallel(n, grainFor(n, 1024), func(lo, hi int) {
		w.rows(&s.A, a, lo, hi)
		w.rows(&s.B, b, lo, hi)
		w.rows(&s.C, c, lo, hi)
	})
	return nil
}

type witness struct {
	input, aux []fr.Element
	inputs     uint32
	coeffs     []fr.Element
}

// rows evaluates rows [lo, hi) of m into out. Coefficients ±1 add or
// subtract; another coefficient is multiplied only by a value that is
// neither 0 nor 1 (most values are bits).
func (w *witness) rows(m *Matrix, out []fr.Element, lo, hi int) {
	rowPtr, col, coeff := m.RowPtr, m.Col, m.Coeff
	for r := lo; r < hi; r++ {
		var sum, t fr.Element
		for k := rowPtr[r]; k < rowPtr[r+1]; k++ {
			var v *fr.Element
			if j := col[k]; j < w.inputs {
				v = &w.input[j]
			} else {
				v = &w.aux[j-w.inputs]
			}
			switch ci := coeff[k]; ci {
			case CoeffOne:
				sum.Add(&sum, v)
			case CoeffMinusOne:
				sum.Sub(&sum, v)
			default:
				switch {
				case v.IsZero():
				case v.IsOne():
					sum.Add(&sum, &w.coeffs[ci])
				default:
					t.Mul(&w.coeffs[ci], v)
					sum.Add(&sum, &t)
				}
			}
		}
		out[r] = sum
	}
}
