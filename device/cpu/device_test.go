package cpu

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"math/bits"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"
	"unsafe"

	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-project/cuzk/circuits/synthetic"
	"github.com/cuzk-project/cuzk/groth16"
	"github.com/cuzk-project/cuzk/r1cs"
)

func randG1(r *rand.Rand, n int) []bls12381.G1Affine {
	if n == 0 {
		return nil
	}
	_, _, g, _ := bls12381.Generators()
	s := make([]fr.Element, n)
	for i := range s {
		s[i] = randElement(r)
	}
	return bls12381.BatchScalarMultiplicationG1(&g, s)
}

func randG2(r *rand.Rand, n int) []bls12381.G2Affine {
	if n == 0 {
		return nil
	}
	_, _, _, g := bls12381.Generators()
	s := make([]fr.Element, n)
	for i := range s {
		s[i] = randElement(r)
	}
	return bls12381.BatchScalarMultiplicationG2(&g, s)
}

func naiveG1(points []bls12381.G1Affine, scalars []fr.Element) bls12381.G1Jac {
	acc := infinityG1()
	for i := range points {
		var p bls12381.G1Jac
		var k big.Int
		p.FromAffine(&points[i])
		p.ScalarMultiplication(&p, scalars[i].BigInt(&k))
		acc.AddAssign(&p)
	}
	return acc
}

func naiveG2(points []bls12381.G2Affine, scalars []fr.Element) bls12381.G2Jac {
	acc := infinityG2()
	for i := range points {
		var p bls12381.G2Jac
		var k big.Int
		p.FromAffine(&points[i])
		p.ScalarMultiplication(&p, scalars[i].BigInt(&k))
		acc.AddAssign(&p)
	}
	return acc
}

// filtered lists vals where density is set (all of vals for nil density).
func filtered(vals []fr.Element, density *r1cs.Bitmap) []fr.Element {
	var out []fr.Element
	for i := range vals {
		if density == nil || density.Get(i) {
			out = append(out, vals[i])
		}
	}
	return out
}

func TestMSMG1Split(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	var one, minusOne fr.Element
	one.SetOne()
	minusOne.Neg(&one)
	base := randG1(r, 3000)
	var neg bls12381.G1Affine
	neg.Neg(&base[0])

	mk := func(n int, f func(i int) fr.Element) []fr.Element {
		s := make([]fr.Element, n)
		for i := range s {
			s[i] = f(i)
		}
		return s
	}
	cases := []struct {
		name    string
		points  []bls12381.G1Affine
		scalars []fr.Element
	}{
		{"empty", nil, nil},
		{"single-random", base[:1], mk(1, func(int) fr.Element { return randElement(r) })},
		{"single-one", base[:1], mk(1, func(int) fr.Element { return one })},
		{"single-zero", base[:1], mk(1, func(int) fr.Element { return fr.Element{} })},
		{"all-zeros", base[:2500], mk(2500, func(int) fr.Element { return fr.Element{} })},
		{"all-ones", base[:2500], mk(2500, func(int) fr.Element { return one })},
		{"minus-one", base[:40], mk(40, func(int) fr.Element { return minusOne })},
		{"dense", base[:700], mk(700, func(int) fr.Element { return randElement(r) })},
		{"bit-heavy", base, mk(len(base), func(int) fr.Element {
			switch x := r.IntN(8); {
			case x < 3:
				return fr.Element{}
			case x < 6:
				return one
			default:
				return randElement(r)
			}
		})},
		// Ones summing to doubling and cancellation.
		{"repeated-point", []bls12381.G1Affine{base[0], base[0], base[0], neg, base[1]}, mk(5, func(int) fr.Element { return one })},
		{"point-and-negation", []bls12381.G1Affine{base[0], neg}, mk(2, func(int) fr.Element { return one })},
	}
	for _, tasks := range []int{1, 3} {
		d := New(tasks)
		for _, tc := range cases {
			got, err := d.msmG1(tc.points, tc.scalars)
			if err != nil {
				t.Fatal(err)
			}
			want := naiveG1(tc.points, tc.scalars)
			if !got.Equal(&want) {
				t.Errorf("tasks=%d %s: split MSM differs from the naive sum", tasks, tc.name)
			}
		}
	}
	if _, err := New(1).msmG1(base[:2], make([]fr.Element, 3)); !errors.Is(err, groth16.ErrAssignmentMismatch) {
		t.Fatalf("length mismatch: got %v, want groth16.ErrAssignmentMismatch", err)
	}
}

