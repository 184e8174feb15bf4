package compiled

import (
	"fmt"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// coeffTable deduplicates coefficients in order of first appearance, 1 and
// −1 first. Most coefficients are ±1 (compared directly); the others (powers
// of two in packings, Poseidon constants) are few and recur, so a
// direct-mapped cache in front of the map answers most lookups without
// hashing the 32-byte key.
type coeffTable struct {
	vals     []fr.Element
	index    map[fr.Element]uint16
	minusOne fr.Element
	cache    [coeffCacheSize]cachedCoeff
}

const coeffCacheSize = 1 << 12

type cachedCoeff struct {
	v  fr.Element
	k  uint16
	ok bool
}

// slot picks a cache entry from the low limb (Montgomery limbs of distinct
// constants look random).
func slot(c *fr.Element) int { return int((c[0] ^ c[0]>>29 ^ c[1]) % coeffCacheSize) }

func newCoeffTable() *coeffTable {
	var one, minusOne fr.Element
	one.SetOne()
	minusOne.Neg(&one)
	t := &coeffTable{
		vals:     []fr.Element{one, minusOne},
		index:    map[fr.Element]uint16{one: CoeffOne, minusOne: CoeffMinusOne},
		minusOne: minusOne,
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
	}
	e := &t.cache[slot(c)]
	if e.ok && e.v == *c {
		return e.k, nil
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
	*e = cachedCoeff{v: *c, k: k, ok: true}
	return k, nil
}
