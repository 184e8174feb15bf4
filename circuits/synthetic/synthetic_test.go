package synthetic

import (
	"errors"
	"fmt"
	"math"
	"math/bits"
	"testing"

	"github.com/cuzk-project/cuzk/r1cs"
)

func synthesize(t testing.TB, cfg Config) *r1cs.ProvingAssignment {
	t.Helper()
	c, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	p := r1cs.NewProvingAssignment(c.Hint())
	if err := r1cs.Synthesize(p, c); err != nil {
		t.Fatal(err)
	}
	return p
}

func countBools(p *r1cs.ProvingAssignment) int {
	n := 0
	for i := range p.Aux {
		if p.Aux[i].IsZero() || p.Aux[i].IsOne() {
			n++
		}
	}
	return n
}

func TestSynthesizeShape(t *testing.T) {
	cases := []struct {
		name string
		cfg  Config
	}{
		{"default-4096", Default(4096)},
		{"default-1<<14", Default(1 << 14)},
		{"dense", Config{Constraints: 3000, Inputs: 1, BoolFraction: 0, ADensity: 1, BDensity: 1, Seed: 7}},
		{"all-bools", Config{Constraints: 2048, Inputs: 50, BoolFraction: 1, ADensity: 0.5, BDensity: 0.5, Seed: 3}},
		{"no-density", Config{Constraints: 1024, Inputs: 0, BoolFraction: 0.3, ADensity: 0, BDensity: 0, Seed: 9}},
		{"only-inputs", Config{Constraints: 6, Inputs: 5, BoolFraction: 0.5, ADensity: 0.5, BDensity: 0.5, Seed: 1}},
		{"one-row", Config{Constraints: 2, Inputs: 0, BoolFraction: 0.5, ADensity: 0.5, BDensity: 0.5, Seed: 1}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := synthesize(t, tc.cfg)
			if row := p.IsSatisfied(); row != -1 {
				t.Fatalf("row %d not satisfied", row)
			}
			want := tc.cfg.Shape()
			got := Shape{
				Rows: p.NumConstraints(), Inputs: p.NumInputs(), Aux: p.NumAux(),
				Bools:         countBools(p),
				ADensityAux:   p.ADensityAux.PopCount(),
				BDensityInput: p.BDensityInput.PopCount(),
				BDensityAux:   p.BDensityAux.PopCount(),
			}
			if got != want {
				t.Fatalf("synthesized shape %+v, Shape() predicts %+v", got, want)
			}
			if got.Rows != tc.cfg.Constraints {
				t.Fatalf("rows = %d, want Constraints = %d", got.Rows, tc.cfg.Constraints)
			}
			// The Counter must agree with what Shape promises.
			var cnt r1cs.Counter
			c, _ := New(tc.cfg)
			if err := r1cs.Synthesize(&cnt, c); err != nil {
				t.Fatal(err)
			}
			if cnt.Constraints != want.Rows || cnt.Inputs != want.Inputs || cnt.Aux != want.Aux ||
				cnt.ADensityAuxCount() != want.ADensityAux || cnt.BDensityAuxCount() != want.BDensityAux ||
				cnt.BDensityInputCount() != want.BDensityInput {
				t.Fatalf("counter %+v disagrees with shape %+v", cnt, want)
			}
		})
	}
}

func TestFractions(t *testing.T) {
	cfgs := []Config{
		Default(1 << 14),
		{Constraints: 1 << 13, Inputs: 3, BoolFraction: 0.1, ADensity: 0.6, BDensity: 0.9, Seed: 42},
	}
	for _, cfg := range cfgs {
		s := cfg.Shape()
		n := float64(s.Aux)
		// 4 standard deviations of a binomial at these sizes is < 0.03.
		const tol = 0.03
		for _, f := range []struct {
			name      string
			got, want float64
		}{
			{"bool fraction", float64(s.Bools) / n, cfg.BoolFraction},
			{"A-aux density", float64(s.ADensityAux) / n, cfg.ADensity},
			{"B-aux density", float64(s.BDensityAux) / n, cfg.BDensity},
		} {
			if math.Abs(f.got-f.want) > tol {
				t.Errorf("%+v: %s = %.4f, want %.4f ± %.2f", cfg, f.name, f.got, f.want, tol)
			}
		}
		if s.BDensityInput != 1 {
			t.Errorf("B-input density popcount = %d, want 1 (ONE only)", s.BDensityInput)
		}
	}
}

func TestDeterministic(t *testing.T) {
	cfg := Default(2048)
	p1 := synthesize(t, cfg)
	p2 := synthesize(t, cfg)
	for i := range p1.A {
		if p1.A[i] != p2.A[i] || p1.B[i] != p2.B[i] || p1.C[i] != p2.C[i] {
			t.Fatalf("row %d differs between two syntheses of one config", i)
		}
	}
	for i := range p1.Aux {
		if p1.Aux[i] != p2.Aux[i] {
			t.Fatalf("aux %d differs between two syntheses of one config", i)
		}
	}
	cfg.Seed++
	p3 := synthesize(t, cfg)
	same := 0
	for i := range p1.Aux {
		if p1.Aux[i] == p3.Aux[i] {
			same++
		}
	}
	// Booleans collide often; random values never.
	if same > len(p1.Aux)*7/10 {
		t.Fatalf("seeds %d and %d agree on %d of %d aux values", cfg.Seed-1, cfg.Seed, same, len(p1.Aux))
	}
}

func TestPublicInputs(t *testing.T) {
	cfg := Default(512)
	c, _ := New(cfg)
	p := synthesize(t, cfg)
	in := c.PublicInputs()
	if len(in) != cfg.Inputs || len(p.Input) != cfg.Inputs+1 {
		t.Fatalf("got %d public inputs, assignment has %d inputs, want %d (+ONE)", len(in), len(p.Input), cfg.Inputs)
	}
	for i := range in {
		if in[i] != p.Input[i+1] {
			t.Fatalf("public input %d differs from the synthesized input", i)
		}
	}
}

func TestValidate(t *testing.T) {
	bad := []Config{
		{Constraints: 5, Inputs: 5},
		{Constraints: 10, Inputs: -1},
		{Constraints: MaxConstraints + 1},
		{Constraints: 10, BoolFraction: 1.5},
		{Constraints: 10, ADensity: -0.1},
		{Constraints: 10, BDensity: math.NaN()},
	}
	for _, cfg := range bad {
		if _, err := New(cfg); !errors.Is(err, ErrBadConfig) {
			t.Errorf("New(%+v) = %v, want ErrBadConfig", cfg, err)
		}
	}
}

func BenchmarkSynthesize(b *testing.B) {
	for _, n := range []int{1 << 16, 1 << 20} {
		b.Run(formatRows(n), func(b *testing.B) {
			if n > 1<<16 && testing.Short() {
				b.Skip("large size skipped in -short")
			}
			c, _ := New(Default(n))
			for b.Loop() {
				p := r1cs.NewProvingAssignment(c.Hint())
				if err := r1cs.Synthesize(p, c); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "constraints/s")
		})
	}
}

func formatRows(n int) string {
	if n&(n-1) == 0 {
		return fmt.Sprintf("2^%d", bits.TrailingZeros(uint(n)))
	}
	return fmt.Sprint(n)
}
