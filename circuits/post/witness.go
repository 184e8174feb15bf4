package post

import (
	"github.com/cuzk-project/cuzk/r1cs"
)

// Witness is r1cs.Synthesize of p into an r1cs.WitnessAssignment (ONE and
// the inputs, the aux values, the rows with the input rows), with the
// circuit sectors synthesized by up to workers goroutines.
//
// Every circuit sector allocates the same inputs and aux variables and
// reads nothing but its own values, so sector i's values are a fixed window
// of the vectors after ONE and i earlier sectors (r1cs.SynthesizeWindows):
// the result is the sequential one bit for bit. A 32 GiB WindowPoSt
// partition is 2,349 sectors of 53,334 rows: one goroutine takes about
// 18 s for its witness.
func (p *Partition) Witness(workers int) (*r1cs.WitnessAssignment, error) {
	return r1cs.Filled(func(w *r1cs.WitnessAssignment) error { return p.WitnessInto(w, workers) })
}

// WitnessInto is Witness into w, reusing the capacity of w.Input and w.Aux
// where it suffices (r1cs.FillInto). On an error w holds no values.
func (p *Partition) WitnessInto(w *r1cs.WitnessAssignment, workers int) error {
	return r1cs.FillInto(w, p.Validate, p.Config.Shape, func(w *r1cs.WitnessAssignment, sh r1cs.Shape) error {
		return r1cs.SynthesizeWindows(w, p.Config.Sectors, sh.Inputs, sh.Aux, workers, func(win *r1cs.WitnessAssignment, i int) error {
			return p.synthesize(win, i, i+1)
		})
	})
}
