package update

import (
	"fmt"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-project/cuzk/gadgets/boolean"
	"github.com/cuzk-project/cuzk/gadgets/num"
	"github.com/cuzk-project/cuzk/r1cs"
)

// TestChallengeBitsGadget is gadgets.rs test_gen_challenge_bits_gadget:
// the gadget's rows per sector size, and its challenges equal the native
// derivation for every partition.
func TestChallengeBitsGadget(t *testing.T) {
	tests := []struct {
		cfg  Config
		rows int
	}{
		{config1KiB, 568}, {config2KiB, 568}, {config4KiB, 568}, {config8KiB, 568},
		{config16KiB, 568}, {config32KiB, 568}, {config8MiB, 568},
		{Config{Nodes: 1 << 19, TreeR: config8MiB.TreeR}, 568}, // 16 MiB
		{config512MiB, 4544}, {config32GiB, 5680}, {config64GiB, 5680},
	}
	var commRNew fr.Element
	commRNew.SetString("0x1234567890abcdef1234567890abcdef1234567890abcdef1234567890abcde")
	for _, tc := range tests {
		t.Run(fmt.Sprint(tc.cfg.Nodes), func(t *testing.T) {
			for k := range tc.cfg.Partitions() {
				pa := r1cs.NewProvingAssignment(r1cs.Shape{})
				pa.AllocInput(oneValue)
				comm := num.Alloc(pa, commRNew)
				var kv fr.Element
				kv.SetUint64(uint64(k))
				part := num.Alloc(pa, kv)
				kBits := toBits(pa, part)[:tc.cfg.partitionBits()]
				before := pa.NumConstraints()
				got, err := challengeBits(pa, comm, part, tc.cfg.Challenges(), tc.cfg.randomBits())
				if err != nil {
					t.Fatal(err)
				}
				if rows := pa.NumConstraints() - before; rows != tc.rows {
					t.Fatalf("partition %d: %d rows, want %d", k, rows, tc.rows)
				}
				if row := pa.IsSatisfied(); row >= 0 {
					t.Fatalf("partition %d: row %d not satisfied", k, row)
				}
				want := challenges(t, tc.cfg, commRNew, k)
				if len(got) != len(want) {
					t.Fatalf("partition %d: %d challenges, want %d", k, len(got), len(want))
				}
				for i, bits := range got {
					var c uint64
					for j, b := range append(append([]boolean.AllocatedBit(nil), bits...), kBits...) {
						if b.Value {
							c |= 1 << j
						}
					}
					if c != want[i] {
						t.Fatalf("partition %d challenge %d = %d, want %d", k, i, c, want[i])
					}
				}
			}
		})
	}
}

// TestApexPoRGadget is gadgets.rs test_apex_por_gadget_*: the rows of the
// apex tree and its path to comm_d for the small sizes and for 16 KiB cut
// into 4 and 8 partitions.
func TestApexPoRGadget(t *testing.T) {
	tests := []struct {
		nodes                  uint64
		partitions, apexLeaves int
		rows                   int
		large                  bool
	}{
		{1 << 5, 1, 8, 317_654, false},
		{1 << 6, 1, 8, 317_654, false},
		{1 << 7, 1, 8, 317_654, false},
		{1 << 8, 1, 8, 317_654, false},
		{1 << 9, 2, 128, 5_808_515, true},
		{1 << 10, 2, 128, 5_808_515, true},
		{1 << 9, 4, 16, 771_448, false},
		{1 << 9, 8, 8, 453_797, false},
	}
	for _, tc := range tests {
		t.Run(fmt.Sprintf("%d-%dx%d", tc.nodes, tc.partitions, tc.apexLeaves), func(t *testing.T) {
			if tc.large && testing.Short() {
				t.Skip("run without -short")
			}
			var c r1cs.Counter
			c.AllocInput(oneValue)
			commD := num.Alloc(&c, fr.Element{})
			var bits []boolean.AllocatedBit
			var path [][]num.AllocatedNum
			for p := tc.partitions; p > 1; p /= 2 {
				bits = append(bits, boolean.Alloc(&c, false))
			}
			leaves := make([]num.AllocatedNum, tc.apexLeaves)
			for i := range leaves {
				leaves[i] = num.Alloc(&c, fr.Element{})
			}
			for range bits {
				path = append(path, []num.AllocatedNum{num.Alloc(&c, fr.Element{})})
			}
			before := c.Constraints
			if err := apexPoR(&c, leaves, bits, path, commD); err != nil {
				t.Fatal(err)
			}
			if rows := c.Constraints - before; rows != tc.rows {
				t.Fatalf("%d rows, want %d", rows, tc.rows)
			}
		})
	}
}
