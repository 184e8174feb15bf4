package porep

import (
	"testing"

	"github.com/cuzk-project/cuzk/circuits/internal/circuittest"
	hmerkle "github.com/cuzk-project/cuzk/hash/merkle"
)

// Filecoin's partition shapes (filecoin-proofs constants.rs, parameters.rs:
// interactive challenges per partition).
var (
	config2KiB   = Config{Nodes: 1 << 6, Layers: 2, TreeDLevels: 6, TreeR: hmerkle.Shape{Base: 8}, Challenges: 2}
	config8MiB   = Config{Nodes: 1 << 18, Layers: 2, TreeDLevels: 18, TreeR: hmerkle.Shape{Base: 8}, Challenges: 2}
	config512MiB = Config{Nodes: 1 << 24, Layers: 2, TreeDLevels: 24, TreeR: hmerkle.Shape{Base: 8}, Challenges: 2}
	config32GiB  = Config{Nodes: 1 << 30, Layers: 11, TreeDLevels: 30, TreeR: hmerkle.Shape{Base: 8, Sub: 8}, Challenges: 18}
	config64GiB  = Config{Nodes: 1 << 31, Layers: 11, TreeDLevels: 31, TreeR: hmerkle.Shape{Base: 8, Sub: 8, Top: 2}, Challenges: 18}
)

// fixture is storage-proofs-porep tests/stacked_circuit.rs: 8 nodes per base
// tree, 2 layers, one interactive challenge.
func fixture(shape hmerkle.Shape, levelsD int) Config {
	return Config{Nodes: 1 << levelsD, Layers: 2, TreeDLevels: levelsD, TreeR: shape, Challenges: 1}
}

// counts are a system's size as bellperson reports it: circuit rows (without
// the input rows the prover appends), inputs with ONE, and -1 for "not
// published" in the optional fields. The non-zero counts include the input
// rows (one A term each), as curio's cuzk PCE extraction reports them.
type counts struct {
	constraints, inputs     int
	aux, aAux, bAux, bInput int
	nnzA, nnzB, nnzC        int
}

func TestCounts(t *testing.T) {
	const na = -1
	tests := []struct {
		name  string
		cfg   Config
		want  counts
		large bool
	}{
		// tests/stacked_circuit.rs (MetricCS num_constraints, num_inputs with ONE).
		{"fixture-8-0-0", fixture(hmerkle.Shape{Base: 8}, 3), counts{1_199_620, 22, na, na, na, na, na, na, na}, false},
		{"fixture-2-0-0", fixture(hmerkle.Shape{Base: 2}, 3), counts{1_206_212, 22, na, na, na, na, na, na, na}, false},
		{"fixture-8-4-0", fixture(hmerkle.Shape{Base: 8, Sub: 4}, 5), counts{1_296_576, 22, na, na, na, na, na, na, na}, false},
		{"fixture-8-4-2", fixture(hmerkle.Shape{Base: 8, Sub: 4, Top: 2}, 6), counts{1_346_982, 22, na, na, na, na, na, na, na}, false},
		// 2 KiB, 8 MiB, 512 MiB and 64 GiB: derived by building the circuit's
		// structure and checked against every published count.
		{"2KiB", config2KiB, counts{2_687_921, 40, 2_685_673, 2_674_908, 685_521, 1, na, na, na}, false},
		{"8MiB", config8MiB, counts{3_844_929, 40, na, na, na, na, na, na, na}, false},
		{"512MiB", config512MiB, counts{4_423_433, 40, na, na, na, na, na, na, na}, false},
		// 32 GiB: rust-fil-proofs PR #1325 circuitinfo (constraints, inputs) and
		// curio extern/cuzk/cuzk-project.md (PCE extraction: aux, densities, nnz).
		{"32GiB", config32GiB, counts{130_278_541, 328, 130_169_893, 129_753_292, 33_112_281, 1, 309_405_051, 130_327_340, 282_656_500}, true},
		{"64GiB", config64GiB, counts{131_185_849, 328, 131_076_643, 130_637_542, 33_386_943, na, na, na, na}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.large && testing.Short() {
				t.Skip("large partition: run without -short")
			}
			c := circuittest.Count(t, tc.name, BlankConfig(tc.cfg), tc.cfg, tc.want.constraints)
			got := counts{c.Constraints - c.Inputs, c.Inputs, c.Aux, c.ADensityAuxCount(), c.BDensityAuxCount(),
				c.BDensityInputCount(), c.NonZeroA, c.NonZeroB, c.NonZeroC}
			check := func(what string, got, want int) {
				if want != na && got != want {
					t.Errorf("%s = %d, want %d (%+d)", what, got, want, got-want)
				}
			}
			check("inputs", got.inputs, tc.want.inputs)
			check("aux", got.aux, tc.want.aux)
			check("a_aux", got.aAux, tc.want.aAux)
			check("b_aux", got.bAux, tc.want.bAux)
			check("b_input", got.bInput, tc.want.bInput)
			check("nnz A", got.nnzA, tc.want.nnzA)
			check("nnz B", got.nnzB, tc.want.nnzB)
			check("nnz C", got.nnzC, tc.want.nnzC)
		})
	}
}
