package compiled_test

import (
	"errors"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-project/cuzk/r1cs"
	"github.com/cuzk-project/cuzk/r1cs/compiled"
)

// equalCase is a circuit whose compiled system and witness-only synthesis
// must reproduce its ProvingAssignment.
type equalCase struct {
	name  string
	c     r1cs.Circuit
	hint  r1cs.Shape
	short bool // runs under -short
}

func equalCases() []equalCase {
	return []equalCase{
		{"random-tiny", &randCircuit{Seed: 1, Inputs: 0, Rows: 3}, r1cs.Shape{}, true},
		{"random-mixed", &randCircuit{Seed: 2, Inputs: 5, Rows: 3000}, r1cs.Shape{}, true},
		{"random-bits", &randCircuit{Seed: 3, Inputs: 9, Rows: 5000, BitHeavy: true}, r1cs.Shape{Constraints: 100}, true},
		{"random-raw", &randCircuit{Seed: 4, Inputs: 3, Rows: 4000, Raw: true}, r1cs.Shape{}, true},
		{"random-raw-bits", &randCircuit{Seed: 5, Inputs: 70, Rows: 20000, BitHeavy: true, Raw: true}, r1cs.Shape{}, true},
		{"random-large", &randCircuit{Seed: 6, Inputs: 40, Rows: 300000, BitHeavy: true, Raw: true}, r1cs.Shape{}, false},
		{"gadgets", &gadgetCircuit{Data: []byte("a compiled constraint system, SHA-256 and Poseidon"), X: 77}, r1cs.Shape{}, true},
	}
}

// proverOf synthesizes c into bellperson's prover assignment.
func proverOf(t testing.TB, c r1cs.Circuit, hint r1cs.Shape) *r1cs.ProvingAssignment {
	t.Helper()
	pa := r1cs.NewProvingAssignment(hint)
	if err := r1cs.Synthesize(pa, c); err != nil {
		t.Fatal(err)
	}
	return pa
}

// witnessOf synthesizes c's witness only (gadgets skip their combinations).
func witnessOf(t testing.TB, c r1cs.Circuit, hint r1cs.Shape) *r1cs.WitnessAssignment {
	t.Helper()
	w := &r1cs.WitnessAssignment{Input: make([]fr.Element, 0, hint.Inputs), Aux: make([]fr.Element, 0, hint.Aux)}
	if err := r1cs.Synthesize(w, c); err != nil {
		t.Fatal(err)
	}
	return w
}

func compile(t testing.TB, c r1cs.Circuit, hint r1cs.Shape) *compiled.System {
	t.Helper()
	s, err := compiled.Compile(c, hint)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// checkAgainstProver compares everything a device reads: the sizes, the
// witness-only synthesis's inputs and aux, a, b and c from Eval, and the
// three densities, with pa's, bit for bit.
func checkAgainstProver(t *testing.T, s *compiled.System, w *r1cs.WitnessAssignment, pa *r1cs.ProvingAssignment) {
	t.Helper()
	if s.NumInputs != pa.NumInputs() || s.NumAux != pa.NumAux() || s.NumConstraints != pa.NumConstraints() {
		t.Fatalf("system %d inputs, %d aux, %d rows; prover %d, %d, %d",
			s.NumInputs, s.NumAux, s.NumConstraints, pa.NumInputs(), pa.NumAux(), pa.NumConstraints())
	}
	if w.Constraints != pa.NumConstraints() {
		t.Fatalf("witness-only synthesis counted %d rows, prover %d", w.Constraints, pa.NumConstraints())
	}
	equalVec(t, "input", w.Input, pa.Input)
	equalVec(t, "aux", w.Aux, pa.Aux)
	n := s.NumConstraints
	a, b, c := make([]fr.Element, n), make([]fr.Element, n), make([]fr.Element, n)
	if err := s.Eval(w.Input, w.Aux, a, b, c); err != nil {
		t.Fatal(err)
	}
	equalVec(t, "a", a, pa.A)
	equalVec(t, "b", b, pa.B)
	equalVec(t, "c", c, pa.C)
	a2, b2 := make([]fr.Element, n), make([]fr.Element, n)
	if err := s.EvalAB(w.Input, w.Aux, a2, b2); err != nil {
		t.Fatal(err)
	}
	equalVec(t, "EvalAB's a", a2, pa.A)
	equalVec(t, "EvalAB's b", b2, pa.B)
	equalBitmap(t, "a_aux", s.ADensityAux, &pa.ADensityAux)
	equalBitmap(t, "b_input", s.BDensityInput, &pa.BDensityInput)
	equalBitmap(t, "b_aux", s.BDensityAux, &pa.BDensityAux)
}

func equalVec(t *testing.T, name string, got, want []fr.Element) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d values, want %d", name, len(got), len(want))
	}
	bad := 0
	for i := range got {
		if got[i] != want[i] { // limbs, not field equality: bit-exact
			if bad < 3 {
				t.Errorf("%s[%d] = %s, want %s", name, i, got[i].String(), want[i].String())
			}
			bad++
		}
	}
	if bad > 0 {
		t.Fatalf("%s: %d of %d values differ", name, bad, len(got))
	}
}

