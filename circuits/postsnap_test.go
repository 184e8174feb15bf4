package circuits

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-project/cuzk/engine"
	"github.com/cuzk-project/cuzk/filecoin/gen"
	fpost "github.com/cuzk-project/cuzk/filecoin/post"
	fupdate "github.com/cuzk-project/cuzk/filecoin/update"
)

func postRequest(kind engine.ProofKind, r gen.PoStRequest) engine.Request {
	return engine.Request{
		Kind: kind, SectorSize: r.SectorSize, RegisteredProof: r.RegisteredProof, VanillaProofs: r.VanillaProofs,
		MinerID: r.MinerID, Randomness: r.Randomness, PartitionIndex: r.PartitionIndex,
	}
}

func snapRequest(s *gen.Snap) engine.Request {
	return engine.Request{
		Kind: engine.KindSnapDealsUpdate, SectorSize: s.Info.SectorSize, RegisteredProof: uint64(s.Info.Proof),
		VanillaProofs: s.VanillaProofs, SectorNumber: s.Sector, MinerID: s.Miner,
		CommROld: s.CommROld[:], CommDNew: s.CommDNew[:], CommRNew: s.CommRNew[:],
	}
}

// checkPlanSatisfied synthesizes every unit of plan and checks that its
// rows hold and that it allocates exactly the inputs the plan derived.
func checkPlanSatisfied(t *testing.T, plan *engine.Plan) {
	t.Helper()
	for k, part := range plan.Partitions {
		a, err := part.Synthesize(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		for i := range a.A {
			var ab fr.Element
			if ab.Mul(&a.A[i], &a.B[i]); !ab.Equal(&a.C[i]) {
				t.Fatalf("partition %d: row %d of %d unsatisfied", k, i, len(a.A))
			}
		}
		in := plan.PublicInputs[k]
		if len(a.Input) != len(in)+1 {
			t.Fatalf("partition %d: %d inputs synthesized, plan has %d (+ ONE)", k, len(a.Input), len(in))
		}
		for i := range in {
			if !a.Input[i+1].Equal(&in[i]) {
				t.Fatalf("partition %d input %d differs", k, i+1)
			}
		}
	}
}

// generated2KPoStSnap generates a 2 KiB WinningPoSt, a WindowPoSt partition
// (V1_1, partition 1) and a SnapDeals sector (miner 1000).
func generated2KPoStSnap(t *testing.T) (*gen.WinningPoSt, *gen.WindowPoSt, *gen.Snap) {
	t.Helper()
	ctx := context.Background()
	win, err := gen.GenerateWinningPoSt(ctx, gen.WinningOptions{Proof: fpost.StackedDrgWinning2KiBV1, Seed: 3, Miner: 1000})
	if err != nil {
		t.Fatal(err)
	}
	wdp, err := gen.GenerateWindowPoSt(ctx, gen.WindowOptions{Proof: fpost.StackedDrgWindow2KiBV1_1, Seed: 4, Miner: 1000, Partition: 1})
	if err != nil {
		t.Fatal(err)
	}
	snap, err := gen.GenerateSnap(ctx, gen.SnapOptions{Proof: fupdate.StackedDrg2KiBV1, Seed: 5, Miner: 1000, Sector: 9})
	if err != nil {
		t.Fatal(err)
	}
	return win, wdp, snap
}

// TestPlanPoStAndSnap: generated 2 KiB WinningPoSt, WindowPoSt (second
// partition of a deadline) and SnapDeals requests, as Curio's client sends
// them, plan units whose circuits are satisfied with the derived inputs.
func TestPlanPoStAndSnap(t *testing.T) {
	ctx := context.Background()
	win, wdp, snap := generated2KPoStSnap(t)
	wdpV1, err := gen.GenerateWindowPoSt(ctx, gen.WindowOptions{Proof: fpost.StackedDrgWindow2KiBV1, Seed: 6, Miner: 1000, Partition: 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		req   engine.Request
		id    string
		parts int
	}{
		{"winning", postRequest(engine.KindWinningPoSt, win.Request), "winning-2k", 1},
		{"window V1_1 partition 1", postRequest(engine.KindWindowPoStPartition, wdp.Request), "wpost-2k", 1},
		{"window V1 partition 1", postRequest(engine.KindWindowPoStPartition, wdpV1.Request), "wpost-2k", 1},
		{"snap", snapRequest(snap), "snap-2k", 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			plan, err := New().Plan(ctx, &tc.req)
			if err != nil {
				t.Fatal(err)
			}
			if plan.CircuitID != tc.id || len(plan.Partitions) != tc.parts {
				t.Fatalf("plan %q with %d partitions", plan.CircuitID, len(plan.Partitions))
			}
			checkPlanSatisfied(t, plan)
		})
	}

	// Bad requests: InvalidArgument naming what is wrong.
	bad := []struct {
		name string
		req  engine.Request
		want string
	}{
		{"winning as window", postRequest(engine.KindWindowPoStPartition, win.Request), "registered_proof"},
		{"wrong partition index (V1)", func() engine.Request {
			r := postRequest(engine.KindWindowPoStPartition, wdpV1.Request)
			r.PartitionIndex = 0
			return r
		}(), "challenge"},
		{"flipped randomness", func() engine.Request {
			r := postRequest(engine.KindWinningPoSt, win.Request)
			r.Randomness = append([]byte(nil), r.Randomness...)
			r.Randomness[0] ^= 1
			return r
		}(), ""},
		{"truncated vanilla", func() engine.Request {
			r := postRequest(engine.KindWinningPoSt, win.Request)
			r.VanillaProofs = [][]byte{r.VanillaProofs[0][:100]}
			return r
		}(), "vanilla"},
		{"snap comm_r_new flipped", func() engine.Request {
			r := snapRequest(snap)
			r.CommRNew = append([]byte(nil), r.CommRNew...)
			r.CommRNew[0] ^= 1
			return r
		}(), ""},
		{"snap missing partition", func() engine.Request {
			r := snapRequest(snap)
			r.VanillaProofs = nil
			return r
		}(), "empty vanilla"},
		{"unknown kind", engine.Request{Kind: 9, VanillaProofs: [][]byte{{1}}}, "proof kind"},
	}
	for _, tc := range bad {
		t.Run(tc.name, func(t *testing.T) {
			_, err := New().Plan(ctx, &tc.req)
			if !errors.Is(err, engine.ErrInvalidRequest) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want ErrInvalidRequest mentioning %q", err, tc.want)
			}
			t.Log(err)
		})
	}
}

