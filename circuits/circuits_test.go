package circuits

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cuzk-project/cuzk/circuits/synthetic"
	"github.com/cuzk-project/cuzk/device/cpu"
	"github.com/cuzk-project/cuzk/engine"
	"github.com/cuzk-project/cuzk/groth16"
	"github.com/cuzk-project/cuzk/srs"
	"github.com/cuzk-project/cuzk/timeline"
)

func TestPlanRequests(t *testing.T) {
	tests := []struct {
		name      string
		req       engine.Request
		wantParts int
		wantErr   string // "" for success
	}{
		{"minimal", engine.Request{Kind: engine.KindPoRepSealCommit, VanillaProof: []byte(`{"synthetic":{"constraints":64}}`)}, 1, ""},
		{"ten partitions", engine.Request{Kind: engine.KindPoRepSealCommit, VanillaProof: []byte(` {"synthetic":{"constraints":64,"partitions":10,"seed":7}}`)}, 10, ""},
		{"any kind", engine.Request{Kind: engine.KindWinningPoSt, VanillaProof: []byte(`{"synthetic":{"constraints":64,"inputs":2,"bool_fraction":0.5,"a_density":1,"b_density":0.1}}`)}, 1, ""},
		{"unknown field", engine.Request{Kind: engine.KindPoRepSealCommit, VanillaProof: []byte(`{"synthetic":{"constraints":64,"rows":3}}`)}, 0, "unknown field"},
		{"too many partitions", engine.Request{Kind: engine.KindPoRepSealCommit, VanillaProof: []byte(`{"synthetic":{"constraints":64,"partitions":100000}}`)}, 0, "partitions"},
		{"negative partitions", engine.Request{Kind: engine.KindPoRepSealCommit, VanillaProof: []byte(`{"synthetic":{"constraints":64,"partitions":-1}}`)}, 0, "partitions"},
		{"too many constraints", engine.Request{Kind: engine.KindPoRepSealCommit, VanillaProof: []byte(`{"synthetic":{"constraints":33554432}}`)}, 0, "exceeds"},
		// 2^24 inputs made Plan compute 512 MiB of public inputs (0.5 s)
		// inside Submit, outside the memory budget.
		{"too many inputs", engine.Request{Kind: engine.KindPoRepSealCommit, VanillaProof: []byte(`{"synthetic":{"constraints":16777216,"inputs":16777215}}`)}, 0, "inputs"},
		{"too few constraints", engine.Request{Kind: engine.KindPoRepSealCommit, VanillaProof: []byte(`{"synthetic":{"constraints":3}}`)}, 0, "Constraints"},
		{"bad fraction", engine.Request{Kind: engine.KindPoRepSealCommit, VanillaProof: []byte(`{"synthetic":{"constraints":64,"b_density":2}}`)}, 0, "BDensity"},
		{"trailing data", engine.Request{Kind: engine.KindPoRepSealCommit, VanillaProof: []byte(`{"synthetic":{"constraints":64}} {}`)}, 0, "trailing"},
		{"null", engine.Request{Kind: engine.KindPoRepSealCommit, VanillaProof: []byte(`{"synthetic":null}`)}, 0, "null"},
		{"truncated", engine.Request{Kind: engine.KindPoRepSealCommit, VanillaProof: []byte(`{"synthetic":{"constraints":6`)}, 0, "descriptor"},
		{"porep, bad envelope", engine.Request{Kind: engine.KindPoRepSealCommit, VanillaProof: []byte(`{"SectorNum":1,"Phase1Out":"..."}`)}, 0, "SectorSize"},
		{"window post, winning proof id", engine.Request{Kind: engine.KindWindowPoStPartition, VanillaProofs: [][]byte{[]byte("x")}}, 0, "registered_proof"},
		{"snap, no partition proofs", engine.Request{Kind: engine.KindSnapDealsUpdate, VanillaProof: []byte{0xff, 0x00}}, 0, "vanilla_proofs"},
		{"empty", engine.Request{Kind: engine.KindPoRepSealCommit}, 0, "empty vanilla proof"},
	}
	r := New()
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, err := r.Plan(context.Background(), &tc.req)
			if tc.wantErr != "" {
				if !errors.Is(err, engine.ErrInvalidRequest) || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want ErrInvalidRequest mentioning %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(p.Partitions) != tc.wantParts || len(p.PublicInputs) != tc.wantParts || p.Verify == nil {
				t.Fatalf("plan: %d partitions, %d input sets", len(p.Partitions), len(p.PublicInputs))
			}
			if _, err := ParseSyntheticID(p.CircuitID); err != nil {
				t.Fatalf("circuit id %q does not parse: %v", p.CircuitID, err)
			}
			for _, part := range p.Partitions {
				if part.ReserveABC == 0 || part.ReserveABC >= part.Reserve {
					t.Fatalf("reservation %d / abc %d", part.Reserve, part.ReserveABC)
				}
			}
		})
	}
}