func equalBitmap(t *testing.T, name string, got, want *r1cs.Bitmap) {
	t.Helper()
	if got.N != want.N || len(got.Words) != len(want.Words) {
		t.Fatalf("density %s: %d bits in %d words, want %d in %d", name, got.N, len(got.Words), want.N, len(want.Words))
	}
	for i := range got.Words {
		if got.Words[i] != want.Words[i] {
			t.Fatalf("density %s: word %d = %#x, want %#x", name, i, got.Words[i], want.Words[i])
		}
	}
}

func TestCompileMatchesProvingAssignment(t *testing.T) {
	for _, tc := range equalCases() {
		t.Run(tc.name, func(t *testing.T) {
			if !tc.short && testing.Short() {
				t.Skip("run without -short")
			}
			s := compile(t, tc.c, tc.hint)
			checkAgainstProver(t, s, witnessOf(t, tc.c, tc.hint), proverOf(t, tc.c, tc.hint))
			if err := s.Validate(); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestEvalOtherWitness evaluates a compiled system on a witness the
// compilation never saw: the matrices hold no values.
func TestEvalOtherWitness(t *testing.T) {
	c := &randCircuit{Seed: 8, Inputs: 6, Rows: 5000, BitHeavy: true, Raw: true}
	s := compile(t, c, r1cs.Shape{})
	other := *c
	other.Witness = 99
	checkAgainstProver(t, s, witnessOf(t, &other, r1cs.Shape{}), proverOf(t, &other, r1cs.Shape{}))
}

// TestMatrixForm checks the CSR invariants on a row built by hand: terms of
// one variable summed, zero sums and zero coefficients dropped, columns
// sorted, aux after inputs, and a density bit for a variable whose terms
// cancel (as ProvingAssignment marks it).
func TestMatrixForm(t *testing.T) {
	var one, two, three, minusOne fr.Element
	one.SetOne()
	two.SetUint64(2)
	three.SetUint64(3)
	minusOne.Neg(&one)
	c := circuitFunc(func(cs r1cs.ConstraintSystem) error {
		x := cs.Alloc(fr.Element{})
		y := cs.Alloc(fr.Element{})
		in := cs.AllocInput(fr.Element{}) // input 1, allocated after aux: column 1
		z := cs.Alloc(fr.Element{})
		cs.Enforce(r1cs.LinearCombination{
			{Var: z, Coeff: two}, {Var: x, Coeff: one}, {Var: in, Coeff: three},
			{Var: x, Coeff: one}, {Var: y, Coeff: one}, {Var: y, Coeff: minusOne}, {Var: r1cs.One},
		}, r1cs.LinearCombination{{Var: y, Coeff: one}, {Var: y, Coeff: minusOne}, {Var: in, Coeff: minusOne}}, nil)
		return nil
	})
	s := compile(t, c, r1cs.Shape{})
	// Columns: ONE 0, in 1, x 2, y 3, z 4.
	if s.NumInputs != 2 || s.NumAux != 3 || s.NumConstraints != 3 {
		t.Fatalf("%d inputs, %d aux, %d rows", s.NumInputs, s.NumAux, s.NumConstraints)
	}
	row := func(m *compiled.Matrix, r int) (cols []uint32, coeffs []fr.Element) {
		for k := m.RowPtr[r]; k < m.RowPtr[r+1]; k++ {
			cols = append(cols, m.Col[k])
			coeffs = append(coeffs, s.Coeffs[m.Coeff[k]])
		}
		return
	}
	cols, coeffs := row(&s.A, 0)
	wantCols := []uint32{1, 2, 4}
	wantCoeffs := []fr.Element{three, two, two}
	if len(cols) != len(wantCols) {
		t.Fatalf("A row 0: columns %v, want %v", cols, wantCols)
	}
	for i := range cols {
		if cols[i] != wantCols[i] || coeffs[i] != wantCoeffs[i] {
			t.Errorf("A row 0 entry %d: column %d coefficient %s, want %d, %s", i, cols[i], coeffs[i].String(), wantCols[i], wantCoeffs[i].String())
		}
	}
	if cols, coeffs := row(&s.B, 0); len(cols) != 1 || cols[0] != 1 || coeffs[0] != minusOne {
		t.Errorf("B row 0: columns %v, want [1] with −1", cols)
	}
	// Input rows: A = input_i.
	for i := range 2 {
		if cols, coeffs := row(&s.A, 1+i); len(cols) != 1 || cols[0] != uint32(i) || !coeffs[0].IsOne() {
			t.Errorf("input row %d: A columns %v", i, cols)
		}
	}
	if !s.ADensityAux.Get(1) || !s.BDensityAux.Get(1) {
		t.Error("y's terms cancel but are non-zero: ProvingAssignment marks it in A and B")
	}
	if s.ADensityAux.Get(0) != true || s.ADensityAux.Get(2) != true || s.BDensityAux.Get(0) || s.BDensityAux.Get(2) {
		t.Errorf("densities a_aux %b b_aux %b", s.ADensityAux.Words, s.BDensityAux.Words)
	}
	if !s.BDensityInput.Get(1) || s.BDensityInput.Get(0) {
		t.Errorf("b_input %b, want input 1 only", s.BDensityInput.Words)
	}
	if len(s.Coeffs) != 4 || s.Coeffs[2] != three || s.Coeffs[3] != two {
		t.Errorf("coefficient table has %d entries, want 1, −1, 3, 2 in order of first appearance", len(s.Coeffs))
	}
	checkAgainstProver(t, s, witnessOf(t, c, r1cs.Shape{}), proverOf(t, c, r1cs.Shape{}))
}

type circuitFunc func(cs r1cs.ConstraintSystem) error

func (f circuitFunc) Synthesize(cs r1cs.ConstraintSystem) error { return f(cs) }

func TestCompileErrors(t *testing.T) {
	var k fr.Element
	tests := []struct {
		name string
		c    r1cs.Circuit
		want error // nil: any error
	}{
		{"synthesis fails", circuitFunc(func(r1cs.ConstraintSystem) error { return errSynth }), errSynth},
		{"unallocated aux", circuitFunc(func(cs r1cs.ConstraintSystem) error {
			cs.Enforce(r1cs.LinearCombination{{Var: r1cs.AuxVariable(0), Coeff: fr.One()}}, nil, nil)
			return nil
		}), nil},
		{"unallocated input", circuitFunc(func(cs r1cs.ConstraintSystem) error {
			cs.Enforce(nil, r1cs.LinearCombination{{Var: r1cs.InputVariable(3), Coeff: fr.One()}}, nil)
			return nil
		}), nil},
		{"too many coefficients", circuitFunc(func(cs r1cs.ConstraintSystem) error {
			x := cs.Alloc(fr.Element{})
			for i := range compiled.MaxCoeffs {
				k.SetUint64(uint64(i) + 2)
				cs.Enforce(r1cs.LinearCombination{{Var: x, Coeff: k}}, nil, nil)
			}
			return nil
		}), compiled.ErrTooManyCoeffs},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, err := compiled.Compile(tc.c, r1cs.Shape{})
			if err == nil {
				s.Close()
				t.Fatal("no error")
			}
			if tc.want != nil && !errors.Is(err, tc.want) {
				t.Fatalf("error %v, want %v", err, tc.want)
			}
			t.Log(err)
		})
	}
}

var errSynth = errors.New("synthesis failed")

// TestMaxCoeffs: exactly compiled.MaxCoeffs distinct coefficients (1, −1 and
// compiled.MaxCoeffs − 2 others) compile.
func TestMaxCoeffs(t *testing.T) {
	c := circuitFunc(func(cs r1cs.ConstraintSystem) error {
		x := cs.Alloc(fr.Element{})
		var k fr.Element
		for i := range compiled.MaxCoeffs - 2 {
			k.SetUint64(uint64(i) + 2)
			cs.Enforce(r1cs.LinearCombination{{Var: x, Coeff: k}}, nil, nil)
		}
		return nil
	})
	s := compile(t, c, r1cs.Shape{})
	if len(s.Coeffs) != compiled.MaxCoeffs {
		t.Fatalf("%d coefficients", len(s.Coeffs))
	}
	if s.A.Coeff[len(s.A.Coeff)-2] != compiled.MaxCoeffs-1 { // the last circuit row, before the input row
		t.Fatalf("last coefficient index %d", s.A.Coeff[len(s.A.Coeff)-2])
	}
}

func TestEvalErrors(t *testing.T) {
	s := compile(t, &randCircuit{Seed: 9, Inputs: 2, Rows: 50}, r1cs.Shape{})
	w := witnessOf(t, &randCircuit{Seed: 9, Inputs: 2, Rows: 50}, r1cs.Shape{})
	n := s.NumConstraints
	v := func(k int) []fr.Element { return make([]fr.Element, k) }
	tests := []struct {
		name             string
		input, aux, a, b []fr.Element
	}{
		{"short input", w.Input[1:], w.Aux, v(n), v(n)},
		{"long aux", w.Input, append(w.Aux, fr.Element{}), v(n), v(n)},
		{"short a", w.Input, w.Aux, v(n - 1), v(n)},
		{"long b", w.Input, w.Aux, v(n), v(n + 1)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if err := s.Eval(tc.input, tc.aux, tc.a, tc.b, v(n)); !errors.Is(err, compiled.ErrBadWitness) {
				t.Fatalf("error %v, want compiled.ErrBadWitness", err)
			}
			if err := s.EvalAB(tc.input, tc.aux, tc.a, tc.b); !errors.Is(err, compiled.ErrBadWitness) {
				t.Fatalf("EvalAB: error %v, want compiled.ErrBadWitness", err)
			}
		})
	}
	s.Close()
	if err := s.Eval(w.Input, w.Aux, v(n), v(n), v(n)); err == nil {
		t.Fatal("Eval after Close: no error")
	}
	if err := s.EvalAB(w.Input, w.Aux, v(n), v(n)); err == nil {
		t.Fatal("EvalAB after Close: no error")
	}
}
