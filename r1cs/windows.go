package r1cs

import (
	"fmt"

	"github.com/cuzk-project/cuzk/internal/parallel"
)

// SynthesizeWindows appends to w the witnesses of n pieces of a circuit
// that allocate the same number of inputs and aux variables each and
// depend only on what w holds already (a circuit's own part), piece i
// written by piece(win, i) on up to workers goroutines.
//
// Piece i's values are a fixed window of the vectors, after w's values and
// i earlier pieces: win is a WitnessAssignment over that window, its bases
// set, so it names the variables a sequential synthesis names; the result
// is the sequential one bit for bit. w's vectors must have room for every
// piece (their capacity: the circuit's shape); a piece that allocates
// another count than (totalInputs − w's)/n, (totalAux − w's)/n fails.
// On an error the lowest piece's is returned, as the sequential synthesis
// would, and w is left as it was.
func SynthesizeWindows(w *WitnessAssignment, n, totalInputs, totalAux, workers int, piece func(win *WitnessAssignment, i int) error) error {
	if n <= 0 {
		return nil
	}
	ownIn, ownAux := len(w.Input), len(w.Aux)
	perIn, perAux := (totalInputs-ownIn)/n, (totalAux-ownAux)/n
	if ownIn+n*perIn != totalInputs || ownAux+n*perAux != totalAux {
		return fmt.Errorf("r1cs: a shape of %d inputs and %d aux does not split into %d pieces after %d and %d",
			totalInputs, totalAux, n, ownIn, ownAux)
	}
	if cap(w.Input) < totalInputs || cap(w.Aux) < totalAux {
		return fmt.Errorf("r1cs: a witness with room for %d inputs and %d aux cannot hold %d and %d",
			cap(w.Input), cap(w.Aux), totalInputs, totalAux)
	}
	input, aux := w.Input[:totalInputs], w.Aux[:totalAux]
	baseIn, baseAux := w.InputBase+ownIn, w.AuxBase+ownAux

	rows := make([]int, n)
	one := func(i int) error {
		in0, aux0 := ownIn+i*perIn, ownAux+i*perAux
		win := &WitnessAssignment{
			Input: input[in0 : in0 : in0+perIn], Aux: aux[aux0 : aux0 : aux0+perAux],
			InputBase: baseIn + i*perIn, AuxBase: baseAux + i*perAux,
		}
		if err := piece(win, i); err != nil {
			return err
		}
		// A window that grew past its capacity was copied elsewhere.
		if len(win.Input) != perIn || len(win.Aux) != perAux ||
			(perIn > 0 && &win.Input[0] != &input[in0]) || (perAux > 0 && &win.Aux[0] != &aux[aux0]) {
			return fmt.Errorf("r1cs: piece %d allocated %d inputs and %d aux, its window holds %d and %d",
				i, len(win.Input), len(win.Aux), perIn, perAux)
		}
		rows[i] = win.Constraints
		return nil
	}
	if err := parallel.FirstErrorOn(workers, n, one); err != nil {
		return err
	}
	w.Input, w.Aux = input, aux
	for _, r := range rows {
		w.Constraints += r
	}
	return nil
}
