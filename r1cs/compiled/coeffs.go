package compiled

import (
	"fmt"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// coeffTable deduplicates coefficients in order of first appearance, 1 and
// −1 first. Most coefficients are ±1 (compared directly); the last other
// coefficient is remembered, since gadgets repeat one (a power of two, a
// Poseidon constant) over a row or a run of rows.
type coeffTable struct {
	vals     []fr.Element
	index    map[fr.Element]uint16
	minusOne fr.Element
	last     fr.Element
	lastIdx  uint16
}

func newCoeffTable() *coeffTable {
	var one, minusOne fr.Element
	one.SetOne()
	minusOne.Neg(&one)
	t := &coeffTable{
		vals:     []fr.Element{one, minusOne},
		index:    map[fr.Element]uint16{one: CoeffOne, minusOne: CoeffMinusOne},
		minusOne: minusOne,
		last:     one,
	}
	return t
}

// lookup returns c's index, adding c when it is new. c must not be zero.
func (t *coeffTable) lookup(c *fr.Element) (uint16, error) {
	switch {
	case c.IsOne():
		return CoeffOne, nil
	case c.Equal(&t.minusOne):
		return CoeffMinusOne, nil
	case c.Equal(&t.last):
		return t.lastIdx, nil
	}
	k, ok := t.index[*c]
	if !ok {
		if len(t.vals) == MaxCoeffs {
			return 0, fmt.Errorf("%w: more than %d", ErrTooManyCoeffs, MaxCoeffs)
		}
		k = uint16(len(t.vals))
		t.vals = append(t.vals, *c)
		t.index[*c] = k
	}
	t.last, t.lastIdx = *c, k
	return k, nil
}
