package compiled

import (
	"fmt"
	"sync"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// Validate checks the invariants Eval and the devices rely on, so that a
// decoded system can never index out of range:
//   - Coeffs: 2 to MaxCoeffs distinct non-zero values, Coeffs[0] = 1,
//     Coeffs[1] = −1;
//   - each matrix: NumConstraints+1 row pointers from 0, non-decreasing, to
//     the number of entries; within a row columns strictly increasing and
//     below NumColumns; coefficient indices below len(Coeffs);
//   - densities of NumAux, NumInputs, NumAux bits, none set past the count;
//     every variable with an entry in A (aux) or B is marked (the densities
//     may mark more: ProvingAssignment marks a variable whose terms sum to
//     zero).
func (s *System) Validate() error {
	if err := s.checkShape(); err != nil {
		return err
	}
	var one, minusOne fr.Element
	one.SetOne()
	minusOne.Neg(&one)
	if !s.Coeffs[CoeffOne].Equal(&one) || !s.Coeffs[CoeffMinusOne].Equal(&minusOne) {
		return malformed("coefficients 0 and 1 are not 1 and −1")
	}
	seen := make(map[fr.Element]struct{}, len(s.Coeffs))
	for i := range s.Coeffs {
		c := s.Coeffs[i]
		if c.IsZero() {
			return malformed("coefficient %d is zero", i)
		}
		if _, dup := seen[c]; dup {
			return malformed("coefficient %d repeats an earlier one", i)
		}
		seen[c] = struct{}{}
	}
	for i, d := range []struct {
		words []uint64
		n     int
	}{
		{s.ADensityAux.Words, s.NumAux}, {s.BDensityInput.Words, s.NumInputs}, {s.BDensityAux.Words, s.NumAux}} {
		if r := d.n % 64; r != 0 && d.words[len(d.words)-1]>>r != 0 {
			return malformed("density %s: bits set past %d", densityNames[i], d.n)
		}
	}
	for i, m := range s.matrices() {
		if err := s.validateMatrix(i, m); err != nil {
			return err
		}
	}
	return nil
}

func (s *System) validateMatrix(which int, m *Matrix) error {
	name := 'A' + rune(which)
	rows := s.NumConstraints
	if m.RowPtr[0] != 0 || int(m.RowPtr[rows]) != len(m.Col) {
		return malformed("matrix %c: row pointers run from %d to %d, want 0 to %d", name, m.RowPtr[0], m.RowPtr[rows], len(m.Col))
	}
	// Row pointers first (sequentially cheap), so that the parallel pass may
	// index by them.
	for r := 0; r < rows; r++ {
		if m.RowPtr[r] > m.RowPtr[r+1] {
			return malformed("matrix %c: row %d ends before it starts", name, r)
		}
	}
	ncols := uint32(s.NumColumns())
	inputs := uint32(s.NumInputs)
	ncoeffs := uint16(len(s.Coeffs) - 1) // largest index; len ≤ MaxCoeffs
	var mu sync.Mutex
	var first error
	firstRow := rows
	parallel(rows, grainFor(rows, 4096), func(lo, hi int) {
		for r := lo; r < hi; r++ {
			if err := s.validateRow(m, r, ncols, inputs, ncoeffs, which); err != nil {
				mu.Lock()
				if r < firstRow {
					first, firstRow = fmt.Errorf("matrix %c: row %d: %w", name, r, err), r
				}
				mu.Unlock()
				return
			}
		}
	})
	return first
}

func (s *System) validateRow(m *Matrix, r int, ncols, inputs uint32, maxCoeff uint16, which int) error {
	lo, hi := m.RowPtr[r], m.RowPtr[r+1]
	for k := lo; k < hi; k++ {
		c := m.Col[k]
		switch {
		case c >= ncols:
			return malformed("column %d of %d", c, ncols)
		case k > lo && c <= m.Col[k-1]:
			return malformed("columns not strictly increasing (%d after %d)", c, m.Col[k-1])
		case m.Coeff[k] > maxCoeff:
			return malformed("coefficient index %d of %d", m.Coeff[k], int(maxCoeff)+1)
		}
		var d []uint64
		j := c
		switch {
		case which == 0 && c >= inputs:
			d, j = s.ADensityAux.Words, c-inputs
		case which == 1 && c < inputs:
			d = s.BDensityInput.Words
		case which == 1:
			d, j = s.BDensityAux.Words, c-inputs
		default:
			continue
		}
		if d[j/64]>>(j%64)&1 == 0 {
			return malformed("column %d has an entry but no density bit", c)
		}
	}
	return nil
}
