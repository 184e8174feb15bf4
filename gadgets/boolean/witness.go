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
