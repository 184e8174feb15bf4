package porep

import (
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

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
	if err := p.Validate(); err != nil {
		return nil, err
	}
	sh, err := p.Config.Shape()
	if err != nil {
		return nil, err
	}
	w := &r1cs.WitnessAssignment{Input: make([]fr.Element, 0, sh.Inputs), Aux: make([]fr.Element, 0, sh.Aux)}
	w.AllocInput(fr.One())
	rt, replicaIDBits, err := p.synthesizeOwn(w)
	if err != nil {
		return nil, err
	}
	n := len(p.Challenges)
	ownIn, ownAux := len(w.Input), len(w.Aux)
	perIn, perAux := (sh.Inputs-ownIn)/n, (sh.Aux-ownAux)/n
	if ownIn+n*perIn != sh.Inputs || ownAux+n*perAux != sh.Aux {
		return nil, fmt.Errorf("porep: shape of %d inputs and %d aux does not split into %d challenges after %d and %d", sh.Inputs, sh.Aux, n, ownIn, ownAux)
	}
	input, aux := w.Input[:sh.Inputs], w.Aux[:sh.Aux]

	rows := make([]int, n)
	errs := make([]error, n)
	var failed atomic.Bool
	one := func(i int) {
		in0, aux0 := ownIn+i*perIn, ownAux+i*perAux
		win := &r1cs.WitnessAssignment{
			Input: input[in0 : in0 : in0+perIn], Aux: aux[aux0 : aux0 : aux0+perAux],
			InputBase: in0, AuxBase: aux0,
		}
		if err := p.synthesizeChallenge(win, i, rt, replicaIDBits); err != nil {
			errs[i] = err
			failed.Store(true)
			return
		}
		// A window that grew past its capacity was copied elsewhere.
		if len(win.Input) != perIn || len(win.Aux) != perAux ||
			(perIn > 0 && &win.Input[0] != &input[in0]) || (perAux > 0 && &win.Aux[0] != &aux[aux0]) {
			errs[i] = fmt.Errorf("porep: challenge %d allocated %d inputs and %d aux, its window holds %d and %d", i, len(win.Input), len(win.Aux), perIn, perAux)
			failed.Store(true)
			return
		}
		rows[i] = win.Constraints
	}
	workers = max(1, min(workers, n))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for !failed.Load() {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				one(i)
			}
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	w.Input, w.Aux = input, aux
	for _, r := range rows {
		w.Constraints += r
	}
	r1cs.Finalize(w)
	return w, nil
}
