package r1cs

import (
	"math/rand/v2"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

func elem(v uint64) fr.Element { var e fr.Element; e.SetUint64(v); return e }

func TestLinearCombinationMergesAndSorts(t *testing.T) {
	var lc LinearCombination
	lc.Add(AuxVariable(3)).Add(InputVariable(2)).Add(AuxVariable(1)).Add(AuxVariable(3)).Add(One)
	want := []struct {
		v Variable
		c uint64
	}{{One, 1}, {InputVariable(2), 1}, {AuxVariable(1), 1}, {AuxVariable(3), 2}}
	if len(lc) != len(want) {
		t.Fatalf("len = %d, want %d: %v", len(lc), len(want), lc)
	}
	for i, w := range want {
		c := elem(w.c)
		if lc[i].Var != w.v || !lc[i].Coeff.Equal(&c) {
			t.Errorf("term %d = %v·%v, want %d·%v", i, lc[i].Coeff.String(), lc[i].Var, w.c, w.v)
		}
	}
	// x − x leaves a zero coefficient, which must not mark density.
	lc.Sub(AuxVariable(1))
	if !lc[2].Coeff.IsZero() {
		t.Fatalf("aux[1] coefficient = %s, want 0", lc[2].Coeff.String())
	}
}

func TestCloneDoesNotAlias(t *testing.T) {
	var base LinearCombination
	base.Add(AuxVariable(0))
	base = append(make(LinearCombination, 0, 8), base...)
	x := base.Clone()
	x.Add(AuxVariable(5))
	y := base.Clone()
	y.Add(AuxVariable(6))
	if x[1].Var != AuxVariable(5) || y[1].Var != AuxVariable(6) || len(base) != 1 {
		t.Fatalf("clones alias: base=%v x=%v y=%v", base, x, y)
	}
}

func TestVariableEncoding(t *testing.T) {
	for _, i := range []int{0, 1, 12345, MaxVariables - 1} {
		if v := InputVariable(i); !v.IsInput() || v.Index() != i {
			t.Errorf("InputVariable(%d) = %v", i, v)
		}
		if v := AuxVariable(i); v.IsInput() || v.Index() != i {
			t.Errorf("AuxVariable(%d) = %v", i, v)
		}
	}
}

// randomCircuit enforces random products and linear relations, with a
// valid witness, and some variables that never appear in A or B.
type randomCircuit struct {
	seed              uint64
	inputs, rows, aux int
}

func (c randomCircuit) Synthesize(cs ConstraintSystem) error {
	rng := rand.New(rand.NewPCG(c.seed, 1))
	vals := map[Variable]fr.Element{One: elem(1)}
	vars := []Variable{One}
	for i := 0; i < c.inputs; i++ {
		e := elem(rng.Uint64N(5))
		v := cs.AllocInput(e)
		vals[v] = e
		vars = append(vars, v)
	}
	for i := 0; i < c.aux; i++ {
		e := elem(rng.Uint64N(3))
		v := cs.Alloc(e)
		vals[v] = e
		vars = append(vars, v)
	}
	for r := 0; r < c.rows; r++ {
		x := vars[rng.IntN(len(vars))]
		y := vars[rng.IntN(len(vars))]
		var p fr.Element
		xv, yv := vals[x], vals[y]
		p.Mul(&xv, &yv)
		z := cs.Alloc(p)
		vals[z] = p
		vars = append(vars, z)
		var a, b, cc LinearCombination
		a.Add(x)
		if rng.IntN(4) == 0 {
			// x + w − w: w cancels and must not count as dense.
			w := vars[rng.IntN(len(vars))]
			a.Add(w).Sub(w)
		}
		b.Add(y)
		cc.Add(z)
		cs.Enforce(a, b, cc)
	}
	return nil
}

func TestCounterAgreesWithProvingAssignment(t *testing.T) {
	for _, c := range []randomCircuit{
		{seed: 1, inputs: 0, rows: 0, aux: 0},
		{seed: 2, inputs: 1, rows: 1, aux: 1},
		{seed: 3, inputs: 5, rows: 100, aux: 20},
		{seed: 4, inputs: 50, rows: 3000, aux: 500},
	} {
		p := NewProvingAssignment(Shape{})
		if err := Synthesize(p, c); err != nil {
			t.Fatal(err)
		}
		var n Counter
		if err := Synthesize(&n, c); err != nil {
			t.Fatal(err)
		}
		w := &WitnessAssignment{}
		if err := Synthesize(w, c); err != nil {
			t.Fatal(err)
		}
		if row := p.IsSatisfied(); row != -1 {
			t.Fatalf("seed %d: row %d unsatisfied", c.seed, row)
		}
		checks := []struct {
			name      string
			got, want int
		}{
			{"inputs", n.NumInputs(), p.NumInputs()},
			{"aux", n.NumAux(), p.NumAux()},
			{"constraints", n.NumConstraints(), p.NumConstraints()},
			{"rows = circuit + inputs", p.NumConstraints(), c.rows + c.inputs + 1},
			{"A-aux popcount", n.ADensityAuxCount(), p.ADensityAux.PopCount()},
			{"B-input popcount", n.BDensityInputCount(), p.BDensityInput.PopCount()},
			{"B-aux popcount", n.BDensityAuxCount(), p.BDensityAux.PopCount()},
			{"witness inputs", w.NumInputs(), p.NumInputs()},
			{"witness aux", w.NumAux(), p.NumAux()},
			{"witness constraints", w.NumConstraints(), p.NumConstraints()},
			{"density lengths", p.ADensityAux.Len() + p.BDensityAux.Len(), 2 * p.NumAux()},
			{"B-input length", p.BDensityInput.Len(), p.NumInputs()},
		}
		for _, ch := range checks {
			if ch.got != ch.want {
				t.Errorf("seed %d: %s = %d, want %d", c.seed, ch.name, ch.got, ch.want)
			}
		}
		for i := range w.Aux {
			if !w.Aux[i].Equal(&p.Aux[i]) {
				t.Fatalf("seed %d: witness aux[%d] differs", c.seed, i)
			}
		}
		// The input constraints: A = input_i, B = C = 0.
		for i := 0; i < p.NumInputs(); i++ {
			row := p.NumConstraints() - p.NumInputs() + i
			if !p.A[row].Equal(&p.Input[i]) || !p.B[row].IsZero() || !p.C[row].IsZero() {
				t.Errorf("seed %d: input constraint %d is not input·0 = 0", c.seed, i)
			}
		}
	}
}

func TestUnsatisfiedWitnessIsDetected(t *testing.T) {
	p := NewProvingAssignment(Shape{})
	x := p.Alloc(elem(3))
	y := p.Alloc(elem(4))
	z := p.Alloc(elem(13)) // not 12
	var a, b, c LinearCombination
	a.Add(x)
	b.Add(y)
	c.Add(z)
	p.Enforce(a, b, c)
	if row := p.IsSatisfied(); row != 0 {
		t.Fatalf("IsSatisfied = %d, want 0", row)
	}
}

func TestBitmap(t *testing.T) {
	var b Bitmap
	for i := 0; i < 200; i++ {
		b.Grow()
		if i%3 == 0 {
			b.Set(i)
		}
	}
	if b.Len() != 200 || b.PopCount() != 67 || !b.Get(198) || b.Get(199) {
		t.Fatalf("bitmap len %d pop %d", b.Len(), b.PopCount())
	}
	c := b.Clone()
	c.Set(1)
	if b.Get(1) {
		t.Fatal("clone aliases")
	}
}

// TestEnforceEvaluatesEveryFactorKind checks the a, b, c a ProvingAssignment
// stores against LinearCombination.Eval for coefficients and values drawn
// from {0, 1, −1, 2, random}, the cases eval treats apart.
func TestEnforceEvaluatesEveryFactorKind(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	pick := func() fr.Element {
		switch rng.IntN(5) {
		case 0:
			return fr.Element{}
		case 1:
			return elem(1)
		case 2:
			var e fr.Element
			e.SetOne()
			return *e.Neg(&e)
		case 3:
			return elem(2)
		}
		var e fr.Element
		e.SetRandom()
		return e
	}
	p := NewProvingAssignment(Shape{})
	p.AllocInput(elem(1))
	vars := []Variable{One}
	for i := 0; i < 40; i++ {
		if i%4 == 0 {
			vars = append(vars, p.AllocInput(pick()))
		} else {
			vars = append(vars, p.Alloc(pick()))
		}
	}
	for row := 0; row < 300; row++ {
		var lcs [3]LinearCombination
		for k := range lcs {
			for n := rng.IntN(6); n > 0; n-- {
				lcs[k].AddCoeff(pick(), vars[rng.IntN(len(vars))])
			}
		}
		p.Enforce(lcs[0], lcs[1], lcs[2])
		got := [3]fr.Element{p.A[row], p.B[row], p.C[row]}
		for k := range lcs {
			if want := lcs[k].Eval(p.Input, p.Aux); !got[k].Equal(&want) {
				t.Fatalf("row %d, combination %d: stored %s, want %s", row, k, got[k].String(), want.String())
			}
		}
	}
}

// TestProvingAssignmentReservesDomain checks when a, b and c get room for
// the whole FFT domain: only when it costs at most 1/16 over the hint.
func TestProvingAssignmentReservesDomain(t *testing.T) {
	for _, c := range []struct{ hint, want int }{
		{0, 0}, {1, 1}, {2, 2}, {1024, 1024},
		{1000, 1024},       // 2.4 % more: reserved
		{1000000, 1 << 20}, // 4.9 % more (a PoRep partition: 3 %)
		{532025, 532025},   // just over 2^19: not reserved
		{1<<20 + 1, 1<<20 + 1},
	} {
		p := NewProvingAssignment(Shape{Constraints: c.hint})
		if cap(p.A) != c.want || cap(p.B) != c.want || cap(p.C) != c.want {
			t.Errorf("hint %d: capacities %d, %d, %d, want %d", c.hint, cap(p.A), cap(p.B), cap(p.C), c.want)
		}
	}
}
