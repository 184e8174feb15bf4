package uint32

import (
	"slices"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-project/cuzk/gadgets/boolean"
	"github.com/cuzk-project/cuzk/r1cs"
)

// MultiEq wraps a constraint system and batches equalities lhs = rhs of
// known bit width into shared constraints (bellpepper gadgets/multieq.rs).
// It is itself a ConstraintSystem that passes allocations and constraints
// straight through. Call Flush when done: pending equalities are lost
// otherwise.
type MultiEq struct {
	cs       r1cs.ConstraintSystem
	skip     bool // cs ignores linear combinations
	ops      int
	bitsUsed int
	// lhs and rhs collect scaled terms unsorted; accumulate sorts and merges
	// them into the linear combinations bellpepper's Indexer would hold.
	lhs, rhs []r1cs.Term
	// terms serves the gadgets that run on this MultiEq (boolean.TermAllocator).
	terms boolean.TermBlock
}

// AllocTerms hands out fresh term slices from blocks (boolean.TermAllocator).
func (m *MultiEq) AllocTerms(n int) []r1cs.Term { return m.terms.AllocTerms(n) }

// NewMultiEq starts an empty batch on cs.
func NewMultiEq(cs r1cs.ConstraintSystem) *MultiEq {
	return &MultiEq{cs: cs, skip: r1cs.SkipsConstraints(cs)}
}

// SkipsConstraints reports whether the wrapped system ignores linear
// combinations (see boolean.SkipsConstraints).
func (m *MultiEq) SkipsConstraints() bool { return m.skip }

func (m *MultiEq) Alloc(v fr.Element) r1cs.Variable      { return m.cs.Alloc(v) }
func (m *MultiEq) AllocInput(v fr.Element) r1cs.Variable { return m.cs.AllocInput(v) }
func (m *MultiEq) Enforce(a, b, c r1cs.LinearCombination) {
	m.cs.Enforce(a, b, c)
}

// Ops counts the constraints MultiEq has emitted.
func (m *MultiEq) Ops() int { return m.ops }

func (m *MultiEq) accumulate() {
	if m.skip {
		m.cs.Enforce(nil, nil, nil)
		m.bitsUsed = 0
		m.ops++
		return
	}
	m.cs.Enforce(sortMerge(m.lhs), r1cs.LinearCombination{{Var: r1cs.One, Coeff: one}}, sortMerge(m.rhs))
	m.lhs, m.rhs = m.lhs[:0], m.rhs[:0]
	m.bitsUsed = 0
	m.ops++
}

// EnforceEqual records lhs = rhs, both below 2^numBits. It emits the pending
// batch first when the new equality would reach CAPACITY bits.
func (m *MultiEq) EnforceEqual(numBits int, lhs, rhs []r1cs.Term) {
	if boolean.FieldCapacity <= m.bitsUsed+numBits {
		m.accumulate()
	}
	if boolean.FieldCapacity <= m.bitsUsed+numBits {
		panic("uint32: MultiEq equality wider than the field capacity")
	}
	if m.skip {
		m.bitsUsed += numBits
		return
	}
	m.lhs = appendScaled(m.lhs, lhs, m.bitsUsed)
	m.rhs = appendScaled(m.rhs, rhs, m.bitsUsed)
	m.bitsUsed += numBits
}

// appendScaled appends 2^shift · terms to dst.
func appendScaled(dst []r1cs.Term, terms []r1cs.Term, shift int) []r1cs.Term {
	if shift == 0 {
		return append(dst, terms...)
	}
	c := &pow2[shift]
	for i := range terms {
		t := r1cs.Term{Var: terms[i].Var}
		t.Coeff.Mul(&terms[i].Coeff, c)
		dst = append(dst, t)
	}
	return dst
}

// sortMerge returns terms as a linear combination: sorted by variable,
// one term per variable with the summed coefficient. It sorts 8-byte keys
// (variable, position) rather than the 40-byte terms.
func sortMerge(terms []r1cs.Term) r1cs.LinearCombination {
	keys := make([]uint64, len(terms))
	for i := range terms {
		keys[i] = uint64(terms[i].Var)<<32 | uint64(i)
	}
	slices.Sort(keys)
	out := make(r1cs.LinearCombination, 0, len(terms))
	for _, k := range keys {
		t := &terms[uint32(k)]
		if n := len(out); n > 0 && out[n-1].Var == t.Var {
			out[n-1].Coeff.Add(&out[n-1].Coeff, &t.Coeff)
			continue
		}
		out = append(out, *t)
	}
	return out
}

var one = func() fr.Element { var e fr.Element; e.SetOne(); return e }()

// pow2[i] = 2^i for i < 256.
var pow2 = func() (p [256]fr.Element) {
	p[0].SetOne()
	for i := 1; i < len(p); i++ {
		p[i].Double(&p[i-1])
	}
	return p
}()

// Flush emits the pending batch, if any (bellpepper's Drop).
func (m *MultiEq) Flush() {
	if m.bitsUsed > 0 {
		m.accumulate()
	}
}
