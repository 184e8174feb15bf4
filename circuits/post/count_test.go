package post

import (
	"testing"

	"github.com/cuzk-project/cuzk/circuits/internal/circuittest"
	hmerkle "github.com/cuzk-project/cuzk/hash/merkle"
)

// Filecoin's sector sizes in nodes with their tree R shapes.
var sizes = []struct {
	name  string
	nodes uint64
	treeR hmerkle.Shape
}{
	{"2KiB", 1 << 6, hmerkle.Shape{Base: 8}},
	{"8MiB", 1 << 18, hmerkle.Shape{Base: 8}},
	{"512MiB", 1 << 24, hmerkle.Shape{Base: 8}},
	{"32GiB", 1 << 30, hmerkle.Shape{Base: 8, Sub: 8}},
	{"64GiB", 1 << 31, hmerkle.Shape{Base: 8, Sub: 8, Top: 2}},
}

func size(t testing.TB, name string) (uint64, hmerkle.Shape) {
	t.Helper()
	for _, s := range sizes {
		if s.name == name {
			return s.nodes, s.treeR
		}
	}
	t.Fatalf("unknown size %s", name)
	return 0, hmerkle.Shape{}
}

// fixture is storage-proofs-post tests/fallback_circuit.rs: 64 leaves per
// base tree, 5 challenges per sector.
func fixture(treeR hmerkle.Shape, sectors int) Config {
	return Config{Nodes: 64 * uint64(treeR.BaseTrees()), TreeR: treeR, Sectors: sectors, Challenges: 5}
}

func TestCounts(t *testing.T) {
	winning := func(name string) Config { n, s := size(t, name); return WinningConfig(n, s) }
	window := func(name string) Config { n, s := size(t, name); return WindowConfig(n, s) }
	tests := []struct {
		name                string
		cfg                 Config
		constraints, inputs int // circuit rows (no input rows), inputs with ONE
		large               bool
	}{
		// tests/fallback_circuit.rs (TestConstraintSystem).
		{"fixture-8-0-0", fixture(hmerkle.Shape{Base: 8}, 3), 16_869, 19, false},
		{"fixture-8-4-0", fixture(hmerkle.Shape{Base: 8, Sub: 4}, 3), 22_674, 19, false},
		{"fixture-8-4-2", fixture(hmerkle.Shape{Base: 8, Sub: 4, Top: 2}, 3), 27_384, 19, false},
		{"fixture-8-0-0-two-partitions", fixture(hmerkle.Shape{Base: 8}, 2), 11_246, 13, false},
		// tests/fallback_circuit.rs BenchCS: 32 GiB sectors in a base-8
		// tree, 5 sectors of 10 challenges (the test checks only the rows;
		// inputs 5 × 11 + ONE).
		{"bench-32GiB-8-0-0", Config{Nodes: 1 << 30, TreeR: hmerkle.Shape{Base: 8}, Sectors: 5, Challenges: 10}, 266_665, 56, false},
		// WinningPoSt: 32 GiB published (rust-fil-proofs PR #1325
		// circuitinfo), the others derived.
		{"winning-2KiB", winning("2KiB"), 90_750, 133, false},
		{"winning-8MiB", winning("8MiB"), 230_670, 133, false},
		{"winning-512MiB", winning("512MiB"), 300_630, 133, false},
		{"winning-32GiB", winning("32GiB"), 370_590, 133, false},
		{"winning-64GiB", winning("64GiB"), 391_314, 133, false},
		// WindowPoSt: 32 and 64 GiB published (filecoin-proofs
		// constants.rs), the small sizes derived.
		{"window-2KiB", window("2KiB"), 21_866, 23, false},
		{"window-8MiB", window("8MiB"), 64_266, 23, false},
		{"window-512MiB", window("512MiB"), 85_466, 23, false},
		{"window-32GiB", window("32GiB"), 125_279_217, 25_840, true},
		{"window-64GiB", window("64GiB"), 129_887_900, 25_301, true},
	}
	// The .params header of the large WindowPoSt circuits: aux, a_aux and
	// b_aux (derived).
	headers := map[string][3]int{
		"window-32GiB": {126_902_376, 96_179_805, 91_925_766},
		"window-64GiB": {131_500_200, 99_624_500, 95_413_200},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.large && testing.Short() {
				t.Skip("large partition: run without -short")
			}
			c := circuittest.Count(t, tc.name, BlankConfig(tc.cfg), tc.cfg, tc.constraints)
			if c.Inputs != tc.inputs {
				t.Errorf("inputs = %d, want %d", c.Inputs, tc.inputs)
			}
			for _, v := range []struct {
				name      string
				got, want int
			}{{"aux", c.Aux, headers[tc.name][0]}, {"a_aux", c.ADensityAuxCount(), headers[tc.name][1]},
				{"b_aux", c.BDensityAuxCount(), headers[tc.name][2]}} {
				if v.want != 0 && v.got != v.want {
					t.Errorf("%s = %d, want %d", v.name, v.got, v.want)
				}
			}
		})
	}
}
