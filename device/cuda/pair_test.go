package cuda

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-project/cuzk/circuits/synthetic"
	"github.com/cuzk-project/cuzk/device/cpu"
	"github.com/cuzk-project/cuzk/groth16"
	"github.com/cuzk-project/cuzk/r1cs"
)

// variant is a second witness for a's circuit shape: random a and b with
// c = a∘b (the device forms c so), random inputs and aux, a quarter of
// the aux zero or one (the split's other paths); the densities are a's.
func variant(a *groth16.Assignment, seed uint64) *groth16.Assignment {
	r := rand.New(rand.NewPCG(seed, 1))
	v := *a
	v.A, v.B, v.C = randFr(r, len(a.A)), randFr(r, len(a.B)), make([]fr.Element, len(a.C))
	for i := range v.C {
		v.C[i].Mul(&v.A[i], &v.B[i])
	}
	v.Input = append(a.Input[:1:1], randFr(r, len(a.Input)-1)...)
	v.Aux = randFr(r, len(a.Aux))
	for i := range v.Aux {
		switch r.IntN(8) {
		case 0:
			v.Aux[i].SetZero()
		case 1:
			v.Aux[i].SetOne()
		}
	}
	return &v
}

// clone is a with its own a, b, c (Run drops them).
func clone(a *groth16.Assignment) *groth16.Assignment {
	v := *a
	v.A, v.B, v.C = append([]fr.Element(nil), a.A...), append([]fr.Element(nil), a.B...), append([]fr.Element(nil), a.C...)
	return &v
}

func sumsEqual(t *testing.T, what string, got, want *groth16.Sums) {
	t.Helper()
	for _, x := range []struct {
		name string
		g, c *bls12381.G1Jac
	}{{"H", &got.H, &want.H}, {"L", &got.L, &want.L}, {"A", &got.A, &want.A}, {"B1", &got.B1, &want.B1}} {
		if !x.g.Equal(x.c) {
			t.Errorf("%s: %s differs from the CPU device", what, x.name)
		}
	}
	if !got.B2.Equal(&want.B2) {
		t.Errorf("%s: B2 differs from the CPU device", what)
	}
}

// TestRunPairSums: under every limit that streams, RunPair runs two
// partitions of one parameter set (different witnesses) as one run whose
// sums equal the CPU device's of each, in the library's device memory
// under the limit; where nothing streams, or the two are of different
// sets, it runs them one after the other, with the same sums.
func TestRunPairSums(t *testing.T) {
	if !Available() {
		t.Skip(skipReason())
	}
	if lib.runPair == nil {
		t.Fatalf("the library %s has no cuzk_run_pair (built before it?)", lib.path)
	}
	ctx := context.Background()
	cd := cpu.New(0)
	cfgs := []synthetic.Config{
		{Constraints: 5000, Inputs: 20, BoolFraction: 0.75, ADensity: 0.997, BDensity: 0.25, Seed: 16},
		{Constraints: 3000, Inputs: 5, BoolFraction: 0.5, ADensity: 1, BDensity: 0.5, Seed: 17},
	}
	for _, cfg := range cfgs {
		c, err := synthetic.New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		p, err := groth16.Setup(c, []byte(fmt.Sprint("paired runs ", cfg.Seed)))
		if err != nil {
			t.Fatal(err)
		}
		a0, err := groth16.Synthesize(c, r1cs.Shape{})
		if err != nil {
			t.Fatal(err)
		}
		as := [2]*groth16.Assignment{a0, variant(a0, cfg.Seed)}
		var want [2]*groth16.Sums
		for i, a := range as {
			if want[i], err = groth16.Compute(ctx, cd, clone(a), p); err != nil {
				t.Fatal(err)
			}
		}
		if want[0].H.Equal(&want[1].H) || want[0].L.Equal(&want[1].L) {
			t.Fatal("the two witnesses give the same sums: the test could not tell them apart")
		}
		for _, lc := range limitCases {
			for _, chunkLg := range []uint32{8, 11} {
				t.Run(fmt.Sprintf("n=%d/%s/chunk=2^%d", cfg.Constraints, lc.name, chunkLg), func(t *testing.T) {
					held0 := MemHeld(0)
					d := limited(t, chunkLg, lc.pick)
					var ws [2]groth16.Prepared
					for i, a := range as {
						if ws[i], err = d.Prepare(ctx, clone(a), p); err != nil {
							t.Fatal(err)
						}
					}
					if got := d.Pairs(p); got != lc.streams {
						t.Errorf("Pairs = %v, want %v (the plan streams: %v)", got, lc.streams, lc.streams)
					}
					r0, r1, err := d.RunPair(ctx, ws[0], ws[1])
					if err != nil {
						t.Fatal(err)
					}
					p0, p1 := r0.(*Partial), r1.(*Partial)
					paired := p0.end.Equal(p1.start) && p0.Timing == p1.Timing && p0.Stream == p1.Stream
					if paired != lc.streams {
						t.Errorf("paired = %v, want %v", paired, lc.streams)
					}
					plan, _ := d.Plan(p)
					if held := MemHeld(0) - held0; held > plan.Limit && plan.Limit > 0 {
						t.Errorf("device memory held %d over the limit %d", held, plan.Limit)
					}
					for i, r := range []groth16.Partial{r0, r1} {
						got, err := d.Finish(ctx, r)
						if err != nil {
							t.Fatal(err)
						}
						sumsEqual(t, fmt.Sprintf("partition %d", i), got, want[i])
					}
				})
			}
		}
	}
}

// TestRunPairOtherSets: two partitions of different parameter sets run
// one after the other through RunPair, each with its own sums.
func TestRunPairOtherSets(t *testing.T) {
	if !Available() {
		t.Skip(skipReason())
	}
	ctx := context.Background()
	cd := cpu.New(0)
	// Each set's minimum and a KiB (less than a chunk: nothing more is
	// resident), and for the second at least the first's limit and room
	// for its own resident allocations (a byte a query): it plans beside
	// the first, whose scratch it shares. (At the bare minimum and at a
	// third above it the second set did not fit.)
	var first uint64
	d := limited(t, 8, func(min, all uint64) uint64 {
		l := min + 1024
		if first == 0 {
			first = l
		} else {
			l = max(l, first+8)
		}
		return l
	})
	var ws [2]groth16.Prepared
	var want [2]*groth16.Sums
	for i := range 2 {
		c, err := synthetic.New(synthetic.Config{Constraints: 2000, Inputs: 3, BoolFraction: 0.5, ADensity: 1,
			BDensity: 0.5, Seed: uint64(30 + i)})
		if err != nil {
			t.Fatal(err)
		}
		p, err := groth16.Setup(c, []byte(fmt.Sprint("other sets ", i)))
		if err != nil {
			t.Fatal(err)
		}
		a, err := groth16.Synthesize(c, r1cs.Shape{})
		if err != nil {
			t.Fatal(err)
		}
		if want[i], err = groth16.Compute(ctx, cd, clone(a), p); err != nil {
			t.Fatal(err)
		}
		if ws[i], err = d.Prepare(ctx, a, p); err != nil {
			t.Fatal(err)
		}
	}
	r0, r1, err := d.RunPair(ctx, ws[0], ws[1])
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range []groth16.Partial{r0, r1} {
		got, err := d.Finish(ctx, r)
		if err != nil {
			t.Fatal(err)
		}
		sumsEqual(t, fmt.Sprintf("set %d", i), got, want[i])
	}
}