// paramsFor makes random parameters of the right shape for a.
func paramsFor(r *rand.Rand, a *groth16.Assignment) *groth16.Params {
	m := r1cs.DomainSize(len(a.A))
	nb := popCount(a.BDensityInput, len(a.Input)) + popCount(a.BDensityAux, len(a.Aux))
	return &groth16.Params{
		VK:  groth16.VerifyingKey{IC: randG1(r, len(a.Input))},
		H:   randG1(r, m-1),
		L:   randG1(r, len(a.Aux)),
		A:   randG1(r, len(a.Input)+popCount(a.ADensityAux, len(a.Aux))),
		BG1: randG1(r, nb),
		BG2: randG2(r, nb),
	}
}

// naiveSums computes the sums by definition (groth16.Sums) with
// the slow H; call it before the device drops a, b, c.
func naiveSums(t *testing.T, a *groth16.Assignment, p *groth16.Params) groth16.Sums {
	var s groth16.Sums
	s.H = naiveG1(p.H, slowH(t, a.A, a.B, a.C))
	s.L = naiveG1(p.L, a.Aux)
	s.A = naiveG1(p.A, append(append([]fr.Element(nil), a.Input...), filtered(a.Aux, a.ADensityAux)...))
	b := append(filtered(a.Input, a.BDensityInput), filtered(a.Aux, a.BDensityAux)...)
	s.B1 = naiveG1(p.BG1, b)
	s.B2 = naiveG2(p.BG2, b)
	return s
}

func compareSums(t *testing.T, name string, got *groth16.Sums, want *groth16.Sums) {
	t.Helper()
	for _, c := range []struct {
		q    string
		g, w *bls12381.G1Jac
	}{{"H", &got.H, &want.H}, {"L", &got.L, &want.L}, {"A", &got.A, &want.A}, {"B1", &got.B1, &want.B1}} {
		if !c.g.Equal(c.w) {
			t.Errorf("%s: %s sum differs from the naive sum", name, c.q)
		}
	}
	if !got.B2.Equal(&want.B2) {
		t.Errorf("%s: B2 sum differs from the naive sum", name)
	}
}

// assignment builds an Assignment with values drawn by gen and densities
// with the given probabilities; c = a·b so that H exists.
func assignment(r *rand.Rand, rows, inputs, aux int, gen func() fr.Element, pA, pBIn, pBAux float64) *groth16.Assignment {
	a := &groth16.Assignment{
		A: make([]fr.Element, rows), B: make([]fr.Element, rows), C: make([]fr.Element, rows),
		Input: make([]fr.Element, inputs), Aux: make([]fr.Element, aux),
		ADensityAux: r1cs.NewBitmap(aux), BDensityInput: r1cs.NewBitmap(inputs), BDensityAux: r1cs.NewBitmap(aux),
	}
	for i := range a.A {
		a.A[i], a.B[i] = gen(), gen()
		a.C[i].Mul(&a.A[i], &a.B[i])
	}
	a.Input[0].SetOne()
	for i := 1; i < inputs; i++ {
		a.Input[i] = gen()
	}
	for i := range a.Aux {
		a.Aux[i] = gen()
		if r.Float64() < pA {
			a.ADensityAux.Set(i)
		}
		if r.Float64() < pBAux {
			a.BDensityAux.Set(i)
		}
	}
	for i := range a.Input {
		if r.Float64() < pBIn {
			a.BDensityInput.Set(i)
		}
	}
	return a
}

