package boolean

import "github.com/cuzk-project/cuzk/r1cs"

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