func TestSyntheticIDRoundTrip(t *testing.T) {
	for _, cfg := range []synthetic.Config{
		synthetic.Default(1 << 14),
		{Constraints: 100, Inputs: 0, BoolFraction: 0, ADensity: 1, BDensity: 0.125, Seed: 1<<64 - 1},
		{Constraints: 100, Inputs: 3, BoolFraction: 0.1 + 0.2, ADensity: 1e-9, BDensity: 0.3333333333333333, Seed: 5},
	} {
		id := SyntheticID(cfg)
		got, err := ParseSyntheticID(id)
		if err != nil || got != cfg {
			t.Fatalf("%s → %+v, %v; want %+v", id, got, err, cfg)
		}
	}
	for _, id := range []string{
		"porep-32g", "synthetic-", "synthetic-c0-i0-bf0-ad0-bd0-s0", "synthetic-c64-i7-bf0.75-ad0.997-bd0.25",
		"synthetic-c64-i7-bf0.75-ad0.997-bd0.25-s1-x", "synthetic-c064-i7-bf0.75-ad0.997-bd0.25-s1",
		"synthetic-c64-i7-bf2-ad0.997-bd0.25-s1", "synthetic-i7-c64-bf0.75-ad0.997-bd0.25-s1",
	} {
		if _, err := ParseSyntheticID(id); !errors.Is(err, engine.ErrUnknownCircuit) {
			t.Fatalf("%q: err = %v, want ErrUnknownCircuit", id, err)
		}
	}
}

// TestProveSyntheticOnCPU proves a 3-partition synthetic job end to end on
// the CPU device with dev parameters cached on disk, through the prover's
// synthesis and through the witness-only one, and checks that the verifier
// the plan carries rejects a tampered proof.
func TestProveSyntheticOnCPU(t *testing.T) {
	for _, witness := range []bool{false, true} {
		t.Run(fmt.Sprint("witness=", witness), func(t *testing.T) { proveSyntheticOnCPU(t, witness) })
	}
}

