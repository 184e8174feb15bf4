package r1cs

import (
	"math/bits"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// Shape is the size of a synthesized system; use it as a capacity hint.
type Shape struct {
	Inputs, Aux, Constraints int
}

// DomainSize is the size m of the prover's evaluation domain for n
// constraints (input constraints included): the smallest power of two ≥ n,
// at least 1, as bellperson's EvaluationDomain::from_coeffs chooses it.
// Every package that sizes the domain (setup, the devices, memory
// estimates) takes it from here.
func DomainSize(n int) int {
	if n <= 1 {
		return 1
	}
	return 1 << bits.Len(uint(n-1))
}

// ProvingAssignment is bellperson's ProvingAssignment: it evaluates every
// constraint's a, b and c against the witness as the constraint is enforced,
// stores only those three scalars per row, and tracks densities the way
// bellperson does (A over aux only; B over inputs and aux; C untracked). A
// variable is marked only for a non-zero (summed) coefficient.
type ProvingAssignment struct {
	A, B, C []fr.Element
	Input   []fr.Element
	Aux     []fr.Element

	ADensityAux   Bitmap
	BDensityInput Bitmap
	BDensityAux   Bitmap
}

// NewProvingAssignment returns an empty assignment with room for hint.
// When the prover's FFT domain (the next power of two ≥ hint.Constraints)
// is at most 1/16 larger than the hint, as for a PoRep partition (3 %), A,
// B and C get room for all of it so that a device can transform them in
// place. Otherwise reserving it would cost synthesis up to twice the
// zeroing of A, B and C (a device then transforms copies).
func NewProvingAssignment(hint Shape) *ProvingAssignment {
	rows := hint.Constraints
	if rows > 1 {
		if m := DomainSize(rows); m-rows <= rows/16 {
			rows = m
		}
	}
	p := &ProvingAssignment{
		A:     make([]fr.Element, 0, rows),
		B:     make([]fr.Element, 0, rows),
		C:     make([]fr.Element, 0, rows),
		Input: make([]fr.Element, 0, hint.Inputs),
		Aux:   make([]fr.Element, 0, hint.Aux),
	}
	p.ADensityAux.Words = make([]uint64, 0, (hint.Aux+63)/64)
	p.BDensityAux.Words = make([]uint64, 0, (hint.Aux+63)/64)
	p.BDensityInput.Words = make([]uint64, 0, (hint.Inputs+63)/64)
	return p
}

func (p *ProvingAssignment) Alloc(value fr.Element) Variable {
	p.Aux = append(p.Aux, value)
	p.ADensityAux.Grow()
	p.BDensityAux.Grow()
	return AuxVariable(len(p.Aux) - 1)
}

func (p *ProvingAssignment) AllocInput(value fr.Element) Variable {
	p.Input = append(p.Input, value)
	p.BDensityInput.Grow()
	return InputVariable(len(p.Input) - 1)
}

func (p *ProvingAssignment) Enforce(a, b, c LinearCombination) {
	p.A = append(p.A, p.eval(a, nil, &p.ADensityAux))
	p.B = append(p.B, p.eval(b, &p.BDensityInput, &p.BDensityAux))
	p.C = append(p.C, p.eval(c, nil, nil))
}

// eval computes Σ coeff·value and marks the variables with non-zero
// coefficients in the given densities (nil: not tracked).
func (p *ProvingAssignment) eval(lc LinearCombination, input, aux *Bitmap) fr.Element {
	var sum, t fr.Element
	for i := range lc {
		term := &lc[i]
		if term.Coeff.IsZero() {
			continue
		}
		var val *fr.Element
		if v := term.Var; v.IsInput() {
			val = &p.Input[v.Index()]
			if input != nil {
				input.Set(v.Index())
			}
		} else {
			val = &p.Aux[v.Index()]
			if aux != nil {
				aux.Set(v.Index())
			}
		}
		// Most witness values are bits and most coefficients are one or
		// powers of two: skip the multiplication where a factor is 0 or 1.
		switch {
		case term.Coeff.IsOne():
			sum.Add(&sum, val)
		case val.IsZero():
		case val.IsOne():
			sum.Add(&sum, &term.Coeff)
		default:
			t.Mul(&term.Coeff, val)
			sum.Add(&sum, &t)
		}
	}
	return sum
}

func (p *ProvingAssignment) NumInputs() int      { return len(p.Input) }
func (p *ProvingAssignment) NumAux() int         { return len(p.Aux) }
func (p *ProvingAssignment) NumConstraints() int { return len(p.A) }

// IsSatisfied reports the first row where a·b ≠ c, or -1 when all hold.
func (p *ProvingAssignment) IsSatisfied() int {
	var t fr.Element
	for i := range p.A {
		t.Mul(&p.A[i], &p.B[i])
		if !t.Equal(&p.C[i]) {
			return i
		}
	}
	return -1
}
