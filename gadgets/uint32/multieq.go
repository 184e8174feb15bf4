package uint32

import (
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
	ops      int
	bitsUsed int
	lhs, rhs r1cs.LinearCombination
}

// NewMultiEq starts an empty batch on cs.
func NewMultiEq(cs r1cs.ConstraintSystem) *MultiEq { return &MultiEq{cs: cs} }

func (m *MultiEq) Alloc(v fr.Element) r1cs.Variable      { return m.cs.Alloc(v) }
func (m *MultiEq) AllocInput(v fr.Element) r1cs.Variable { return m.cs.AllocInput(v) }
func (m *MultiEq) Enforce(a, b, c r1cs.LinearCombination) {
	m.cs.Enforce(a, b, c)
}

// Ops counts the constraints MultiEq has emitted.
func (m *MultiEq) Ops() int { return m.ops }

func (m *MultiEq) accumulate() {
	m.cs.Enforce(m.lhs, r1cs.LinearCombination{{Var: r1cs.One, Coeff: one}}, m.rhs)
	m.lhs, m.rhs = nil, nil
	m.bitsUsed = 0
	m.ops++
}

// EnforceEqual records lhs = rhs, both below 2^numBits. It emits the pending
// batch first when the new equality would reach CAPACITY bits.
func (m *MultiEq) EnforceEqual(numBits int, lhs, rhs r1cs.LinearCombination) {
	if boolean.FieldCapacity <= m.bitsUsed+numBits {
		m.accumulate()
	}
	if boolean.FieldCapacity <= m.bitsUsed+numBits {
		panic("uint32: MultiEq equality wider than the field capacity")
	}
	coeff := pow2[m.bitsUsed]
	m.lhs.AddLC(coeff, lhs)
	m.rhs.AddLC(coeff, rhs)
	m.bitsUsed += numBits
}

// Flush emits the pending batch, if any (bellpepper's Drop).
func (m *MultiEq) Flush() {
	if m.bitsUsed > 0 {
		m.accumulate()
	}
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
