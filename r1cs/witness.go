package r1cs

import (
	"slices"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// WitnessAssignment records input and aux values only; Enforce just counts.
// It is the cheap way to compute a witness when the constraints are known
// from elsewhere (a recorded matrix, or a check of a gadget's outputs).
//
// It is an AuxBatcher: gadgets with a witness-only path (SHA-256
// compression, bit decompositions) write runs of aux values in place.
//
// A window of a larger witness (one of several parts synthesized
// concurrently) sets InputBase and AuxBase to the number of inputs and aux
// variables before it, so that it names the variables the whole witness
// would; its Input and Aux then hold only its own values.
type WitnessAssignment struct {
	Input, Aux         []fr.Element
	Constraints        int
	InputBase, AuxBase int
}

// NewWitness is an empty witness with room for a circuit of shape sh,
// holding ONE, as r1cs.Synthesize starts it.
func NewWitness(sh Shape) *WitnessAssignment {
	w := &WitnessAssignment{}
	w.Reset(sh)
	return w
}

// Reset empties w for a circuit of shape sh and allocates ONE, as
// NewWitness, keeping each vector that has room for sh (its old values
// are overwritten as the synthesis appends, not cleared: a fresh 4 GB
// vector costs its clearing or its page faults, more than many a
// synthesis).
func (w *WitnessAssignment) Reset(sh Shape) {
	*w = WitnessAssignment{Input: roomFor(w.Input, sh.Inputs), Aux: roomFor(w.Aux, sh.Aux)}
	w.AllocInput(fr.One())
}

// Filled is a new witness that into fills (a circuit's WitnessInto).
func Filled(into func(*WitnessAssignment) error) (*WitnessAssignment, error) {
	return filled(&WitnessAssignment{}, into)
}

func filled(w *WitnessAssignment, into func(*WitnessAssignment) error) (*WitnessAssignment, error) {
	if err := into(w); err != nil {
		return nil, err
	}
	return w, nil
}

// FillInto is a circuit's WitnessInto: once validate passes, w is Reset for
// the circuit's shape (keeping its vectors where they have room: their old
// values are overwritten as fill appends, not cleared), fill synthesizes
// into it, and Finalize adds the input rows. On an error w holds no values
// (its vectors keep their capacity).
func FillInto(w *WitnessAssignment, validate func() error, shape func() (Shape, error), fill func(w *WitnessAssignment, sh Shape) error) error {
	*w = WitnessAssignment{Input: w.Input[:0], Aux: w.Aux[:0]}
	err := validate()
	var sh Shape
	if err == nil {
		sh, err = shape()
	}
	if err == nil {
		w.Reset(sh)
		err = fill(w, sh)
	}
	if err != nil {
		*w = WitnessAssignment{Input: w.Input[:0], Aux: w.Aux[:0]}
		return err
	}
	Finalize(w)
	return nil
}

// roomFor is v emptied where it has room for n values, else a new vector.
func roomFor(v []fr.Element, n int) []fr.Element {
	if cap(v) >= n {
		return v[:0]
	}
	return make([]fr.Element, 0, n)
}

func (w *WitnessAssignment) Alloc(value fr.Element) Variable {
	w.Aux = append(w.Aux, value)
	return AuxVariable(w.AuxBase + len(w.Aux) - 1)
}

func (w *WitnessAssignment) AllocInput(value fr.Element) Variable {
	w.Input = append(w.Input, value)
	return InputVariable(w.InputBase + len(w.Input) - 1)
}

func (w *WitnessAssignment) Enforce(a, b, c LinearCombination) { w.Constraints++ }

// NumInputs and NumAux count the variables named so far, the base included.
func (w *WitnessAssignment) NumInputs() int      { return w.InputBase + len(w.Input) }
func (w *WitnessAssignment) NumAux() int         { return w.AuxBase + len(w.Aux) }
func (w *WitnessAssignment) NumConstraints() int { return w.Constraints }

// SkipsConstraints is true: Enforce ignores its arguments.
func (w *WitnessAssignment) SkipsConstraints() bool { return true }

// AllocAuxBatch allocates n aux variables (see AuxBatcher).
func (w *WitnessAssignment) AllocAuxBatch(n int) (Variable, []fr.Element) {
	k := len(w.Aux)
	w.Aux = slices.Grow(w.Aux, n)[:k+n]
	return AuxVariable(w.AuxBase + k), w.Aux[k : k+n : k+n]
}

// EnforceSkipped counts n rows.
func (w *WitnessAssignment) EnforceSkipped(n int) { w.Constraints += n }

// AuxBatcher is a system that ignores constraints and lets a gadget's
// witness-only path allocate a run of aux variables at once and write their
// values in place: the path computes with native integers what the generic
// gadget would allocate bit by bit, in the same order, and reports the rows
// it did not build with EnforceSkipped.
type AuxBatcher interface {
	ConstraintSystem
	// AllocAuxBatch allocates n aux variables: the first one (the others
	// follow it, in order) and the n values to set. The values are not
	// zeroed; the caller sets every one before its next allocation.
	AllocAuxBatch(n int) (first Variable, values []fr.Element)
	// EnforceSkipped counts n rows, as n calls of Enforce(nil, nil, nil).
	EnforceSkipped(n int)
}

// AsAuxBatcher returns cs as an AuxBatcher when it is one and skips
// constraints; gadgets take their witness-only paths only then.
func AsAuxBatcher(cs ConstraintSystem) (AuxBatcher, bool) {
	b, ok := cs.(AuxBatcher)
	return b, ok && SkipsConstraints(cs)
}
