package porep

import (
	"context"
	"errors"
	"testing"

	"github.com/cuzk-project/cuzk/filecoin"
	"github.com/cuzk-project/cuzk/filecoin/c1"
	"github.com/cuzk-project/cuzk/filecoin/gen"
	"github.com/cuzk-project/cuzk/filecoin/sdr"
	"github.com/cuzk-project/cuzk/r1cs"
)

// TestGenerated synthesizes partitions of generated C1 outputs (vanilla
// proofs c1.Verify accepts, with the real graph and challenges): each must be
// satisfied, and the inputs it allocates must equal PublicInputs, which
// derives them from the request and the graph.
func TestGenerated(t *testing.T) {
	tests := []struct {
		proof      filecoin.SealProof
		partitions []int // nil: all
		short      bool
	}{
		{filecoin.StackedDrg2KiBV1_1, nil, true},
		{filecoin.StackedDrg2KiBV1, nil, false},
		{filecoin.StackedDrg2KiBV1_1_Feat_SyntheticPoRep, nil, false},
		{filecoin.StackedDrg2KiBV1_2_Feat_NonInteractivePoRep, []int{12}, true},
		{filecoin.StackedDrg2KiBV1_2_Feat_NonInteractivePoRep, []int{0, 5}, false},
		{filecoin.StackedDrg8MiBV1_1, nil, false},
	}
	for _, tc := range tests {
		info, err := tc.proof.Info()
		if err != nil {
			t.Fatal(err)
		}
		t.Run(info.Name, func(t *testing.T) {
			if !tc.short && testing.Short() {
				t.Skip("run without -short")
			}
			pr, err := gen.GeneratePoRep(context.Background(), gen.PoRepOptions{Proof: tc.proof, Seed: 11, Miner: 1000, Sector: 7}, nil)
			if err != nil {
				t.Fatal(err)
			}
			g, err := sdr.GraphFor(info)
			if err != nil {
				t.Fatal(err)
			}
			parts := tc.partitions
			if parts == nil {
				for k := range info.Partitions {
					parts = append(parts, k)
				}
			}
			for _, k := range parts {
				p, err := NewPartition(pr.Output, k)
				if err != nil {
					t.Fatalf("partition %d: %v", k, err)
				}
				pa := r1cs.NewProvingAssignment(r1cs.Shape{})
				if err := r1cs.Synthesize(pa, p); err != nil {
					t.Fatalf("partition %d: %v", k, err)
				}
				if row := pa.IsSatisfied(); row >= 0 {
					t.Fatalf("partition %d: row %d of %d not satisfied", k, row, pa.NumConstraints())
				}
				want, err := PublicInputs(pr.Output, k, g)
				if err != nil {
					t.Fatalf("partition %d: %v", k, err)
				}
				if len(pa.Input) != len(want)+1 {
					t.Fatalf("partition %d: %d inputs with ONE, PublicInputs %d", k, len(pa.Input), len(want))
				}
				for i := range want {
					if !pa.Input[i+1].Equal(&want[i]) {
						t.Errorf("partition %d input %d = %s, PublicInputs %s", k, i+1, pa.Input[i+1].String(), want[i].String())
					}
				}
			}
		})
	}
}

func TestPublicInputsErrors(t *testing.T) {
	pr, err := gen.GeneratePoRep(context.Background(), gen.PoRepOptions{Proof: filecoin.StackedDrg2KiBV1_1, Seed: 12}, nil)
	if err != nil {
		t.Fatal(err)
	}
	info := pr.Output.Info()
	g, err := sdr.GraphFor(info)
	if err != nil {
		t.Fatal(err)
	}
	other, err := filecoin.StackedDrg2KiBV1.Info()
	if err != nil {
		t.Fatal(err)
	}
	gOther, err := sdr.GraphFor(other)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := PublicInputs(pr.Output, 0, g); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		k    int
		g    *sdr.Graph
		f    func(o *c1.Output)
		bad  bool // wraps c1.ErrBadVanillaProof
	}{
		{"partition out of range", 1, g, func(*c1.Output) {}, true},
		{"unknown proof", 0, g, func(o *c1.Output) { o.RegisteredProof = "x" }, true},
		{"non-canonical comm_d", 0, g, func(o *c1.Output) { o.CommD[31] = 0xc0 }, true},
		{"no graph", 0, nil, func(*c1.Output) {}, false},
		{"another proof's graph", 0, gOther, func(*c1.Output) {}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o := *pr.Output
			tc.f(&o)
			_, err := PublicInputs(&o, tc.k, tc.g)
			if err == nil {
				t.Fatal("no error")
			}
			if got := errors.Is(err, c1.ErrBadVanillaProof); got != tc.bad {
				t.Errorf("err = %v: wraps ErrBadVanillaProof %v, want %v", err, got, tc.bad)
			}
		})
	}
}
