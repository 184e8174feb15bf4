package poseidon

import (
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-project/cuzk/gadgets/internal/gadgettest"
	"github.com/cuzk-project/cuzk/gadgets/num"
	native "github.com/cuzk-project/cuzk/hash/poseidon"
	"github.com/cuzk-project/cuzk/r1cs"
)

func sameLC(a, b r1cs.LinearCombination) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Var != b[i].Var || !a[i].Coeff.Equal(&b[i].Coeff) {
			return false
		}
	}
	return true
}

// TestTemplateMatchesDirect checks that binding the recorded rows gives,
// row for row and term for term, what the direct linear-combination
// synthesis builds, for preimages that are aux or input variables, out of
// order, or repeated.
func TestTemplateMatchesDirect(t *testing.T) {
	custom, err := native.Custom(2, 1)
	if err != nil {
		t.Fatal(err)
	}
	type setup func(cs r1cs.ConstraintSystem, in []fr.Element) []num.AllocatedNum
	inOrder := func(cs r1cs.ConstraintSystem, in []fr.Element) []num.AllocatedNum {
		out := make([]num.AllocatedNum, len(in))
		for i := range in {
			out[i] = num.Alloc(cs, in[i])
		}
		return out
	}
	reversed := func(cs r1cs.ConstraintSystem, in []fr.Element) []num.AllocatedNum {
		out := make([]num.AllocatedNum, len(in))
		for i := len(in) - 1; i >= 0; i-- {
			out[i] = num.Alloc(cs, in[i])
		}
		return out
	}
	inputs := func(cs r1cs.ConstraintSystem, in []fr.Element) []num.AllocatedNum {
		out := make([]num.AllocatedNum, len(in))
		for i := range in {
			out[i] = num.AllocMaybeInput(cs, i%2 == 0, in[i])
		}
		return out
	}
	repeated := func(cs r1cs.ConstraintSystem, in []fr.Element) []num.AllocatedNum {
		x := num.Alloc(cs, in[0])
		out := make([]num.AllocatedNum, len(in))
		for i := range out {
			out[i] = x
		}
		return out
	}
	for _, tc := range []struct {
		name  string
		c     *native.Constants
		setup setup
	}{
		{"arity2", native.MustMerkleTree(2), inOrder},
		{"arity4", native.MustMerkleTree(4), inOrder},
		{"arity8-reversed", native.MustMerkleTree(8), reversed},
		{"arity11-inputs", native.MustMerkleTree(11), inputs},
		{"arity8-repeated", native.MustMerkleTree(8), repeated},
		{"custom2", custom, inOrder},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := preimage(tc.c.Arity, 6)
			direct := gadgettest.NewRecorder()
			wantOut := synthesize(direct, tc.setup(direct, in), tc.c, true)
			bound := gadgettest.NewRecorder()
			gotOut, err := Hash(bound, tc.setup(bound, in), tc.c)
			if err != nil {
				t.Fatal(err)
			}
			if gotOut != wantOut {
				t.Fatalf("digest %v/%s, direct %v/%s", gotOut.Var, gotOut.Value.String(), wantOut.Var, wantOut.Value.String())
			}
			if len(bound.Constraints) != len(direct.Constraints) || len(bound.Aux) != len(direct.Aux) {
				t.Fatalf("%d rows/%d aux, direct %d/%d", len(bound.Constraints), len(bound.Aux), len(direct.Constraints), len(direct.Aux))
			}
			for i := range direct.Aux {
				if !bound.Aux[i].Equal(&direct.Aux[i]) {
					t.Fatalf("aux %d differs", i)
				}
			}
			for i, d := range direct.Constraints {
				g := bound.Constraints[i]
				if !sameLC(g.A, d.A) || !sameLC(g.B, d.B) || !sameLC(g.C, d.C) {
					t.Fatalf("row %d differs:\n got  %v\n want %v", i, g, d)
				}
			}
			if row := bound.Unsatisfied(); row != -1 {
				t.Fatalf("unsatisfied at %d", row)
			}
		})
	}
}
