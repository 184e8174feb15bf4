package cuda

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"unsafe"

	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-project/cuzk/device/cpu"
	"github.com/cuzk-project/cuzk/groth16"
	"github.com/cuzk-project/cuzk/r1cs"
	"github.com/cuzk-project/cuzk/r1cs/compiled"
)

// witnessShape is a random system's size: rows, inputs (ONE among them),
// aux, coefficients in the table, and whether B has no entries.
type witnessShape struct {
	rows, inputs, aux, ncoeffs int
	bEmpty                     bool
}

// randomCSR draws rows of lengths by weights (weights[k]: length k), with
// distinct sorted columns; half the coefficients are 1, a quarter −1, the
// rest other table entries.
func randomCSR(r *rand.Rand, rows, nvars int, weights []int, ncoeffs int) CSR {
	tot := 0
	for _, w := range weights {
		tot += w
	}
	m := CSR{RowPtr: make([]uint32, 1, rows+1)}
	for range rows {
		pick, k := r.IntN(tot), 0
		for pick >= weights[k] {
			pick -= weights[k]
			k++
		}
		k = min(k, nvars)
		var row []uint32
		for len(row) < k {
			if c := uint32(r.IntN(nvars)); !slices.Contains(row, c) {
				row = append(row, c)
			}
		}
		slices.Sort(row)
		for _, c := range row {
			q := uint16(0)
			switch x := r.IntN(8); {
			case x >= 6 && ncoeffs > 2:
				q = uint16(2 + r.IntN(ncoeffs-2))
			case x >= 4:
				q = 1
			}
			m.Col = append(m.Col, c)
			m.Coeff = append(m.Coeff, q)
		}
		m.RowPtr = append(m.RowPtr, uint32(len(m.Col)))
	}
	return m
}

// randomMatrixSet is a random system with the densities its matrices imply
// (a variable is dense where it has an entry).
func randomMatrixSet(r *rand.Rand, sh witnessShape) *MatrixSet {
	nv := sh.inputs + sh.aux
	s := &MatrixSet{NumInputs: sh.inputs, NumAux: sh.aux, NumConstraints: sh.rows}
	s.Coeffs = make([]fr.Element, 2, sh.ncoeffs)
	s.Coeffs[0].SetOne()
	s.Coeffs[1].Neg(&s.Coeffs[0])
	s.Coeffs = append(s.Coeffs, randFr(r, sh.ncoeffs-2)...)
	s.A = randomCSR(r, sh.rows, nv, []int{15, 30, 25, 15, 5, 4, 3, 2, 1}, sh.ncoeffs)
	bw := []int{30, 50, 20}
	if sh.bEmpty {
		bw = []int{1}
	}
	s.B = randomCSR(r, sh.rows, nv, bw, sh.ncoeffs)
	s.ADensityAux, s.BDensityInput, s.BDensityAux = r1cs.NewBitmap(sh.aux), r1cs.NewBitmap(sh.inputs), r1cs.NewBitmap(sh.aux)
	for _, c := range s.A.Col {
		if int(c) >= sh.inputs {
			s.ADensityAux.Set(int(c) - sh.inputs)
		}
	}
	for _, c := range s.B.Col {
		if int(c) < sh.inputs {
			s.BDensityInput.Set(int(c))
		} else {
			s.BDensityAux.Set(int(c) - sh.inputs)
		}
	}
	return s
}

// refSpMV is m·w on the host, every coefficient through a product.
func refSpMV(m *CSR, coeffs, w []fr.Element) []fr.Element {
	out := make([]fr.Element, len(m.RowPtr)-1)
	for i := range out {
		var t fr.Element
		for k := m.RowPtr[i]; k < m.RowPtr[i+1]; k++ {
			t.Mul(&coeffs[m.Coeff[k]], &w[m.Col[k]])
			out[i].Add(&out[i], &t)
		}
	}
	return out
}

// randomWitness: 40 % zero, 35 % one, the rest random; w[0] is ONE.
func randomWitness(r *rand.Rand, n int) []fr.Element {
	w := randFr(r, n)
	for i := range w {
		switch x := r.IntN(20); {
		case x < 8:
			w[i].SetZero()
		case x < 15:
			w[i].SetOne()
		}
	}
	if n > 0 {
		w[0].SetOne()
	}
	return w
}

