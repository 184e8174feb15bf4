package compiled

import (
	"fmt"
	"slices"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-project/cuzk/r1cs"
)

// recorder is the ConstraintSystem Compile synthesizes into. It keeps the
// rows (never the values) and the densities, with ProvingAssignment's
// semantics: variables are numbered in allocation order, and a variable is
// marked in a density for every term with a non-zero coefficient, as
// ProvingAssignment marks it before it sums.
//
// While recording, a column holds the r1cs.Variable itself (inputs sort
// before aux, as columns do); finish maps it to its column once the number
// of inputs is known.
type recorder struct {
	inputs, aux int
	rows        int

	aAux, bInput, bAux r1cs.Bitmap
	a, b, c            matrixBuilder
	coeffs             *coeffTable

	scratch []r1cs.Term // reused to merge a combination's repeated variables
	err     error       // the first error; recording stops there
}

type matrixBuilder struct {
	rowPtr vec[uint32]
	col    vec[uint32]
	coeff  vec[uint16]
}

func newRecorder(hint r1cs.Shape) (*recorder, error) {
	r := &recorder{coeffs: newCoeffTable()}
	r.aAux.Words = make([]uint64, 0, (hint.Aux+63)/64)
	r.bAux.Words = make([]uint64, 0, (hint.Aux+63)/64)
	r.bInput.Words = make([]uint64, 0, (hint.Inputs+63)/64)
	for _, m := range []*matrixBuilder{&r.a, &r.b, &r.c} {
		if err := m.init(hint.Constraints); err != nil {
			r.free()
			return nil, err
		}
	}
	return r, nil
}

func (m *matrixBuilder) init(rows int) error {
	if err := m.rowPtr.reserve(rows + 1); err != nil {
		return err
	}
	m.rowPtr.s[0], m.rowPtr.n = 0, 1
	if err := m.col.reserve(rows); err != nil {
		return err
	}
	return m.coeff.reserve(rows)
}

func (m *matrixBuilder) free() {
	m.rowPtr.r.free()
	m.col.r.free()
	m.coeff.r.free()
}

func (r *recorder) free() {
	r.a.free()
	r.b.free()
	r.c.free()
}

func (r *recorder) Alloc(fr.Element) r1cs.Variable {
	r.aux++
	r.aAux.Grow()
	r.bAux.Grow()
	return r1cs.AuxVariable(r.aux - 1)
}

func (r *recorder) AllocInput(fr.Element) r1cs.Variable {
	r.inputs++
	r.bInput.Grow()
	return r1cs.InputVariable(r.inputs - 1)
}

func (r *recorder) Enforce(a, b, c r1cs.LinearCombination) {
	if r.err != nil {
		return
	}
	if err := r.row(a, b, c); err != nil {
		r.err = fmt.Errorf("compiled: row %d: %w", r.rows, err)
		return
	}
	r.rows++
}

func (r *recorder) row(a, b, c r1cs.LinearCombination) error {
	if err := r.add(&r.a, a, nil, &r.aAux); err != nil {
		return fmt.Errorf("A: %w", err)
	}
	if err := r.add(&r.b, b, &r.bInput, &r.bAux); err != nil {
		return fmt.Errorf("B: %w", err)
	}
	if err := r.add(&r.c, c, nil, nil); err != nil {
		return fmt.Errorf("C: %w", err)
	}
	return nil
}

func (r *recorder) NumInputs() int      { return r.inputs }
func (r *recorder) NumAux() int         { return r.aux }
func (r *recorder) NumConstraints() int { return r.rows }

// add appends lc as the next row of m and marks its variables in the
// densities (nil: not tracked). Combinations built with AddTerm are sorted
// with each variable once and are appended in one pass; any other is
// merged first.
func (r *recorder) add(m *matrixBuilder, lc r1cs.LinearCombination, input, aux *r1cs.Bitmap) error {
	if err := m.col.reserve(len(lc)); err != nil {
		return err
	}
	if err := m.coeff.reserve(len(lc)); err != nil {
		return err
	}
	sorted := true
	for i := 1; i < len(lc); i++ {
		if lc[i].Var <= lc[i-1].Var {
			sorted = false
			break
		}
	}
	col, coeff, n := m.col.s, m.coeff.s, m.col.n
	for i := range lc {
		t := &lc[i]
		v := t.Var
		zero := t.Coeff.IsZero()
		if v.IsInput() {
			if v.Index() >= r.inputs {
				return fmt.Errorf("%v is not allocated (%d inputs)", v, r.inputs)
			}
			if input != nil && !zero {
				input.Set(v.Index())
			}
		} else {
			if v.Index() >= r.aux {
				return fmt.Errorf("%v is not allocated (%d aux)", v, r.aux)
			}
			if aux != nil && !zero {
				aux.Set(v.Index())
			}
		}
		if zero || !sorted {
			continue
		}
		k, err := r.coeffs.lookup(&t.Coeff)
		if err != nil {
			return err
		}
		col[n], coeff[n] = uint32(v), k
		n++
	}
	if !sorted {
		for _, t := range r.merge(lc) {
			if t.Coeff.IsZero() {
				continue
			}
			k, err := r.coeffs.lookup(&t.Coeff)
			if err != nil {
				return err
			}
			col[n], coeff[n] = uint32(t.Var), k
			n++
		}
	}
	m.col.n, m.coeff.n = n, n
	if uint64(n) > 1<<32-1 {
		return fmt.Errorf("more than 2³² − 1 entries")
	}
	if err := m.rowPtr.reserve(1); err != nil {
		return err
	}
	m.rowPtr.s[m.rowPtr.n] = uint32(n)
	m.rowPtr.n++
	return nil
}

// merge returns lc sorted by variable with repeated variables summed, in
// the reused scratch.
func (r *recorder) merge(lc r1cs.LinearCombination) r1cs.LinearCombination {
	s := append(r.scratch[:0], lc...)
	slices.SortFunc(s, func(x, y r1cs.Term) int {
		switch {
		case x.Var < y.Var:
			return -1
		case x.Var > y.Var:
			return 1
		}
		return 0
	})
	out := s[:0]
	for i := range s {
		if n := len(out); n > 0 && out[n-1].Var == s[i].Var {
			out[n-1].Coeff.Add(&out[n-1].Coeff, &s[i].Coeff)
			continue
		}
		out = append(out, s[i])
	}
	r.scratch = s
	return out
}
