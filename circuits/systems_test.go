package circuits

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-project/cuzk/circuits/synthetic"
	"github.com/cuzk-project/cuzk/engine"
	"github.com/cuzk-project/cuzk/groth16"
	"github.com/cuzk-project/cuzk/memory"
	"github.com/cuzk-project/cuzk/r1cs"
	"github.com/cuzk-project/cuzk/r1cs/compiled"
)

// TestWitnessPathEqualsProver: for every kind of plan, the witness-only
// path (the plan's compiled system, the partition's witness, a, b and c
// evaluated from the matrices) gives the prover's assignment bit for bit:
// rows, inputs, aux and densities. The compiled system is built once per
// circuit id and then opened from the cache directory.
func TestWitnessPathEqualsProver(t *testing.T) {
	ctx := context.Background()
	syn := synthetic.Default(300)
	syn.Seed = 2
	cases := append([]namedRequest{{"synthetic", engine.Request{Kind: engine.KindPoRepSealCommit, VanillaProof: SyntheticDescriptor(syn, 2)}}},
		filecoinRequests(t)...)
	dir := t.TempDir()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			for round := range 2 { // compiled, then opened from the cache
				reg := New()
				reg.SetSystems(NewSystems(dir))
				plan, err := reg.Plan(ctx, &tc.req)
				if err != nil {
					t.Fatal(err)
				}
				if plan.System == nil {
					t.Fatal("plan offers no compiled system")
				}
				sys, err := plan.System(ctx)
				if err != nil {
					t.Fatal(err)
				}
				for k, part := range plan.Partitions {
					if d := witnessPathDiff(t, part, sys); d != "" {
						t.Fatalf("round %d partition %d: %s", round, k, d)
					}
				}
			}
		})
	}
}

func diffAssignments(got, want *groth16.Assignment) string {
	for _, v := range []struct {
		name      string
		got, want []fr.Element
	}{{"a", got.A, want.A}, {"b", got.B, want.B}, {"c", got.C, want.C}, {"input", got.Input, want.Input}, {"aux", got.Aux, want.Aux}} {
		if len(v.got) != len(v.want) {
			return fmt.Sprintf("%s: %d values, want %d", v.name, len(v.got), len(v.want))
		}
		for i := range v.got {
			if !v.got[i].Equal(&v.want[i]) {
				return fmt.Sprintf("%s[%d] differs", v.name, i)
			}
		}
	}
	for _, d := range []struct {
		name      string
		got, want *r1cs.Bitmap
	}{{"A-aux density", got.ADensityAux, want.ADensityAux}, {"B-input density", got.BDensityInput, want.BDensityInput}, {"B-aux density", got.BDensityAux, want.BDensityAux}} {
		if d.got.Len() != d.want.Len() {
			return fmt.Sprintf("%s over %d variables, want %d", d.name, d.got.Len(), d.want.Len())
		}
		for i := range d.got.Len() {
			if d.got.Get(i) != d.want.Get(i) {
				return fmt.Sprintf("%s: bit %d differs", d.name, i)
			}
		}
	}
	return ""
}