// compactOf is aux in the compact form.
func compactOf(aux []fr.Element) *Compact {
	nw := (len(aux) + 31) / 32
	c := &Compact{N: len(aux), Small: make([]uint32, nw), Ones: make([]uint32, nw)}
	for j := range aux {
		switch {
		case aux[j].IsZero():
			c.Small[j/32] |= 1 << (j % 32)
		case aux[j].IsOne():
			c.Small[j/32] |= 1 << (j % 32)
			c.Ones[j/32] |= 1 << (j % 32)
		default:
			c.Others = append(c.Others, aux[j])
		}
	}
	return c
}

func randPointsG2(r *rand.Rand, n int) []bls12381.G2Affine {
	if n == 0 {
		return nil
	}
	k := min(n, 1<<10)
	_, _, _, g2 := bls12381.Generators()
	pts := bls12381.BatchScalarMultiplicationG2(&g2, randFr(r, k))
	out := make([]bls12381.G2Affine, n)
	for i := range out {
		out[i] = pts[(i*7919)%k]
	}
	return out
}

func randPointsG1(r *rand.Rand, n int) []bls12381.G1Affine {
	if n == 0 {
		return nil
	}
	return randPoints(r, n)
}

// randomParams has s's shape (the verifying key holds only IC).
func randomParams(r *rand.Rand, s *MatrixSet) *groth16.Params {
	nb := s.BDensityInput.PopCount() + s.BDensityAux.PopCount()
	p := &groth16.Params{
		H:   randPointsG1(r, r1cs.DomainSize(s.NumConstraints)-1),
		L:   randPointsG1(r, s.NumAux),
		A:   randPointsG1(r, s.NumInputs+s.ADensityAux.PopCount()),
		BG1: randPointsG1(r, nb),
		BG2: randPointsG2(r, nb),
	}
	p.VK.IC = randPointsG1(r, s.NumInputs)
	return p
}

// firstDiff is the first index where got and want differ, or -1.
func firstDiff(got, want []fr.Element) int {
	if len(got) != len(want) {
		return min(len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			return i
		}
	}
	return -1
}

// sumsDiffer names the sums of got that differ from want.
func sumsDiffer(got, want *groth16.Sums) []string {
	var bad []string
	for _, x := range []struct {
		name string
		g, w *bls12381.G1Jac
	}{{"H", &got.H, &want.H}, {"L", &got.L, &want.L}, {"A", &got.A, &want.A}, {"B1", &got.B1, &want.B1}} {
		if !x.g.Equal(x.w) {
			bad = append(bad, x.name)
		}
	}
	if !got.B2.Equal(&want.B2) {
		bad = append(bad, "B2")
	}
	return bad
}

