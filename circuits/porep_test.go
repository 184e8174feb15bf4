package circuits

import (
	"context"
	"encoding/base64"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-project/cuzk/circuits/porep"
	"github.com/cuzk-project/cuzk/engine"
	"github.com/cuzk-project/cuzk/filecoin"
	"github.com/cuzk-project/cuzk/filecoin/c1"
	"github.com/cuzk-project/cuzk/filecoin/gen"
)

var (
	sector2KOnce sync.Once
	sector2K     *gen.PoRep
	sector2KErr  error
)

// generated2K is one generated 2 KiB interactive sector (miner 1000,
// sector 7), shared by the tests of this package.
func generated2K(t testing.TB) *gen.PoRep {
	t.Helper()
	sector2KOnce.Do(func() {
		sector2K, sector2KErr = gen.GeneratePoRep(context.Background(),
			gen.PoRepOptions{Proof: filecoin.StackedDrg2KiBV1_1, Seed: 5, Miner: 1000, Sector: 7}, nil)
	})
	if sector2KErr != nil {
		t.Fatal(sector2KErr)
	}
	return sector2K
}

// poRepRequest is the request Curio's client sends for a sector.
func poRepRequest(s *gen.PoRep) engine.Request {
	info := s.Output.Info()
	return engine.Request{
		Kind:            engine.KindPoRepSealCommit,
		SectorSize:      info.SectorSize,
		RegisteredProof: uint64(info.Proof),
		SectorNumber:    s.Info.Number,
		MinerID:         s.Info.Miner,
		VanillaProof:    s.Envelope.Encode(),
	}
}

// TestPlanPoRep: a generated request plans one unit per partition whose
// synthesized circuit is satisfied and allocates exactly the public inputs
// the plan derived from the seal's public data.
func TestPlanPoRep(t *testing.T) {
	s := generated2K(t)
	req := poRepRequest(s)
	plan, err := New().Plan(context.Background(), &req)
	if err != nil {
		t.Fatal(err)
	}
	if plan.CircuitID != "porep-2k" || len(plan.Partitions) != 1 || len(plan.PublicInputs) != 1 {
		t.Fatalf("plan %q: %d partitions, %d input sets", plan.CircuitID, len(plan.Partitions), len(plan.PublicInputs))
	}
	a, err := plan.Partitions[0].Synthesize(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for i := range a.A {
		var ab fr.Element
		if ab.Mul(&a.A[i], &a.B[i]); !ab.Equal(&a.C[i]) {
			t.Fatalf("row %d of %d unsatisfied", i, len(a.A))
		}
	}
	in := plan.PublicInputs[0]
	if len(a.Input) != len(in)+1 {
		t.Fatalf("%d inputs synthesized, plan has %d (+ ONE)", len(a.Input), len(in))
	}
	for i := range in {
		if !a.Input[i+1].Equal(&in[i]) {
			t.Fatalf("input %d: synthesized %s, derived %s", i+1, a.Input[i+1].String(), in[i].String())
		}
	}
	// The same inputs from the public data alone (what `cuzk verify` uses).
	seal, err := porep.SealOf(&s.Info)
	if err != nil {
		t.Fatal(err)
	}
	pub, err := seal.Inputs()
	if err != nil {
		t.Fatal(err)
	}
	for i := range in {
		if !pub[0][i].Equal(&in[i]) {
			t.Fatalf("input %d differs between the request and SealVerifyInfo", i+1)
		}
	}
}

// TestPlanPoRepRejects: every bad request is InvalidArgument naming what
// is wrong, before any synthesis.
func TestPlanPoRepRejects(t *testing.T) {
	s := generated2K(t)
	good := poRepRequest(s)
	withOutput := func(edit func(o *c1.Output)) []byte {
		o, err := c1.Decode(s.Envelope.Phase1Out)
		if err != nil {
			t.Fatal(err)
		}
		edit(o)
		b, err := o.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		env := *s.Envelope
		env.Phase1Out = b
		return env.Encode()
	}
	tests := []struct {
		name string
		edit func(r *engine.Request)
		want string
	}{
		{"truncated envelope", func(r *engine.Request) { r.VanillaProof = r.VanillaProof[:len(r.VanillaProof)/2] }, ""},
		{"garbage", func(r *engine.Request) { r.VanillaProof = []byte{0xff, 0x00, 0x17} }, ""},
		{"bad base64", func(r *engine.Request) {
			r.VanillaProof = []byte(`{"SectorNum":7,"Phase1Out":"!!!","SectorSize":2048}`)
		}, "Phase1Out"},
		{"C1 not JSON", func(r *engine.Request) {
			r.VanillaProof = []byte(`{"SectorNum":7,"Phase1Out":"` + base64.StdEncoding.EncodeToString([]byte("nope")) + `","SectorSize":2048}`)
		}, ""},
		{"wrong sector size", func(r *engine.Request) { r.SectorSize = 8 << 20 }, "sector_size"},
		{"wrong registered proof", func(r *engine.Request) { r.RegisteredProof = uint64(filecoin.StackedDrg2KiBV1) }, "registered_proof"},
		{"wrong sector number", func(r *engine.Request) { r.SectorNumber = 8 }, "sector"},
		{"another miner", func(r *engine.Request) { r.MinerID = 1001 }, "replica_id"},
		{"flipped label", func(r *engine.Request) {
			r.VanillaProof = withOutput(func(o *c1.Output) { o.Partitions[0][1].ReplicaColumnProofs.CX.Rows[0][3] ^= 1 })
		}, "partition 0 challenge 1"},
		{"wrong sibling", func(r *engine.Request) {
			r.VanillaProof = withOutput(func(o *c1.Output) { o.Partitions[0][0].CommDProofs.Base[2].Siblings[0][5] ^= 1 })
		}, "comm_d"},
		{"seed not the challenges' seed", func(r *engine.Request) {
			r.VanillaProof = withOutput(func(o *c1.Output) { o.Seed[0] ^= 1 })
		}, "challenge"},
		{"tampered comm_r", func(r *engine.Request) {
			r.VanillaProof = withOutput(func(o *c1.Output) { o.CommR[0] ^= 1 })
		}, "comm_r"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			req := good
			tc.edit(&req)
			_, err := New().Plan(context.Background(), &req)
			if !errors.Is(err, engine.ErrInvalidRequest) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want ErrInvalidRequest mentioning %q", err, tc.want)
			}
			t.Log(err)
		})
	}
}

// TestPlanPoRepRefusesNonInteractive: an NI C2 is an aggregate; without an
// aggregation SRS the refusal says so (FailedPrecondition).
func TestPlanPoRepRefusesNonInteractive(t *testing.T) {
	s, err := gen.GeneratePoRep(context.Background(), gen.PoRepOptions{Proof: filecoin.StackedDrg2KiBV1_2_Feat_NonInteractivePoRep, Seed: 1, Miner: 1000, Sector: 1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	req := poRepRequest(s)
	if _, err := New().Plan(context.Background(), &req); !errors.Is(err, engine.ErrParamsMissing) || !strings.Contains(err.Error(), "aggregat") {
		t.Fatalf("err = %v", err)
	}
}
