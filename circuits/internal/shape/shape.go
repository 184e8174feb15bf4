package shape

import (
	"sync"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-project/cuzk/r1cs"
)

var one = fr.One()

// Count is the size of what synthesize writes to a fresh r1cs.Counter. The
// counter holds ONE, which gadgets name in their rows; it is not counted.
func Count(synthesize func(cs r1cs.ConstraintSystem) error) (r1cs.Shape, error) {
	var c r1cs.Counter
	c.AllocInput(one)
	if err := synthesize(&c); err != nil {
		return r1cs.Shape{}, err
	}
	return r1cs.Shape{Inputs: c.Inputs - 1, Aux: c.Aux, Constraints: c.Constraints}, nil
}

// Diff is what b has more than a, field by field: one unit's size when a
// and b count the same circuit with one unit less and more.
func Diff(a, b r1cs.Shape) r1cs.Shape {
	return r1cs.Shape{Inputs: b.Inputs - a.Inputs, Aux: b.Aux - a.Aux, Constraints: b.Constraints - a.Constraints}
}

// Add is s with n units of size u.
func Add(s, u r1cs.Shape, n int) r1cs.Shape {
	return r1cs.Shape{Inputs: s.Inputs + n*u.Inputs, Aux: s.Aux + n*u.Aux, Constraints: s.Constraints + n*u.Constraints}
}

// Extrapolate is the size with n units, from the size with none (base) and
// with one (first).
func Extrapolate(base, first r1cs.Shape, n int) r1cs.Shape {
	return Add(base, Diff(base, first), n)
}

// Units is the size of a circuit of n units, where synthesize(cs, k) writes
// its own part and its first k units: it counts k = 0 and k = 1 and
// extrapolates.
func Units(synthesize func(cs r1cs.ConstraintSystem, k int) error, n int) (r1cs.Shape, error) {
	var counts [2]r1cs.Shape
	for k := range counts {
		var err error
		if counts[k], err = Count(func(cs r1cs.ConstraintSystem) error { return synthesize(cs, k) }); err != nil {
			return r1cs.Shape{}, err
		}
	}
	return Extrapolate(counts[0], counts[1], n), nil
}

// Config is a circuit configuration: comparable, so that shapes can be
// cached by it, and checked before it is counted.
type Config interface {
	comparable
	Validate() error
}

// Memo caches one circuit's shapes per configuration. The zero value is
// ready to use.
type Memo[C Config] struct {
	m sync.Map // C → r1cs.Shape
}

// Shape is the size of the system r1cs.Synthesize builds for c: count(c),
// what the circuit allocates and enforces, plus ONE and the input rows
// r1cs.Finalize appends (one per input, ONE's included). c is validated
// first; count only sees valid configurations. A failure is not cached.
func (m *Memo[C]) Shape(c C, count func(C) (r1cs.Shape, error)) (r1cs.Shape, error) {
	if s, ok := m.m.Load(c); ok {
		return s.(r1cs.Shape), nil
	}
	if err := c.Validate(); err != nil {
		return r1cs.Shape{}, err
	}
	s, err := count(c)
	if err != nil {
		return r1cs.Shape{}, err
	}
	s.Inputs++
	s.Constraints += s.Inputs
	m.m.Store(c, s)
	return s, nil
}