// TestPlanPoStPathLeftToSynthesis: a WindowPoSt request one of whose
// openings does not hash to its comm_r_last plans (the planner leaves the
// given openings' hashes to the circuit, which computes them anyway), and
// its unit's synthesis, witness-only and whole, fails as an invalid
// request naming the sector, the challenge and the path.
func TestPlanPoStPathLeftToSynthesis(t *testing.T) {
	ctx := context.Background()
	_, wdp, _ := generated2KPoStSnap(t)
	req := postRequest(engine.KindWindowPoStPartition, wdp.Request)
	s, err := fpost.DecodeSectorProof(req.VanillaProofs[0])
	if err != nil {
		t.Fatal(err)
	}
	s.Inclusion[6].Base[1].Siblings[3][0] ^= 1
	b, err := s.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	req.VanillaProofs = append([][]byte{b}, req.VanillaProofs[1:]...)
	plan, err := New().Plan(ctx, &req)
	if err != nil {
		t.Fatalf("plan: %v, want it planned (the circuit hashes the path)", err)
	}
	part := plan.Partitions[0]
	_, werr := part.Witness(ctx)
	_, serr := part.Synthesize(ctx)
	for name, err := range map[string]error{"witness": werr, "synthesis": serr} {
		if !errors.Is(err, engine.ErrInvalidRequest) || !errors.Is(err, fpost.ErrBadVanillaProof) ||
			!strings.Contains(err.Error(), "challenge 6: inclusion_proofs[6]: the path hashes to") {
			t.Errorf("%s: %v, want an invalid request naming challenge 6's path", name, err)
		}
	}
}
