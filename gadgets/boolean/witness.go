package boolean

import "github.com/cuzk-project/cuzk/r1cs"

// ConstraintSkipper is implemented by constraint systems that only count
// what is enforced (and by wrappers around them, such as uint32.MultiEq).
type ConstraintSkipper interface {
	SkipsConstraints() bool
}

// SkipsConstraints reports whether cs ignores the linear combinations passed
// to Enforce (r1cs.WitnessAssignment does: it records values and counts
// rows). Gadgets then skip building combinations and call Enforce(nil, nil,
// nil), so the allocations, their order and the row count stay the same
// while the witness is computed several times faster.
func SkipsConstraints(cs r1cs.ConstraintSystem) bool {
	switch s := cs.(type) {
	case *r1cs.WitnessAssignment:
		return true
	case ConstraintSkipper:
		return s.SkipsConstraints()
	}
	return false
}

// TermAllocator is implemented by constraint-system wrappers that hand out
// term slices from larger blocks (uint32.MultiEq does). Every slice handed
// out is fresh memory that is never reused, so a system that keeps the
// combinations it is given stays correct; the block just saves allocations.
type TermAllocator interface {
	AllocTerms(n int) []r1cs.Term
}

// terms returns n zeroed terms, from cs's blocks when it has them.
func terms(cs r1cs.ConstraintSystem, n int) []r1cs.Term {
	if ta, ok := cs.(TermAllocator); ok {
		return ta.AllocTerms(n)
	}
	return make([]r1cs.Term, n)
}

// TermBlock hands out term slices carved from blocks of BlockTerms terms
// (full-slice expressions, so no two slices share capacity). The zero value
// is ready; it is not safe for concurrent use.
type TermBlock struct {
	block []r1cs.Term
}

// BlockTerms is the size of one TermBlock block.
const BlockTerms = 512

// AllocTerms returns n zeroed terms.
func (tb *TermBlock) AllocTerms(n int) []r1cs.Term {
	if n > BlockTerms/8 {
		return make([]r1cs.Term, n)
	}
	if len(tb.block) < n {
		tb.block = make([]r1cs.Term, BlockTerms)
	}
	out := tb.block[:n:n]
	tb.block = tb.block[n:]
	return out
}
