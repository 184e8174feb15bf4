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
	if err := p.Validate(); err != nil {
		return nil, err
	}
	sh, err := p.Config.Shape()
	if err != nil {
		return nil, err
	}
	w := r1cs.NewWitness(sh)
	err = r1cs.SynthesizeWindows(w, p.Config.Sectors, sh.Inputs, sh.Aux, workers, func(win *r1cs.WitnessAssignment, i int) error {
		return p.synthesize(win, i, i+1)
	})
	if err != nil {
		return nil, err
	}
	r1cs.Finalize(w)
	return w, nil
}
