package r1cs

import "github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

// ConstraintSystem is what a circuit talks to, with bellperson's semantics
// (alloc, alloc_input, enforce). Values are always supplied: systems that do
// not need them (counting) ignore them.
type ConstraintSystem interface {
	// Alloc allocates a private (aux) variable holding value.
	Alloc(value fr.Element) Variable
	// AllocInput allocates a public input holding value.
	AllocInput(value fr.Element) Variable
	// Enforce adds the constraint a · b = c.
	Enforce(a, b, c LinearCombination)
}

// Circuit is anything that can synthesize itself into a constraint system.
// The system passed in already holds ONE as input 0.
type Circuit interface {
	Synthesize(cs ConstraintSystem) error
}

// System is a ConstraintSystem that can be finalized and reports its size.
type System interface {
	ConstraintSystem
	// NumInputs counts inputs, ONE included.
	NumInputs() int
	NumAux() int
	NumConstraints() int
}

// Synthesize runs the bellperson sequence on cs: allocate ONE, synthesize
// the circuit, then append one input constraint input_i · 0 = 0 per input.
func Synthesize(cs System, c Circuit) error {
	cs.AllocInput(fr.One())
	if err := c.Synthesize(cs); err != nil {
		return err
	}
	Finalize(cs)
	return nil
}

// Finalize appends the input constraints bellperson's prover adds after the
// circuit: for every input i, A = input_i, B = C = 0.
func Finalize(cs System) {
	n := cs.NumInputs()
	for i := 0; i < n; i++ {
		cs.Enforce(LinearCombination{{Var: InputVariable(i), Coeff: oneElement}}, nil, nil)
	}
}

// ConstraintSkipper is implemented by systems that ignore the linear
// combinations passed to Enforce (WitnessAssignment records values and
// counts rows), and by wrappers that forward to such a system.
type ConstraintSkipper interface {
	SkipsConstraints() bool
}

// SkipsConstraints reports whether cs ignores the combinations passed to
// Enforce. Gadgets then skip building them and call Enforce(nil, nil, nil):
// allocations, their order and the row count stay the same, while the
// witness is computed several times faster.
func SkipsConstraints(cs ConstraintSystem) bool {
	s, ok := cs.(ConstraintSkipper)
	return ok && s.SkipsConstraints()
}