func TestDeviceSumsMatchNaive(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	var one fr.Element
	one.SetOne()
	random := func() fr.Element { return randElement(r) }
	bits := func() fr.Element {
		switch r.IntN(4) {
		case 0:
			return fr.Element{}
		case 1, 2:
			return one
		}
		return randElement(r)
	}
	zeros := func() fr.Element { return fr.Element{} }
	ones := func() fr.Element { return one }

	type tc struct {
		name string
		a    *groth16.Assignment
	}
	cases := []tc{
		{"single-row", assignment(r, 1, 1, 0, random, 1, 1, 1)},
		{"dense", assignment(r, 37, 3, 30, random, 1, 1, 1)},
		{"bit-heavy", assignment(r, 64, 4, 60, bits, 0.9, 0.5, 0.3)},
		{"all-zeros", assignment(r, 20, 2, 15, zeros, 1, 1, 1)},
		{"all-ones", assignment(r, 20, 2, 15, ones, 1, 1, 1)},
		{"empty-densities", assignment(r, 17, 5, 12, random, 0, 0, 0)},
	}
	for _, cfg := range []synthetic.Config{
		synthetic.Default(128),
		{Constraints: 100, Inputs: 9, BoolFraction: 0.2, ADensity: 0.5, BDensity: 0.7, Seed: 11},
	} {
		c, err := synthetic.New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		a, err := groth16.Synthesize(c, c.Hint())
		if err != nil {
			t.Fatal(err)
		}
		cases = append(cases, tc{"synthetic", a})
	}
	ctx := context.Background()
	d := New(2)
	for _, c := range cases {
		p := paramsFor(r, c.a)
		want := naiveSums(t, c.a, p)
		got, err := groth16.Compute(ctx, d, c.a, p)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		compareSums(t, c.name, got, &want)
		if c.a.A != nil {
			t.Errorf("%s: Run kept a, b, c", c.name)
		}
	}
}

func TestDeviceRejectsMismatch(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	gen := func() fr.Element { return randElement(r) }
	ctx := context.Background()
	d := New(1)
	cases := []struct {
		name   string
		params bool // a parameters' length is wrong
		mutate func(a *groth16.Assignment, p *groth16.Params)
	}{
		{"h", true, func(a *groth16.Assignment, p *groth16.Params) { p.H = p.H[1:] }},
		{"l", true, func(a *groth16.Assignment, p *groth16.Params) { p.L = p.L[1:] }},
		{"a", true, func(a *groth16.Assignment, p *groth16.Params) { p.A = append(p.A, p.A[0]) }},
		{"b_g1", true, func(a *groth16.Assignment, p *groth16.Params) { p.BG1 = p.BG1[1:] }},
		{"b_g2", true, func(a *groth16.Assignment, p *groth16.Params) { p.BG2 = p.BG2[1:] }},
		{"ic", true, func(a *groth16.Assignment, p *groth16.Params) { p.VK.IC = p.VK.IC[1:] }},
		{"abc rows", false, func(a *groth16.Assignment, p *groth16.Params) { a.C = a.C[1:] }},
		{"density length", false, func(a *groth16.Assignment, p *groth16.Params) { a.BDensityAux = r1cs.NewBitmap(3) }},
		{"density stray bits", false, func(a *groth16.Assignment, p *groth16.Params) { a.ADensityAux.Words[0] |= 1 << 63 }},
		{"no density", false, func(a *groth16.Assignment, p *groth16.Params) { a.ADensityAux = nil }},
		{"no inputs", false, func(a *groth16.Assignment, p *groth16.Params) { a.Input = nil }},
		{"no rows", false, func(a *groth16.Assignment, p *groth16.Params) { a.A, a.B, a.C = nil, nil, nil }},
	}
	for _, c := range cases {
		a := assignment(r, 20, 3, 10, gen, 0.5, 0.5, 0.5)
		p := paramsFor(r, a)
		c.mutate(a, p)
		_, err := d.Prepare(ctx, a, p)
		if !errors.Is(err, groth16.ErrAssignmentMismatch) {
			t.Errorf("%s: Prepare = %v, want groth16.ErrAssignmentMismatch", c.name, err)
		}
		if c.params && !errors.Is(err, groth16.ErrParamsMismatch) {
			t.Errorf("%s: Prepare = %v, want groth16.ErrParamsMismatch too", c.name, err)
		}
	}
	if _, err := d.Run(ctx, "nope"); err == nil {
		t.Error("Run accepted a foreign Prepared")
	}
	if _, err := d.Finish(ctx, nil); err == nil {
		t.Error("Finish accepted a nil Partial")
	}
}

