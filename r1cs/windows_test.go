package r1cs

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// piece allocates one input and two aux values after i, and enforces
// three rows.
func piece(win *WitnessAssignment, i int) error {
	var v fr.Element
	win.AllocInput(*v.SetUint64(uint64(100 + i)))
	win.Alloc(*v.SetUint64(uint64(200 + i)))
	win.Alloc(*v.SetUint64(uint64(300 + i)))
	for range 3 {
		win.Enforce(nil, nil, nil)
	}
	return nil
}

func TestSynthesizeWindows(t *testing.T) {
	const n = 37
	seq := &WitnessAssignment{}
	seq.AllocInput(fr.One())
	seq.Alloc(fr.One())
	for i := range n {
		if err := piece(seq, i); err != nil {
			t.Fatal(err)
		}
	}
	for _, workers := range []int{1, 2, 5, 64} {
		w := &WitnessAssignment{Input: make([]fr.Element, 0, 1+n), Aux: make([]fr.Element, 0, 1+2*n)}
		w.AllocInput(fr.One())
		w.Alloc(fr.One())
		names := make([]Variable, n)
		err := SynthesizeWindows(w, n, 1+n, 1+2*n, workers, func(win *WitnessAssignment, i int) error {
			names[i] = win.Alloc(fr.Element{})
			win.Aux = win.Aux[:0] // the name only
			return piece(win, i)
		})
		if err != nil {
			t.Fatalf("%d workers: %v", workers, err)
		}
		if w.Constraints != seq.Constraints {
			t.Fatalf("%d workers: %d rows, want %d", workers, w.Constraints, seq.Constraints)
		}
		for i := range seq.Input {
			if w.Input[i] != seq.Input[i] {
				t.Fatalf("%d workers: input %d differs", workers, i)
			}
		}
		for i := range seq.Aux {
			if w.Aux[i] != seq.Aux[i] {
				t.Fatalf("%d workers: aux %d differs", workers, i)
			}
		}
		for i, v := range names { // the names the sequential synthesis gives
			if want := AuxVariable(1 + 2*i); v != want {
				t.Fatalf("%d workers: piece %d's first aux is %v, want %v", workers, i, v, want)
			}
		}
	}
}

func TestSynthesizeWindowsErrors(t *testing.T) {
	errPiece := errors.New("piece failed")
	fresh := func(in, aux int) *WitnessAssignment {
		return &WitnessAssignment{Input: make([]fr.Element, 0, in), Aux: make([]fr.Element, 0, aux)}
	}
	tests := []struct {
		name          string
		w             *WitnessAssignment
		n, in, aux    int
		piece         func(*WitnessAssignment, int) error
		want          error
		wantSubstring string
	}{
		{"lowest failing piece", fresh(8, 16), 8, 8, 16, func(w *WitnessAssignment, i int) error {
			if i == 3 || i == 6 {
				return fmt.Errorf("piece %d: %w", i, errPiece)
			}
			return piece(w, i)
		}, errPiece, "piece 3:"},
		{"shape does not split", fresh(9, 16), 8, 9, 16, piece, nil, "does not split"},
		{"no room", fresh(4, 16), 8, 8, 16, piece, nil, "cannot hold"},
		{"piece outgrows its window", fresh(8, 16), 8, 8, 16, func(w *WitnessAssignment, i int) error {
			w.Alloc(fr.One())
			return piece(w, i)
		}, nil, "its window holds"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := SynthesizeWindows(tc.w, tc.n, tc.in, tc.aux, 3, tc.piece)
			if err == nil || (tc.want != nil && !errors.Is(err, tc.want)) || !strings.Contains(err.Error(), tc.wantSubstring) {
				t.Fatalf("error %v, want %v containing %q", err, tc.want, tc.wantSubstring)
			}
			if len(tc.w.Input) != 0 || len(tc.w.Aux) != 0 || tc.w.Constraints != 0 {
				t.Fatalf("w changed: %d inputs, %d aux, %d rows", len(tc.w.Input), len(tc.w.Aux), tc.w.Constraints)
			}
		})
	}
}
