package r1cs

import "github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

// Counter counts a system's size without storing values or constraints:
// constraints, inputs, aux, the non-zero terms of A, B and C, and the
// density popcounts a ProvingAssignment would produce. It keeps one bit per
// variable per tracked density and nothing per constraint.
type Counter struct {
	Inputs, Aux, Constraints     int
	NonZeroA, NonZeroB, NonZeroC int

	aAux, bInput, bAux Bitmap
}

func (c *Counter) Alloc(fr.Element) Variable {
	c.Aux++
	c.aAux.Grow()
	c.bAux.Grow()
	return AuxVariable(c.Aux - 1)
}

func (c *Counter) AllocInput(fr.Element) Variable {
	c.Inputs++
	c.bInput.Grow()
	return InputVariable(c.Inputs - 1)
}

func (c *Counter) Enforce(a, b, cc LinearCombination) {
	c.Constraints++
	c.NonZeroA += countTerms(a, nil, &c.aAux)
	c.NonZeroB += countTerms(b, &c.bInput, &c.bAux)
	c.NonZeroC += countTerms(cc, nil, nil)
}

func countTerms(lc LinearCombination, input, aux *Bitmap) int {
	n := 0
	for i := range lc {
		if lc[i].Coeff.IsZero() {
			continue
		}
		n++
		v := lc[i].Var
		switch {
		case v.IsInput() && input != nil:
			input.Set(v.Index())
		case !v.IsInput() && aux != nil:
			aux.Set(v.Index())
		}
	}
	return n
}

func (c *Counter) NumInputs() int      { return c.Inputs }
func (c *Counter) NumAux() int         { return c.Aux }
func (c *Counter) NumConstraints() int { return c.Constraints }

// ADensityAuxCount is the A-aux density popcount.
func (c *Counter) ADensityAuxCount() int { return c.aAux.PopCount() }

// BDensityInputCount is the B-input density popcount.
func (c *Counter) BDensityInputCount() int { return c.bInput.PopCount() }

// BDensityAuxCount is the B-aux density popcount.
func (c *Counter) BDensityAuxCount() int { return c.bAux.PopCount() }