func TestDeviceHonoursCancellation(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	a := assignment(r, 20, 2, 10, func() fr.Element { return randElement(r) }, 1, 1, 1)
	p := paramsFor(r, a)
	ctx, cancel := context.WithCancel(context.Background())
	d := New(1)
	w, err := d.Prepare(ctx, a, p)
	if err != nil {
		t.Fatal(err)
	}
	cancel()
	if _, err := d.Run(ctx, w); !errors.Is(err, context.Canceled) {
		t.Fatalf("Run after cancel = %v, want context.Canceled", err)
	}
	if _, err := d.Prepare(ctx, a, p); !errors.Is(err, context.Canceled) {
		t.Fatalf("Prepare after cancel = %v, want context.Canceled", err)
	}
	if _, err := d.Run(context.Background(), w); !errors.Is(err, ErrReused) {
		t.Fatalf("second Run of one Prepared = %v, want ErrReused", err)
	}
}

func TestDeviceRejectsReuse(t *testing.T) {
	r := rand.New(rand.NewPCG(19, 20))
	a := assignment(r, 9, 2, 6, func() fr.Element { return randElement(r) }, 1, 1, 1)
	p := paramsFor(r, a)
	ctx := context.Background()
	d := New(1)
	w, err := d.Prepare(ctx, a, p)
	if err != nil {
		t.Fatal(err)
	}
	pr, err := d.Run(ctx, w)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d.Run(ctx, w); !errors.Is(err, ErrReused) {
		t.Fatalf("second Run = %v, want ErrReused", err)
	}
	if _, err := d.Finish(ctx, pr); err != nil {
		t.Fatal(err)
	}
	if _, err := d.Finish(ctx, pr); !errors.Is(err, ErrReused) {
		t.Fatalf("second Finish = %v, want ErrReused", err)
	}
}

