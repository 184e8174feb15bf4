package groth16

import (
	"fmt"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-project/cuzk/r1cs"
	"github.com/cuzk-project/cuzk/r1cs/compiled"
)

// Assignment is what synthesis produces and a device consumes: a, b, c
// evaluated per constraint (input constraints included), the input and aux
// values, and bellperson's densities.
//
// A witness-only assignment (FromWitness) has System set and A, B, C nil:
// the device evaluates a, b and c from the pre-compiled constraint system,
// on the CPU (Evaluate) or where the matrices are resident.
type Assignment struct {
	A, B, C    []fr.Element
	Input, Aux []fr.Element

	ADensityAux, BDensityInput, BDensityAux *r1cs.Bitmap

	// System is the circuit's pre-compiled constraint system, for a
	// witness-only assignment; nil otherwise.
	System *compiled.System
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

// FromWitness makes the witness-only assignment of w against its circuit's
// pre-compiled system s: w's inputs and aux, s's densities (shared, read
// only). The counts must be s's.
func FromWitness(w *r1cs.WitnessAssignment, s *compiled.System) (*Assignment, error) {
	if w.NumInputs() != s.NumInputs || w.NumAux() != s.NumAux || w.NumConstraints() != s.NumConstraints {
		return nil, fmt.Errorf("%w: the witness has %d inputs, %d aux, %d rows; the compiled system %d, %d, %d",
			ErrAssignmentMismatch, w.NumInputs(), w.NumAux(), w.NumConstraints(),
			s.NumInputs, s.NumAux, s.NumConstraints)
	}
	return &Assignment{
		Input: w.Input, Aux: w.Aux,
		ADensityAux: s.ADensityAux, BDensityInput: s.BDensityInput, BDensityAux: s.BDensityAux,
		System: s,
	}, nil
}

// WitnessOnly reports whether a, b and c are still to be evaluated.
func (a *Assignment) WitnessOnly() bool { return a.System != nil && a.A == nil }

// Evaluate computes a, b and c of a witness-only assignment on the CPU
// (System.Eval); on any other assignment it does nothing.
func (a *Assignment) Evaluate() error {
	if !a.WitnessOnly() {
		return nil
	}
	n := a.System.NumConstraints
	abc := make([]fr.Element, 3*n)
	A, B, C := abc[:n:n], abc[n:2*n:2*n], abc[2*n:]
	if err := a.System.Eval(a.Input, a.Aux, A, B, C); err != nil {
		return fmt.Errorf("%w: %w", ErrAssignmentMismatch, err)
	}
	a.A, a.B, a.C = A, B, C
	return nil
}

// NumConstraints counts rows, input constraints included.
func (a *Assignment) NumConstraints() int {
	if a.WitnessOnly() {
		return a.System.NumConstraints
	}
	return len(a.A)
}

// ReleaseABC drops a, b and c (a device no longer needs them after Run).
func (a *Assignment) ReleaseABC() { a.A, a.B, a.C = nil, nil, nil }

// ReleaseWitness drops the aux values of a witness-only assignment, for a
// device that staged its own copy of them in Prepare and reads only that
// in Run and Finish. Input stays: the proof's verification needs the
// public inputs. Any other assignment keeps its aux (its device reads it).
func (a *Assignment) ReleaseWitness() {
	if a.WitnessOnly() {
		a.Aux = nil
	}
}
