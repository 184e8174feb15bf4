package update

import (
	"testing"

	"github.com/cuzk-project/cuzk/circuits/internal/circuittest"
	hmerkle "github.com/cuzk-project/cuzk/hash/merkle"
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
			c := circuittest.Count(t, tc.name, BlankConfig(tc.cfg), tc.cfg, tc.constraints)
			if c.Inputs != 5 {
				t.Errorf("inputs = %d, want 5", c.Inputs)
			}
		})
	}
}
