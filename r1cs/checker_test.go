package r1cs

import "testing"

type circuitFunc func(cs ConstraintSystem) error

func (f circuitFunc) Synthesize(cs ConstraintSystem) error { return f(cs) }

// product allocates x, y and z = x·y + delta and enforces x·y = z.
func product(cs ConstraintSystem, x, y, delta uint64) {
	a, b := cs.Alloc(elem(x)), cs.Alloc(elem(y))
	c := cs.Alloc(elem(x*y + delta))
	cs.Enforce(LC(Term{a, oneElement}), LC(Term{b, oneElement}), LC(Term{c, oneElement}))
}

func TestChecker(t *testing.T) {
	two := elem(2)
	tests := []struct {
		name                          string
		c                             circuitFunc
		inputs, aux, rows, bad, first int
		skipProver                    bool // the prover panics on it
	}{
		{"empty", func(cs ConstraintSystem) error { return nil }, 1, 0, 1, 0, -1, false},
		{"satisfied", func(cs ConstraintSystem) error {
			product(cs, 3, 4, 0)
			product(cs, 0, 9, 0)
			product(cs, 1, 1, 0)
			cs.Enforce(nil, nil, nil) // 0 · 0 = 0
			return nil
		}, 1, 9, 5, 0, -1, false},
		{"one bad row", func(cs ConstraintSystem) error {
			product(cs, 3, 4, 0)
			product(cs, 5, 6, 1)
			product(cs, 7, 8, 0)
			return nil
		}, 1, 9, 4, 1, 1, false},
		{"first of two bad rows", func(cs ConstraintSystem) error {
			product(cs, 3, 4, 0)
			product(cs, 3, 4, 0)
			product(cs, 5, 6, 2)
			product(cs, 7, 8, 3)
			return nil
		}, 1, 12, 5, 2, 2, false},
		{"inputs: 2·in = aux", func(cs ConstraintSystem) error {
			in := cs.AllocInput(elem(21))
			out := cs.Alloc(elem(42))
			cs.Enforce(LC(Term{in, two}), LC(Term{One, oneElement}), LC(Term{out, oneElement}))
			return nil
		}, 2, 1, 3, 0, -1, false},
		{"inputs: a wrong public input", func(cs ConstraintSystem) error {
			in := cs.AllocInput(elem(20))
			out := cs.Alloc(elem(42))
			cs.Enforce(LC(Term{in, two}), LC(Term{One, oneElement}), LC(Term{out, oneElement}))
			return nil
		}, 2, 1, 3, 1, 0, false},
		{"a variable with no value", func(cs ConstraintSystem) error {
			product(cs, 2, 2, 0)
			cs.Enforce(LC(Term{AuxVariable(7), oneElement}), nil, nil)
			return nil
		}, 1, 3, 3, 1, 1, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var c Checker
			if err := Synthesize(&c, tc.c); err != nil {
				t.Fatal(err)
			}
			if c.NumInputs() != tc.inputs || c.NumAux() != tc.aux || c.NumConstraints() != tc.rows {
				t.Errorf("inputs/aux/rows %d/%d/%d, want %d/%d/%d", c.NumInputs(), c.NumAux(), c.NumConstraints(), tc.inputs, tc.aux, tc.rows)
			}
			if c.Unsatisfied() != tc.bad || c.FirstUnsatisfied() != tc.first || c.Satisfied() != (tc.bad == 0) {
				t.Errorf("unsatisfied %d, first %d, satisfied %v; want %d, %d", c.Unsatisfied(), c.FirstUnsatisfied(), c.Satisfied(), tc.bad, tc.first)
			}
			if SkipsConstraints(&c) {
				t.Error("the checker must get every combination")
			}
			if tc.skipProver {
				return
			}
			p := NewProvingAssignment(Shape{})
			if err := Synthesize(p, tc.c); err != nil {
				t.Fatal(err)
			}
			if got := p.IsSatisfied(); got != tc.first || p.NumConstraints() != c.NumConstraints() {
				t.Errorf("ProvingAssignment: first bad %d of %d rows, checker %d of %d", got, p.NumConstraints(), tc.first, c.NumConstraints())
			}
		})
	}
}
