package update

import (
	"github.com/cuzk-project/cuzk/r1cs"
)

// Witness is r1cs.Synthesize of p into an r1cs.WitnessAssignment (ONE and
// the inputs, the aux values, the rows with the input rows), with the
// challenges synthesized by up to workers goroutines.
//
// The challenges read only the partition's own variables and allocate the
// same aux variables each (no inputs), so challenge i's values are a fixed
// window of the vectors after the partition's own part and i earlier
// challenges (r1cs.SynthesizeWindows): the result is the sequential one
// bit for bit. A 32 GiB partition is 86 challenges of about 940,000 rows.
func (p *Partition) Witness(workers int) (*r1cs.WitnessAssignment, error) {
	return r1cs.Filled(func(w *r1cs.WitnessAssignment) error { return p.WitnessInto(w, workers) })
}

// WitnessInto is Witness into w, reusing the capacity of w.Input and w.Aux
// where it suffices (r1cs.FillInto). On an error w holds no values.
func (p *Partition) WitnessInto(w *r1cs.WitnessAssignment, workers int) error {
	return r1cs.FillInto(w, p.Validate, p.Config.Shape, func(w *r1cs.WitnessAssignment, sh r1cs.Shape) error {
		pt, err := p.synthesizeOwn(w)
		if err != nil {
			return err
		}
		hs := p.Config.Hs()
		return r1cs.SynthesizeWindows(w, len(p.Challenges), sh.Inputs, sh.Aux, workers, func(win *r1cs.WitnessAssignment, i int) error {
			return p.synthesizeChallenge(win, pt, i, hs[:])
		})
	})
}
