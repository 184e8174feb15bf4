package r1cs

import "github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

// Checker is a ConstraintSystem that checks a witness as it is
// synthesized: each Enforce evaluates a, b and c against the values
// allocated so far and tests a·b = c at once, keeping nothing of the row.
// It counts the rows and the unsatisfied ones and remembers the first
// unsatisfied row's index, so its memory is the witness (inputs and aux)
// alone, where a ProvingAssignment also keeps three scalars per row and
// the densities. It is how `cuzk check` tells a bad vanilla proof from a
// bad prover without parameters or a device.
//
// A row that names a variable not allocated yet counts as unsatisfied:
// the witness gives it no value. The zero value is ready to use.
type Checker struct {
	Input, Aux []fr.Element

	constraints int
	unsatisfied int
	firstBad    int // index of the first unsatisfied row + 1; 0: none
}

// NewChecker returns an empty checker with room for hint's inputs and
// aux values (the rows take no room).
func NewChecker(hint Shape) *Checker {
	return &Checker{
		Input: make([]fr.Element, 0, hint.Inputs),
		Aux:   make([]fr.Element, 0, hint.Aux),
	}
}

func (c *Checker) Alloc(value fr.Element) Variable {
	c.Aux = append(c.Aux, value)
	return AuxVariable(len(c.Aux) - 1)
}

func (c *Checker) AllocInput(value fr.Element) Variable {
	c.Input = append(c.Input, value)
	return InputVariable(len(c.Input) - 1)
}

func (c *Checker) Enforce(a, b, lc LinearCombination) {
	row := c.constraints
	c.constraints++
	va, okA := c.eval(a)
	vb, okB := c.eval(b)
	vc, okC := c.eval(lc)
	if okA && okB && okC && holds(&va, &vb, &vc) {
		return
	}
	c.unsatisfied++
	if c.firstBad == 0 {
		c.firstBad = row + 1
	}
}

// holds reports a·b = c, skipping the product when a or b is 0 or 1 (most
// rows of bit-heavy gadgets).
func holds(a, b, c *fr.Element) bool {
	switch {
	case a.IsZero(), b.IsZero():
		return c.IsZero()
	case a.IsOne():
		return b.Equal(c)
	case b.IsOne():
		return a.Equal(c)
	}
	var p fr.Element
	p.Mul(a, b)
	return p.Equal(c)
}

// eval computes Σ coeff·value; ok is false when a term names a variable
// that has no value yet.
func (c *Checker) eval(lc LinearCombination) (sum fr.Element, ok bool) {
	var t fr.Element
	for i := range lc {
		term := &lc[i]
		var vals []fr.Element
		if term.Var.IsInput() {
			vals = c.Input
		} else {
			vals = c.Aux
		}
		k := term.Var.Index()
		if k >= len(vals) {
			return sum, false
		}
		val := &vals[k]
		// Most witness values are bits and most coefficients one or powers
		// of two: skip the multiplication where a factor is 0 or 1.
		switch {
		case term.Coeff.IsOne():
			sum.Add(&sum, val)
		case val.IsZero(), term.Coeff.IsZero():
		case val.IsOne():
			sum.Add(&sum, &term.Coeff)
		default:
			t.Mul(&term.Coeff, val)
			sum.Add(&sum, &t)
		}
	}
	return sum, true
}

func (c *Checker) NumInputs() int      { return len(c.Input) }
func (c *Checker) NumAux() int         { return len(c.Aux) }
func (c *Checker) NumConstraints() int { return c.constraints }

// Unsatisfied counts the rows where a·b ≠ c.
func (c *Checker) Unsatisfied() int { return c.unsatisfied }

// FirstUnsatisfied is the index of the first row where a·b ≠ c (rows
// counted from 0 in Enforce order), or -1 when every row holds.
func (c *Checker) FirstUnsatisfied() int { return c.firstBad - 1 }

// Satisfied reports whether every row so far holds.
func (c *Checker) Satisfied() bool { return c.unsatisfied == 0 }

// SkipsConstraints is false: the checker needs every combination.
func (c *Checker) SkipsConstraints() bool { return false }

var (
	_ System            = (*Checker)(nil)
	_ ConstraintSkipper = (*Checker)(nil)
)
