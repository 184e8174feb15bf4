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
	return s.eval(input, aux, [][]fr.Element{a, b, c}, &s.A, &s.B, &s.C)
}

// EvalAB is Eval without c: a = A·w and b = B·w, for a prover that
// computes c = a∘b itself (for a witness that satisfies the constraints,
// that is C·w row by row).
func (s *System) EvalAB(input, aux, a, b []fr.Element) error {
	return s.eval(input, aux, [][]fr.Element{a, b}, &s.A, &s.B)
}

// eval computes out[i] = ms[i]·w.
func (s *System) eval(input, aux []fr.Element, out [][]fr.Element, ms ...*Matrix) error {
	if len(input) != s.NumInputs || len(aux) != s.NumAux {
		return fmt.Errorf("%w: %d inputs and %d aux, the system has %d and %d",
			ErrBadWitness, len(input), len(aux), s.NumInputs, s.NumAux)
	}
	n := s.NumConstraints
	for i, o := range out {
		if len(o) != n {
			return fmt.Errorf("%w: %c of %d rows, the system has %d", ErrBadWitness, 'a'+i, len(o), n)
		}
	}
	if len(s.Coeffs) < 2 {
		return fmt.Errorf("%w: no coefficients (closed?)", ErrMalformed)
	}
	for _, m := range ms {
		if len(m.RowPtr) != n+1 {
			return fmt.Errorf("%w: matrices do not have %d rows (closed?)", ErrMalformed, n)
		}
	}
	w := witness{input: input, aux: aux, inputs: uint32(len(input)), coeffs: s.Coeffs}
	parallel(n, grainFor(n, 1024), func(lo, hi int) {
		for i, m := range ms {
			w.rows(m, out[i], lo, hi)
		}
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