// TestRunWitness: random matrices and witnesses (rows without entries,
// coefficients ±1 and others, 0/1-heavy values): a and b from the device
// equal the host's, and RunWitness's sums, from the dense and the compact
// witness, equal the CPU device's on the Assignment with those a, b and
// c = a∘b.
func TestRunWitness(t *testing.T) {
	d := gpu(t)
	shapes := []witnessShape{
		{rows: 2, inputs: 1, aux: 3, ncoeffs: 3},
		{rows: 30, inputs: 2, aux: 40, ncoeffs: 4, bEmpty: true},
		{rows: 100, inputs: 2, aux: 150, ncoeffs: 2},
		{rows: 4093, inputs: 5, aux: 5000, ncoeffs: 40},
	}
	if !testing.Short() {
		shapes = append(shapes, witnessShape{rows: 1<<16 + 1, inputs: 9, aux: 70001, ncoeffs: 300})
	}
	ctx := context.Background()
	cd := cpu.New(0)
	r := rand.New(rand.NewPCG(41, 42))
	for _, sh := range shapes {
		t.Run(fmt.Sprintf("rows=%d/in=%d/aux=%d", sh.rows, sh.inputs, sh.aux), func(t *testing.T) {
			s := randomMatrixSet(r, sh)
			w := randomWitness(r, sh.inputs+sh.aux)
			input, aux := w[:sh.inputs], w[sh.inputs:]
			a, b := refSpMV(&s.A, s.Coeffs, w), refSpMV(&s.B, s.Coeffs, w)
			c := make([]fr.Element, len(a))
			for i := range c {
				c[i].Mul(&a[i], &b[i])
			}
			p := randomParams(r, s)
			defer d.Release(p)
			asg := &groth16.Assignment{A: slices.Clone(a), B: slices.Clone(b), C: c,
				Input: slices.Clone(input), Aux: slices.Clone(aux),
				ADensityAux: s.ADensityAux, BDensityInput: s.BDensityInput, BDensityAux: s.BDensityAux}
			want, err := groth16.Compute(ctx, cd, asg, p)
			if err != nil {
				t.Fatal(err)
			}
			m, err := d.UploadMatrices(s)
			if err != nil {
				t.Fatal(err)
			}
			defer m.Close()
			if m.nq != [3]int{len(p.L), len(p.A), len(p.BG1)} {
				t.Fatalf("query sizes %v, want %d %d %d", m.nq, len(p.L), len(p.A), len(p.BG1))
			}
			ga, gb, err := d.SpMV(m, input, aux)
			if err != nil {
				t.Fatal(err)
			}
			if i := firstDiff(ga, a); i >= 0 {
				t.Errorf("a: row %d (%d entries) differs from the host", i, s.A.RowPtr[i+1]-s.A.RowPtr[i])
			}
			if i := firstDiff(gb, b); i >= 0 {
				t.Errorf("b: row %d (%d entries) differs from the host", i, s.B.RowPtr[i+1]-s.B.RowPtr[i])
			}
			for _, compact := range []bool{false, true} {
				var got *groth16.Sums
				var tm WitnessTiming
				if compact {
					got, tm, err = d.RunWitnessCompact(ctx, p, m, input, compactOf(aux))
				} else {
					got, tm, err = d.RunWitness(ctx, p, m, input, aux)
				}
				if err != nil {
					t.Fatalf("compact %v: %v", compact, err)
				}
				if bad := sumsDiffer(got, want); len(bad) > 0 {
					t.Errorf("compact %v: %v differ from the CPU device", compact, bad)
				}
				t.Logf("compact %v: total %v, h2d %v, spmv %v, split %v, B_G2 on the host %v", compact, tm.Total, tm.H2D,
					tm.SpMV, tm.Split, tm.BG2)
			}
		})
	}
}

// TestRunWitnessRefuses: a witness or parameters of another shape are refused.
func TestRunWitnessRefuses(t *testing.T) {
	d := gpu(t)
	r := rand.New(rand.NewPCG(43, 44))
	s := randomMatrixSet(r, witnessShape{rows: 200, inputs: 3, aux: 300, ncoeffs: 5})
	p := randomParams(r, s)
	defer d.Release(p)
	m, err := d.UploadMatrices(s)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	w := randomWitness(r, 303)
	ctx := context.Background()
	if _, _, err := d.RunWitness(ctx, p, m, w[:3], w[3:302]); !errors.Is(err, ErrBadMatrices) {
		t.Errorf("short aux: err = %v", err)
	}
	q := *p
	q.L = q.L[1:]
	if _, _, err := d.RunWitness(ctx, &q, m, w[:3], w[3:]); !errors.Is(err, groth16.ErrAssignmentMismatch) {
		t.Errorf("params of another shape: err = %v", err)
	}
	c := compactOf(w[3:])
	c.Others = c.Others[1:]
	if _, _, err := d.RunWitnessCompact(ctx, p, m, w[:3], c); !errors.Is(err, ErrBadMatrices) {
		t.Errorf("compact witness one value short: err = %v", err)
	}
	bad := *s
	bad.A.Col = slices.Clone(s.A.Col)
	bad.A.Col[len(bad.A.Col)/2] = 303 // beyond the variables: the device's check
	if _, err := d.UploadMatrices(&bad); !errors.Is(err, ErrCUDA) {
		t.Errorf("column beyond the variables: err = %v", err)
	}
	m.Close()
	if _, _, err := d.RunWitness(ctx, p, m, w[:3], w[3:]); !errors.Is(err, ErrBadMatrices) {
		t.Errorf("closed matrices: err = %v", err)
	}
}

