package groth16

import (
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-project/cuzk/r1cs"
)

// Assignment is what synthesis produces and a device consumes: a, b, c
// evaluated per constraint (input constraints included), the input and aux
// values, and bellperson's densities.
type Assignment struct {
	A, B, C    []fr.Element
	Input, Aux []fr.Element

	ADensityAux, BDensityInput, BDensityAux *r1cs.Bitmap
}

// Synthesize runs circuit c through a ProvingAssignment (bellperson's
// sequence: ONE, the circuit, the input constraints).
func Synthesize(c r1cs.Circuit, hint r1cs.Shape) (*Assignment, error) {
	p := r1cs.NewProvingAssignment(hint)
	if err := r1cs.Synthesize(p, c); err != nil {
		return nil, err
	}
	return FromProvingAssignment(p), nil
}

// FromProvingAssignment takes over p's slices.
func FromProvingAssignment(p *r1cs.ProvingAssignment) *Assignment {
	return &Assignment{
		A: p.A, B: p.B, C: p.C,
		Input: p.Input, Aux: p.Aux,
		ADensityAux:   &p.ADensityAux,
		BDensityInput: &p.BDensityInput,
		BDensityAux:   &p.BDensityAux,
	}
}

// NumConstraints counts rows, input constraints included.
func (a *Assignment) NumConstraints() int { return len(a.A) }

// ReleaseABC drops a, b and c (a device no longer needs them after Run).
func (a *Assignment) ReleaseABC() { a.A, a.B, a.C = nil, nil, nil }