// TestBlankSystemsEqualReal: the compiled system Prepare builds from an
// id's blank partition is the one a real request's partition compiles to
// (same digest), so a preloaded system serves the real jobs.
func TestBlankSystemsEqualReal(t *testing.T) {
	ctx := context.Background()
	for _, tc := range filecoinRequests(t) {
		t.Run(tc.name, func(t *testing.T) {
			reg := New()
			reg.SetSystems(NewSystems(t.TempDir()))
			plan, err := reg.Plan(ctx, &tc.req)
			if err != nil {
				t.Fatal(err)
			}
			real, err := plan.System(ctx)
			if err != nil {
				t.Fatal(err)
			}
			blank := NewSystems(t.TempDir())
			if err := blank.Prepare(ctx, plan.CircuitID); err != nil {
				t.Fatal(err)
			}
			got, err := blank.provider(plan.CircuitID, func() (r1cs.Circuit, r1cs.Shape, error) {
				return nil, r1cs.Shape{}, errors.New("compiled again: Prepare kept no system open")
			})(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if got.Digest != real.Digest {
				t.Fatalf("%s: the blank partition compiles to %x, a real one to %x", plan.CircuitID, got.Digest[:8], real.Digest[:8])
			}
		})
	}
	if err := NewSystems(t.TempDir()).Prepare(ctx, "synthetic-c300"); err != nil {
		t.Fatalf("Prepare of a non-Filecoin id: %v", err)
	}
}

type namedRequest struct {
	name string
	req  engine.Request
}

// filecoinRequests are a generated 2 KiB request of each Filecoin kind
// (PoRep only without -short: its generation is slow).
func filecoinRequests(t *testing.T) []namedRequest {
	win, wdp, snap := generated2KPoStSnap(t)
	out := []namedRequest{
		{"winning", postRequest(engine.KindWinningPoSt, win.Request)},
		{"window", postRequest(engine.KindWindowPoStPartition, wdp.Request)},
		{"snap", snapRequest(snap)},
	}
	if !testing.Short() {
		out = append(out, namedRequest{"porep 2KiB", poRepRequest(generated2K(t))})
	}
	return out
}

// TestSystemsCountIn: a system's file mapping is counted in the budget
// once while its pages are in use (the resident size would otherwise exceed
// the budget by it); Drop (its parameters evicted) ends the count until the
// next plan asks for the system; a device that drops the pages (it holds
// the matrices) ends it for good; a budget without room leaves it
// uncounted and the system still served.
func TestSystemsCountIn(t *testing.T) {
	ctx := context.Background()
	syn := synthetic.Default(300)
	req := engine.Request{Kind: engine.KindPoRepSealCommit, VanillaProof: SyntheticDescriptor(syn, 2)}
	dir := t.TempDir()
	for _, tc := range []struct {
		name    string
		limit   uint64
		counted bool
	}{
		{"room", 1 << 30, true},
		{"full", 1, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			budget := memory.New(tc.limit)
			systems := NewSystems(dir)
			systems.CountIn(budget)
			reg := New()
			reg.SetSystems(systems)
			plan, err := reg.Plan(ctx, &req)
			if err != nil {
				t.Fatal(err)
			}
			system := func() *compiled.System {
				t.Helper()
				sys, err := plan.System(ctx)
				if err != nil {
					t.Fatal(err)
				}
				return sys
			}
			sys := system()
			if sys.MappedBytes() == 0 {
				t.Skip("the system is not mapped on this platform")
			}
			want := uint64(0)
			if tc.counted {
				want = sys.MappedBytes()
			}
			expect := func(when string, n uint64) {
				t.Helper()
				if budget.Used() != n || systems.CountedBytes() != n {
					t.Fatalf("%s: budget used %d, counted %d; want %d (mapping %d bytes)", when, budget.Used(), systems.CountedBytes(), n, sys.MappedBytes())
				}
			}
			expect("opened", want)
			system() // the same system: counted once
			expect("asked again", want)
			systems.Drop(plan.CircuitID)
			expect("dropped", 0)
			system()
			expect("asked after the drop", want)
			sys.DropPages() // a device holds the matrices
			expect("a device dropped the pages", 0)
			system()
			expect("asked after a device dropped them", 0)
			systems.Drop(plan.CircuitID)
			expect("dropped after a device", 0)
		})
	}
}

// A cache directory that cannot be written: the plan's system comes from
// memory, warned about once, counted in the budget for as long as the
// process keeps it (a drop or a device's copy does not free it), and the
// witness path proves the same rows as the prover's synthesis.
func TestSystemsUnwritable(t *testing.T) {
	ctx := context.Background()
	file := filepath.Join(t.TempDir(), "a-file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	syn := synthetic.Default(300)
	req := engine.Request{Kind: engine.KindPoRepSealCommit, VanillaProof: SyntheticDescriptor(syn, 2)}
	var logged bytes.Buffer
	systems := NewSystems(filepath.Join(file, "r1cs"))
	systems.Log = slog.New(slog.NewTextHandler(&logged, nil))
	budget := memory.New(1 << 30)
	systems.CountIn(budget)
	reg := New()
	reg.SetSystems(systems)
	plan, err := reg.Plan(ctx, &req)
	if err != nil {
		t.Fatal(err)
	}
	sys, err := plan.System(ctx)
	if err != nil {
		t.Fatalf("an unwritable cache failed the plan's system: %v", err)
	}
	if again, err := plan.System(ctx); err != nil || again != sys {
		t.Fatalf("asked again: %p, %v; want the same system %p", again, err, sys)
	}
	if n := strings.Count(logged.String(), "compiled system kept in memory"); n != 1 {
		t.Fatalf("%d warnings, want 1:\n%s", n, logged.String())
	}
	want := sys.Bytes()
	for _, step := range []func(){func() {}, func() { systems.Drop(plan.CircuitID) }, sys.DropPages} {
		step()
		if budget.Used() != want || systems.CountedBytes() != want {
			t.Fatalf("budget used %d, counted %d; want the system's %d bytes", budget.Used(), systems.CountedBytes(), want)
		}
	}
	if d := witnessPathDiff(t, plan.Partitions[0], sys); d != "" {
		t.Fatal(d)
	}
}

// witnessPathDiff is how part's witness-only path with sys differs from
// its prover synthesis ("" when equal).
func witnessPathDiff(t *testing.T, part engine.Partition, sys *compiled.System) string {
	t.Helper()
	ctx := context.Background()
	want, err := part.Synthesize(ctx)
	if err != nil {
		t.Fatal(err)
	}
	w, err := part.Witness(ctx)
	if err != nil {
		t.Fatal(err)
	}
	got, err := groth16.FromWitness(w, sys)
	if err != nil {
		t.Fatal(err)
	}
	if err := got.Evaluate(); err != nil {
		t.Fatal(err)
	}
	return diffAssignments(got, want)
}