func proveSyntheticOnCPU(t *testing.T, witness bool) {
	dir := t.TempDir()
	cfg := synthetic.Default(256)
	cfg.Seed = 3
	params := NewDevParams(dir)
	reg := New()
	if witness {
		reg.SetSystems(NewSystems(filepath.Join(dir, "r1cs")))
	}
	e, err := engine.New(engine.Config{
		Devices:          []groth16.Device{cpu.New(0)},
		Planner:          reg,
		Params:           params,
		Recorder:         timeline.NewRecorder(1024),
		WitnessSynthesis: witness,
	})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	req := engine.Request{Kind: engine.KindPoRepSealCommit, VanillaProof: SyntheticDescriptor(cfg, 3)}
	r, err := e.Prove(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != engine.StatusCompleted || len(r.Proof) != 3*groth16.ProofSize {
		t.Fatalf("%v %q, %d bytes", r.Status, r.Error, len(r.Proof))
	}
	id := SyntheticID(cfg)
	if _, err := os.Stat(filepath.Join(dir, id+".params")); err != nil {
		t.Fatalf("params not cached: %v", err)
	}
	if systems, _ := filepath.Glob(filepath.Join(dir, "r1cs", id+"-*.r1cs")); witness != (len(systems) == 1) {
		t.Fatalf("witness synthesis %v, compiled systems cached: %q", witness, systems)
	}

	// The cached file loads and gives the same verifying key.
	p2, _, err := NewDevParams(dir).Acquire(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	p1, _, _ := params.Acquire(context.Background(), id)
	if !p1.VK.DeltaG1.Equal(&p2.VK.DeltaG1) || len(p1.H) != len(p2.H) {
		t.Fatal("cached params differ from the generated ones")
	}

	plan, err := reg.Plan(context.Background(), &req)
	if err != nil {
		t.Fatal(err)
	}
	proofs, err := groth16.DecodeProofs(r.Proof)
	if err != nil {
		t.Fatal(err)
	}
	if err := plan.Verify(&p1.VK, proofs, plan.PublicInputs); err != nil {
		t.Fatalf("returned proof does not verify: %v", err)
	}
	proofs[1], proofs[2] = proofs[2], proofs[1]
	proofs[1].A = proofs[0].A
	if err := plan.Verify(&p1.VK, proofs, plan.PublicInputs); err == nil {
		t.Fatal("a tampered proof verified")
	}
}

func TestDevParamsRejectsOtherFamilies(t *testing.T) {
	if _, _, err := NewDevParams("").Acquire(context.Background(), "porep-32g"); !errors.Is(err, engine.ErrUnknownCircuit) {
		t.Fatalf("err = %v", err)
	}
}

// TestDevParamsRefusesOversizeCircuits: an id is outside input (a gRPC
// PreloadSRS names one), so DevParams must not start a development setup
// larger than a synthetic request may ask for (it would run for hours).
func TestDevParamsRefusesOversizeCircuits(t *testing.T) {
	many := synthetic.Default(1 << 14)
	many.Inputs = MaxSyntheticInputs + 1
	for _, cfg := range []synthetic.Config{synthetic.Default(MaxSyntheticConstraints + 1), many} {
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		_, _, err := NewDevParams("").Acquire(ctx, SyntheticID(cfg))
		cancel()
		if !errors.Is(err, engine.ErrUnknownCircuit) || !strings.Contains(err.Error(), "exceed") {
			t.Fatalf("%s: err = %v, want ErrUnknownCircuit naming the limit", SyntheticID(cfg), err)
		}
	}
}

// FuzzPlan feeds arbitrary vanilla proofs to the registry: it never
// panics, and every rejection wraps engine.ErrInvalidRequest.
func FuzzPlan(f *testing.F) {
	f.Add([]byte(`{"synthetic":{"constraints":64,"partitions":10,"seed":7}}`))
	f.Add([]byte(`{"synthetic":{"constraints":64,"inputs":-1}}`))
	f.Add([]byte(`{"synthetic":{"constraints":1e30}}`))
	f.Add([]byte(`{"synthetic":{}}`))
	f.Add([]byte(`{"synthetic"`))
	f.Add([]byte{})
	r := New()
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := r.Plan(context.Background(), &engine.Request{Kind: engine.KindPoRepSealCommit, VanillaProof: b})
		if err != nil {
			if !errors.Is(err, engine.ErrInvalidRequest) {
				t.Fatalf("error does not wrap ErrInvalidRequest: %v", err)
			}
			return
		}
		if len(p.Partitions) < 1 || len(p.Partitions) > MaxPartitions {
			t.Fatalf("%d partitions", len(p.Partitions))
		}
		if _, err := ParseSyntheticID(p.CircuitID); err != nil {
			t.Fatalf("plan's circuit id %q: %v", p.CircuitID, err)
		}
	})
}

// TestDevParamsBytesBoundsLoad: the estimate the daemon reserves before a
// dev load is at least what the loaded parameters take, and not wildly
// more (the cache gives the excess back, but it is held while loading).
// Load keeps nothing: a second Load of a cached id reads the file again.
func TestDevParamsBytesBoundsLoad(t *testing.T) {
	dir := t.TempDir()
	d := NewDevParams(dir)
	for _, cfg := range []synthetic.Config{synthetic.Default(256), synthetic.Default(1000)} {
		id := SyntheticID(cfg)
		est, err := DevParamsBytes(id)
		if err != nil {
			t.Fatal(err)
		}
		p, err := d.Load(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		got := srs.ParamsBytes(p)
		if est < got || est > 2*got {
			t.Fatalf("%s: estimate %d bytes, loaded %d", id, est, got)
		}
		if _, err := os.Stat(d.Path(id)); err != nil {
			t.Fatalf("%s: not cached on disk: %v", id, err)
		}
		if n := d.loaded.len(); n != 0 {
			t.Fatalf("Load kept %d entries in memory", n)
		}
	}
	if _, err := DevParamsBytes("porep-32g"); err == nil {
		t.Fatal("DevParamsBytes accepted a non-synthetic id")
	}
}
