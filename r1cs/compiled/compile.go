package compiled

import (
	"fmt"

	"github.com/cuzk-project/cuzk/r1cs"
)

// Compile synthesizes c once (bellperson's sequence, r1cs.Synthesize: ONE,
// the circuit, one input row per input) and records its matrices and
// densities. The circuit's values are ignored, so a blank circuit of the
// shape serves; hint (the expected size, or zero) sizes the first
// reservations.
//
// The arrays grow in place outside the Go heap where the platform allows
// it, so the build needs little more than the finished system.
func Compile(c r1cs.Circuit, hint r1cs.Shape) (*System, error) {
	r, err := newRecorder(hint)
	if err != nil {
		return nil, err
	}
	if err := r1cs.Synthesize(r, c); err != nil {
		r.free()
		return nil, fmt.Errorf("compiled: synthesize: %w", err)
	}
	if r.err != nil {
		r.free()
		return nil, r.err
	}
	s, err := r.finish()
	if err != nil {
		r.free()
		return nil, err
	}
	return s, nil
}

// finish turns the recorded variables into columns, gives back the unused
// room and computes the digest.
func (r *recorder) finish() (*System, error) {
	if uint64(r.inputs)+uint64(r.aux) > 1<<32-1 {
		return nil, fmt.Errorf("compiled: %d inputs + %d aux exceed 2³² − 1 columns", r.inputs, r.aux)
	}
	s := &System{
		NumInputs:      r.inputs,
		NumAux:         r.aux,
		NumConstraints: r.rows,
		Coeffs:         r.coeffs.vals,
		ADensityAux:    &r.aAux,
		BDensityInput:  &r.bInput,
		BDensityAux:    &r.bAux,
	}
	for _, x := range []struct {
		b *matrixBuilder
		m *Matrix
	}{{&r.a, &s.A}, {&r.b, &s.B}, {&r.c, &s.C}} {
		var err error
		if x.m.RowPtr, err = x.b.rowPtr.trim(); err != nil {
			return nil, err
		}
		if x.m.Col, err = x.b.col.trim(); err != nil {
			return nil, err
		}
		if x.m.Coeff, err = x.b.coeff.trim(); err != nil {
			return nil, err
		}
		toColumns(x.m.Col, uint32(r.inputs))
	}
	s.release = r.free
	if err := s.checkShape(); err != nil {
		return nil, fmt.Errorf("compiled: %w", err)
	}
	s.Digest = digest(s)
	return s, nil
}

// toColumns maps recorded variables to columns: input i stays i, aux j
// becomes inputs + j.
func toColumns(col []uint32, inputs uint32) {
	auxFlag := uint32(r1cs.AuxVariable(0))
	parallel(len(col), 1<<16, func(lo, hi int) {
		for i, v := range col[lo:hi] {
			if v&auxFlag != 0 {
				col[lo+i] = v&^auxFlag + inputs
			}
		}
	})
}
