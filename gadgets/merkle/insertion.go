package merkle

import (
	"errors"
	"fmt"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-project/cuzk/gadgets/boolean"
	"github.com/cuzk-project/cuzk/gadgets/num"
	"github.com/cuzk-project/cuzk/r1cs"
)

// ErrInsert reports an insertion whose bits and elements do not fit.
var ErrInsert = errors.New("merkle: bad insertion")

var one = func() fr.Element { var e fr.Element; e.SetOne(); return e }()

// Pick allocates c = cond ? a : b and enforces (b − a) · cond = b − c
// (insertion.rs pick).
func Pick(cs r1cs.ConstraintSystem, cond boolean.Boolean, a, b num.AllocatedNum) num.AllocatedNum {
	v := b.Value
	if cond.Value() {
		v = a.Value
	}
	c := num.Alloc(cs, v)
	if r1cs.SkipsConstraints(cs) {
		cs.Enforce(nil, nil, nil) // the system ignores constraints
		return c
	}
	var la, lc r1cs.LinearCombination
	la.Add(b.Var)
	la.Sub(a.Var)
	lc.Add(b.Var)
	lc.Sub(c.Var)
	cs.Enforce(la, cond.LCOne(), lc)
	return c
}

// Insert places element among elements at the position given by bits
// (little-endian) and returns the len(elements) + 1 numbers, allocated with
// insertion.rs's gadgets: insert_2, insert_4 and insert_8 for those sizes,
// a select tree per position otherwise.
func Insert(cs r1cs.ConstraintSystem, element num.AllocatedNum, bits []boolean.Boolean, elements []num.AllocatedNum) ([]num.AllocatedNum, error) {
	size := len(elements) + 1
	if len(bits) >= 31 || 1<<len(bits) != size {
		return nil, fmt.Errorf("%w: %d bits cannot index %d positions", ErrInsert, len(bits), size)
	}
	switch size {
	case 2:
		return insert2(cs, element, bits, elements), nil
	case 4:
		return insert4(cs, element, bits, elements), nil
	case 8:
		return insert8(cs, element, bits, elements)
	}
	out := make([]num.AllocatedNum, size)
	choices := make([]num.AllocatedNum, size)
	for pos := range size {
		// At insertion index k, position pos holds elements[pos] when
		// pos < k, element when pos == k, elements[pos−1] when pos > k.
		for k := range size {
			switch {
			case pos < k:
				choices[k] = elements[pos]
			case pos == k:
				choices[k] = element
			default:
				choices[k] = elements[pos-1]
			}
		}
		out[pos] = Select(cs, choices, bits)
	}
	return out, nil
}

// Select returns from[index(bits)] with one pick per pair and level, the
// most significant bit first (insertion.rs select).
func Select(cs r1cs.ConstraintSystem, from []num.AllocatedNum, bits []boolean.Boolean) num.AllocatedNum {
	state := append([]num.AllocatedNum(nil), from...)
	half := len(from) / 2
	for i := len(bits) - 1; i >= 0; i-- {
		next := make([]num.AllocatedNum, half)
		for j := range half {
			next[j] = Pick(cs, bits[i], state[half+j], state[j])
		}
		state = next
		half /= 2
	}
	return state[0]
}

func insert2(cs r1cs.ConstraintSystem, a num.AllocatedNum, bits []boolean.Boolean, e []num.AllocatedNum) []num.AllocatedNum {
	return []num.AllocatedNum{
		Pick(cs, bits[0], e[0], a),
		Pick(cs, bits[0], a, e[0]),
	}
}

// insert4 inserts a into [b, c, d] (insertion.rs insert_4).
func insert4(cs r1cs.ConstraintSystem, a num.AllocatedNum, bits []boolean.Boolean, e []num.AllocatedNum) []num.AllocatedNum {
	b0, b1 := bits[0], bits[1]
	b, c, d := e[0], e[1], e[2]

	p0x0 := Pick(cs, b0, b, a)
	p0 := Pick(cs, b1, b, p0x0)

	p1x0 := Pick(cs, b0, a, b)
	p1 := Pick(cs, b1, c, p1x0)

	p2x1 := Pick(cs, b0, d, a)
	p2 := Pick(cs, b1, p2x1, c)

	p3x1 := Pick(cs, b0, a, d)
	p3 := Pick(cs, b1, p3x1, d)

	return []num.AllocatedNum{p0, p1, p2, p3}
}

// insert8 inserts a into [b, c, d, e, f, g, h] (insertion.rs insert_8). It
// first allocates b0 NOR b1 and b0 AND b1, so b0 and b1 must be allocated,
// unnegated bits.
func insert8(cs r1cs.ConstraintSystem, a num.AllocatedNum, bits []boolean.Boolean, el []num.AllocatedNum) ([]num.AllocatedNum, error) {
	b0, b1, b2 := bits[0], bits[1], bits[2]
	if b0.Kind != boolean.KindIs || b1.Kind != boolean.KindIs {
		return nil, fmt.Errorf("%w: insert_8 needs allocated, unnegated low bits", ErrInsert)
	}
	b, c, d, e, f, g, h := el[0], el[1], el[2], el[3], el[4], el[5], el[6]

	nor := boolean.Is(boolean.NorBits(cs, b0.Bit, b1.Bit))
	and := boolean.Is(boolean.AndBits(cs, b0.Bit, b1.Bit))

	p0xx0 := Pick(cs, nor, a, b)
	p0 := Pick(cs, b2, b, p0xx0)

	p1x00 := Pick(cs, b0, a, b)
	p1xx0 := Pick(cs, b1, c, p1x00)
	p1 := Pick(cs, b2, c, p1xx0)

	p2x10 := Pick(cs, b0, d, a)
	p2xx0 := Pick(cs, b1, p2x10, c)
	p2 := Pick(cs, b2, d, p2xx0)

	p3xx0 := Pick(cs, and, a, d)
	p3 := Pick(cs, b2, e, p3xx0)

	p4xx1 := Pick(cs, nor, a, f)
	p4 := Pick(cs, b2, p4xx1, e)

	p5x01 := Pick(cs, b0, a, f)
	p5xx1 := Pick(cs, b1, g, p5x01)
	p5 := Pick(cs, b2, p5xx1, f)

	p6x11 := Pick(cs, b0, h, a)
	p6xx1 := Pick(cs, b1, p6x11, g)
	p6 := Pick(cs, b2, p6xx1, g)

	p7xx1 := Pick(cs, and, a, h)
	p7 := Pick(cs, b2, p7xx1, h)

	return []num.AllocatedNum{p0, p1, p2, p3, p4, p5, p6, p7}, nil
}
