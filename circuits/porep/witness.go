package porep

import (
	"github.com/cuzk-project/cuzk/r1cs"
)

// Witness is r1cs.Synthesize of p into an r1cs.WitnessAssignment (ONE and
// the inputs, the aux values, the rows with the input rows), with the
// challenges synthesized by up to workers goroutines.
//
// The challenges are independent: each reads only the partition's own
// variables (the commitments and the replica id's bits), and each
// allocates the same number of inputs and aux variables (its rows and
// variables depend on the configuration, not on values). So challenge i's
// values are a fixed window of the vectors, after the partition's own part
// and i earlier challenges; each goroutine writes its challenges into their
// windows of the preallocated vectors (r1cs.WitnessAssignment with bases,
// so it names the variables the sequential synthesis names). The result is
// the sequential one bit for bit. On an error the lowest challenge's is
// returned, as the sequential synthesis would.
func (p *Partition) Witness(workers int) (*r1cs.WitnessAssignment, error) {
	return r1cs.Filled(func(w *r1cs.WitnessAssignment) error { return p.WitnessInto(w, workers) })
}

// WitnessInto is Witness into w, reusing the capacity of w.Input and w.Aux
// when it suffices (their old values are overwritten, not cleared). A 32 GiB
// partition's aux vector is 4.2 GB: a fresh one costs its zeroing and page
// faults, about twice the synthesis itself on one core, so a caller that
// proves partition after partition keeps its vectors. On an error w holds
// no values (its vectors keep their capacity).
func (p *Partition) WitnessInto(w *r1cs.WitnessAssignment, workers int) error {
	return r1cs.FillInto(w, p.Validate, p.Config.Shape, func(w *r1cs.WitnessAssignment, sh r1cs.Shape) error {
		rt, replicaIDBits, err := p.synthesizeOwn(w)
		if err != nil {
			return err
		}
		return r1cs.SynthesizeWindows(w, len(p.Challenges), sh.Inputs, sh.Aux, workers, func(win *r1cs.WitnessAssignment, i int) error {
			return p.synthesizeChallenge(win, i, rt, replicaIDBits)
		})
	})
}