// TestMatrixSetCheck: the host's checks (no GPU needed).
func TestMatrixSetCheck(t *testing.T) {
	r := rand.New(rand.NewPCG(45, 46))
	good := randomMatrixSet(r, witnessShape{rows: 50, inputs: 2, aux: 70, ncoeffs: 4})
	if err := good.check(); err != nil {
		t.Fatalf("a good set: %v", err)
	}
	cases := []struct {
		name string
		edit func(s *MatrixSet)
	}{
		{"no coefficients", func(s *MatrixSet) { s.Coeffs = s.Coeffs[:1] }},
		{"coefficient 1 not -1", func(s *MatrixSet) { s.Coeffs[1].SetUint64(3) }},
		{"row offsets short", func(s *MatrixSet) { s.A.RowPtr = s.A.RowPtr[:50] }},
		{"row offsets not from 0", func(s *MatrixSet) { s.B.RowPtr[0] = 1 }},
		{"row offsets not to nnz", func(s *MatrixSet) { s.A.RowPtr[50]-- }},
		{"coefficients short", func(s *MatrixSet) { s.B.Coeff = s.B.Coeff[:len(s.B.Coeff)-1] }},
		{"density missing", func(s *MatrixSet) { s.BDensityAux = nil }},
		{"density of another length", func(s *MatrixSet) { s.ADensityAux = r1cs.NewBitmap(71) }},
		{"density bits beyond", func(s *MatrixSet) { s.BDensityInput.Words[0] |= 1 << 5 }},
		{"rows beyond 2^28", func(s *MatrixSet) { s.NumConstraints = 1<<28 + 1 }},
		{"negative aux", func(s *MatrixSet) { s.NumAux = -1 }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := *good
			s.Coeffs = slices.Clone(good.Coeffs)
			s.A.RowPtr, s.B.RowPtr = slices.Clone(good.A.RowPtr), slices.Clone(good.B.RowPtr)
			bi := *good.BDensityInput
			bi.Words = slices.Clone(bi.Words)
			s.BDensityInput = &bi
			c.edit(&s)
			if err := s.check(); !errors.Is(err, ErrBadMatrices) {
				t.Fatalf("err = %v, want ErrBadMatrices", err)
			}
		})
	}
	if err := (*MatrixSet)(nil).check(); !errors.Is(err, ErrBadMatrices) {
		t.Fatalf("nil set: err = %v", err)
	}
}

// TestCompactCheck: the compact form's counts (no GPU needed).
func TestCompactCheck(t *testing.T) {
	r := rand.New(rand.NewPCG(47, 48))
	aux := randomWitness(r, 77)
	// 77 values: the clear bits 77..95 of the last word do not count
	if err := compactOf(aux).check(77); err != nil {
		t.Fatalf("a good form: %v", err)
	}
	cases := []struct {
		name string
		edit func(c *Compact)
	}{
		{"another length", func(c *Compact) { c.N = 76 }},
		{"small short", func(c *Compact) { c.Small = c.Small[:2] }},
		{"ones short", func(c *Compact) { c.Ones = c.Ones[:2] }},
		{"one other too many", func(c *Compact) { c.Others = append(c.Others, fr.Element{}) }},
		{"a small bit cleared", func(c *Compact) { c.Small[0] &^= 1 }}, // value 0 is small: ONE
	}
	for _, cs := range cases {
		t.Run(cs.name, func(t *testing.T) {
			c := compactOf(aux)
			cs.edit(c)
			if err := c.check(77); !errors.Is(err, ErrBadMatrices) {
				t.Fatalf("err = %v, want ErrBadMatrices", err)
			}
		})
	}
}

// TestWitnessLayout: the mirrors have the C structs' sizes and offsets
// (witness/run.cu asserts the same numbers on the C side; cuzk_result's
// are TestResultLayout's).
func TestWitnessLayout(t *testing.T) {
	var w cWitness
	var c cCSR
	for _, x := range []struct {
		name      string
		got, want uintptr
	}{
		{"cuzk_witness", unsafe.Sizeof(w), 72},
		{"cuzk_witness.nothers", unsafe.Offsetof(w.NOthers), 48},
		{"cuzk_witness.lgn", unsafe.Offsetof(w.Lgn), 64},
		{"cuzk_csr", unsafe.Sizeof(c), 32},
	} {
		if x.got != x.want {
			t.Errorf("%s: %d, want %d", x.name, x.got, x.want)
		}
	}
}

// witnessOnly is c's witness-only assignment over its compiled system sys.
func witnessOnly(t *testing.T, c r1cs.Circuit, sys *compiled.System) *groth16.Assignment {
	t.Helper()
	w := &r1cs.WitnessAssignment{}
	if err := r1cs.Synthesize(w, c); err != nil {
		t.Fatal(err)
	}
	a, err := groth16.FromWitness(w, sys)
	if err != nil {
		t.Fatal(err)
	}
	return a
}
