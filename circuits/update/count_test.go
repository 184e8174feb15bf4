package update

import (
	"testing"
	"time"

	hmerkle "github.com/cuzk-project/cuzk/hash/merkle"
	"github.com/cuzk-project/cuzk/r1cs"
)

// Filecoin's sector sizes with their tree R shapes (constants.rs
// validate_tree_r_shape), and the test sizes of tests/circuit.rs.
var (
	config1KiB   = Config{Nodes: 1 << 5, TreeR: hmerkle.Shape{Base: 8, Sub: 4}}
	config2KiB   = Config{Nodes: 1 << 6, TreeR: hmerkle.Shape{Base: 8}}
	config4KiB   = Config{Nodes: 1 << 7, TreeR: hmerkle.Shape{Base: 8, Sub: 2}}
	config8KiB   = Config{Nodes: 1 << 8, TreeR: hmerkle.Shape{Base: 8, Sub: 4}}
	config16KiB  = Config{Nodes: 1 << 9, TreeR: hmerkle.Shape{Base: 8, Sub: 8}}
	config32KiB  = Config{Nodes: 1 << 10, TreeR: hmerkle.Shape{Base: 8, Sub: 8, Top: 2}}
	config8MiB   = Config{Nodes: 1 << 18, TreeR: hmerkle.Shape{Base: 8}}
	config512MiB = Config{Nodes: 1 << 24, TreeR: hmerkle.Shape{Base: 8}}
	config32GiB  = Config{Nodes: 1 << 30, TreeR: hmerkle.Shape{Base: 8, Sub: 8}}
	config64GiB  = Config{Nodes: 1 << 31, TreeR: hmerkle.Shape{Base: 8, Sub: 8, Top: 2}}
)

func TestCounts(t *testing.T) {
	tests := []struct {
		name        string
		cfg         Config
		constraints int // circuit rows, without the input rows
		large       bool
	}{
		// tests/circuit.rs (TestConstraintSystem; 32 GiB with BenchCS).
		{"1KiB", config1KiB, 1_248_389, false},
		{"2KiB", config2KiB, 1_705_039, false},
		{"4KiB", config4KiB, 2_165_109, false},
		{"8KiB", config8KiB, 2_620_359, false},
		{"16KiB", config16KiB, 6_300_021, true},
		{"32KiB", config32KiB, 6_760_091, true},
		{"32GiB", config32GiB, 81_049_499, true},
		// Derived by building the circuit's structure and checked against
		// every published count.
		{"8MiB", config8MiB, 10_007_503, true},
		{"512MiB", config512MiB, 57_450_479, true},
		{"64GiB", config64GiB, 85_006_101, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.large && testing.Short() {
				t.Skip("large partition: run without -short")
			}
			start := time.Now()
			var c r1cs.Counter
			if err := r1cs.Synthesize(&c, BlankConfig(tc.cfg)); err != nil {
				t.Fatal(err)
			}
			t.Logf("%s: %d rows (+%d input rows), %d inputs, %d aux, a_aux %d, b_aux %d, b_input %d, nnz %d/%d/%d in %v",
				tc.name, c.Constraints-c.Inputs, c.Inputs, c.Inputs, c.Aux, c.ADensityAuxCount(), c.BDensityAuxCount(),
				c.BDensityInputCount(), c.NonZeroA, c.NonZeroB, c.NonZeroC, time.Since(start).Round(time.Millisecond))
			if got := c.Constraints - c.Inputs; got != tc.constraints {
				t.Errorf("constraints = %d, want %d (%+d)", got, tc.constraints, got-tc.constraints)
			}
			if c.Inputs != 5 || c.Inputs != tc.cfg.NumInputs()+1 {
				t.Errorf("inputs = %d, want 5 (Config.NumInputs %d + ONE)", c.Inputs, tc.cfg.NumInputs())
			}
			start = time.Now()
			s, err := tc.cfg.Shape()
			if err != nil {
				t.Fatal(err)
			}
			if want := (r1cs.Shape{Inputs: c.Inputs, Aux: c.Aux, Constraints: c.Constraints}); s != want {
				t.Errorf("Config.Shape = %+v, synthesis %+v", s, want)
			}
			t.Logf("Config.Shape in %v", time.Since(start).Round(time.Microsecond))
		})
	}
}