func TestDeviceConcurrent(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	d := New(2)
	const workers = 4
	type job struct {
		a    *groth16.Assignment
		p    *groth16.Params
		want groth16.Sums
	}
	jobs := make([]job, workers)
	for i := range jobs {
		a := assignment(r, 40+i*13, 2+i, 35+i*11, func() fr.Element {
			if r.IntN(2) == 0 {
				return fr.Element{}
			}
			return randElement(r)
		}, 0.9, 1, 0.4)
		p := paramsFor(r, a)
		jobs[i] = job{a, p, naiveSums(t, a, p)}
	}
	errs := make(chan error, workers)
	got := make([]*groth16.Sums, workers)
	for i := range jobs {
		go func() {
			var err error
			got[i], err = groth16.Compute(context.Background(), d, jobs[i].a, jobs[i].p)
			errs <- err
		}()
	}
	for range jobs {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	for i := range jobs {
		compareSums(t, "concurrent", got[i], &jobs[i].want)
	}
}

// TestDeviceChunkedTail forces tails longer than one chunk, so that Run and
// Finish gather and multiply them chunk by chunk, and MSMs longer than one
// MultiExp call, and compares the sums with the naive ones.
func TestDeviceChunkedTail(t *testing.T) {
	defer func(g1, g2, m int) { tailChunkG1, tailChunkG2, msmMaxPoints = g1, g2, m }(tailChunkG1, tailChunkG2, msmMaxPoints)
	tailChunkG1, tailChunkG2, msmMaxPoints = 7, 3, 5
	r := rand.New(rand.NewPCG(23, 24))
	var one fr.Element
	one.SetOne()
	gen := func() fr.Element {
		switch r.IntN(3) {
		case 0:
			return fr.Element{}
		case 1:
			return one
		}
		return randElement(r)
	}
	ctx := context.Background()
	d := New(2)
	for _, rows := range []int{8, 50, 129} {
		a := assignment(r, rows, 3, rows-3, gen, 0.8, 0.6, 0.5)
		p := paramsFor(r, a)
		want := naiveSums(t, a, p)
		got, err := groth16.Compute(ctx, d, a, p)
		if err != nil {
			t.Fatalf("%d rows: %v", rows, err)
		}
		compareSums(t, fmt.Sprintf("%d rows, chunked", rows), got, &want)
	}
}

// TestPrepareAllocatesWhatItUses checks that Prepare, on a fresh device,
// allocates little more than the split it builds: the bitmap of the ones,
// the indices and scalars of the tail, and the gathered tail bases. Buffers
// sized for every scalar of a query (when three quarters are 0 or 1) would
// nearly double it.
func TestPrepareAllocatesWhatItUses(t *testing.T) {
	c, err := synthetic.New(synthetic.Default(1 << 11))
	if err != nil {
		t.Fatal(err)
	}
	a, err := groth16.Synthesize(c, c.Hint())
	if err != nil {
		t.Fatal(err)
	}
	p := paramsFor(rand.New(rand.NewPCG(25, 26)), a)
	d := New(1)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	wp, err := d.Prepare(context.Background(), a, p)
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	w := wp.(*prepared)
	used := 0
	for _, q := range []*g1Query{&w.l, &w.aq, &w.b1} {
		used += 4*len(q.ones) + 4*len(q.tail) + fr.Bytes*len(q.scalars)
		if q.owned {
			used += int(unsafe.Sizeof(q.bases[0])) * len(q.bases)
		}
	}
	if w.b2o {
		used += int(unsafe.Sizeof(w.b2[0])) * len(w.b2)
	}
	got := int(after.TotalAlloc - before.TotalAlloc)
	if limit := used + used/4 + 64<<10; got > limit {
		t.Fatalf("Prepare allocated %d bytes for a split of %d bytes (limit %d)", got, used, limit)
	}
	t.Logf("Prepare allocated %d bytes for a split of %d bytes", got, used)
}

// popCount counts the set bits among the first n of b.
func popCount(b *r1cs.Bitmap, n int) int {
	c := 0
	for w, word := range b.Words {
		base := w * 64
		if base >= n {
			break
		}
		if rest := n - base; rest < 64 {
			word &= 1<<uint(rest) - 1
		}
		c += bits.OnesCount64(word)
	}
	return c
}

// cancelAfter is a context whose Err turns to Canceled after n calls.
type cancelAfter struct {
	context.Context
	n     int
	calls int
}

func (c *cancelAfter) Err() error {
	c.calls++
	if c.calls > c.n {
		return context.Canceled
	}
	return nil
}

// TestRunStopsBetweenMSMCalls checks that Run and Finish look at their
// context between the MultiExp calls of one long MSM, not only between
// MSMs: with tiny calls there are many more checks, and a context cancelled
// after any of them stops the step with context.Canceled.
func TestRunStopsBetweenMSMCalls(t *testing.T) {
	defer func(g1, g2, m int) { tailChunkG1, tailChunkG2, msmMaxPoints = g1, g2, m }(tailChunkG1, tailChunkG2, msmMaxPoints)
	r := rand.New(rand.NewPCG(27, 28))
	var one fr.Element
	one.SetOne()
	gen := func() fr.Element {
		if r.IntN(2) == 0 {
			return one
		}
		return randElement(r)
	}
	a0 := assignment(r, 60, 2, 50, gen, 0.9, 0.5, 0.7)
	p := paramsFor(r, a0)
	clone := func() *groth16.Assignment {
		a := *a0
		a.A, a.B, a.C = slices.Clone(a0.A), slices.Clone(a0.B), slices.Clone(a0.C)
		return &a
	}
	d := New(1)
	// checks counts the context checks of a full Run + Finish.
	checks := func() int {
		ctx := &cancelAfter{Context: context.Background(), n: 1 << 30}
		w, err := d.Prepare(context.Background(), clone(), p)
		if err != nil {
			t.Fatal(err)
		}
		pr, err := d.Run(ctx, w)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := d.Finish(ctx, pr); err != nil {
			t.Fatal(err)
		}
		return ctx.calls
	}
	whole := checks()
	tailChunkG1, tailChunkG2, msmMaxPoints = 4, 4, 4
	chunked := checks()
	if chunked < whole+10 {
		t.Fatalf("%d context checks with 4-point calls, %d with whole MSMs: no checks between calls", chunked, whole)
	}
	for n := whole; n < chunked; n += 3 {
		ctx := &cancelAfter{Context: context.Background(), n: n}
		w, err := d.Prepare(context.Background(), clone(), p)
		if err != nil {
			t.Fatal(err)
		}
		pr, err := d.Run(ctx, w)
		if err == nil {
			_, err = d.Finish(ctx, pr)
		}
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("cancelled after %d of %d checks: %v, want context.Canceled", n, chunked, err)
		}
	}
}
