package r1cs

import "github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

// WitnessAssignment records input and aux values only; Enforce just counts.
// It is the cheap way to compute a witness when the constraints are known
// from elsewhere (a recorded matrix, or a check of a gadget's outputs).
type WitnessAssignment struct {
	Input, Aux  []fr.Element
	Constraints int
}

func (w *WitnessAssignment) Alloc(value fr.Element) Variable {
	w.Aux = append(w.Aux, value)
	return AuxVariable(len(w.Aux) - 1)
}

func (w *WitnessAssignment) AllocInput(value fr.Element) Variable {
	w.Input = append(w.Input, value)
	return InputVariable(len(w.Input) - 1)
}

func (w *WitnessAssignment) Enforce(a, b, c LinearCombination) { w.Constraints++ }

func (w *WitnessAssignment) NumInputs() int      { return len(w.Input) }
func (w *WitnessAssignment) NumAux() int         { return len(w.Aux) }
func (w *WitnessAssignment) NumConstraints() int { return w.Constraints }

// SkipsConstraints is true: Enforce ignores its arguments.
func (w *WitnessAssignment) SkipsConstraints() bool { return true }
