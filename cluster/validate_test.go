package cluster

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/cuzk-project/cuzk/circuits"
	"github.com/cuzk-project/cuzk/cluster/pgtest"
	"github.com/cuzk-project/cuzk/engine"
	"github.com/cuzk-project/cuzk/filecoin/gen"
	fpost "github.com/cuzk-project/cuzk/filecoin/post"
)

// panicPlanner is a planner with a bug.
type panicPlanner struct{}

func (panicPlanner) Plan(context.Context, *engine.Request) (*engine.Plan, error) { panic("bug") }

// TestSubmitPlans: with the circuit registry as Options.Planner, a
// frontend refuses a malformed request at Submit with ErrInvalidRequest,
// as a single daemon does, and queues nothing for it; a well-formed one
// is queued. A planner that panics is an error, not a dead daemon.
func TestSubmitPlans(t *testing.T) {
	pg := pgtest.Start(t)
	url := pg.NewDB(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	front := startCluster(t, url, nil, func(o *Options) { o.Planner = circuits.New() })

	wdp, err := gen.GenerateWindowPoSt(ctx, gen.WindowOptions{Proof: fpost.StackedDrgWindow2KiBV1_1, Seed: 4, Miner: 1000, Partition: 1})
	if err != nil {
		t.Fatal(err)
	}
	good := engine.Request{
		RequestID: "good", Kind: engine.KindWindowPoStPartition, SectorSize: wdp.Request.SectorSize,
		RegisteredProof: wdp.Request.RegisteredProof, VanillaProofs: wdp.Request.VanillaProofs,
		MinerID: wdp.Request.MinerID, Randomness: wdp.Request.Randomness, PartitionIndex: wdp.Request.PartitionIndex,
	}
	tampered := good
	tampered.RequestID = "tampered"
	tampered.Randomness = append([]byte(nil), good.Randomness...)
	tampered.Randomness[0] ^= 1 // the openings no longer answer the challenges
	for _, tc := range []struct {
		name string
		req  engine.Request
	}{
		{"junk vanilla proof", postReq("junk", 0, "not a vanilla proof")},
		{"registered proof of another kind", func() engine.Request {
			r := good
			r.RequestID, r.RegisteredProof = "kind", uint64(fpost.StackedDrgWinning2KiBV1)
			return r
		}()},
		{"randomness the proofs do not answer", tampered},
		{"unknown synthetic circuit", engine.Request{RequestID: "syn", Kind: engine.KindPoRepSealCommit,
			VanillaProof: []byte(`{"synthetic":{"constraints":3}}`)}},
	} {
		if _, _, err := front.Submit(ctx, tc.req); !errors.Is(err, engine.ErrInvalidRequest) {
			t.Errorf("%s: Submit %v, want ErrInvalidRequest", tc.name, err)
		}
	}
	var n int
	if err := front.Pool().QueryRow(ctx, "SELECT count(*) FROM cuzk_request").Scan(&n); err != nil || n != 0 {
		t.Errorf("%d requests queued for refused submits (%v)", n, err)
	}
	if _, _, err := front.Submit(ctx, good); err != nil {
		t.Errorf("a well-formed WindowPoSt: %v", err)
	}

	bug := startCluster(t, url, nil, func(o *Options) { o.Planner = panicPlanner{} })
	if _, _, err := bug.Submit(ctx, postReq("bug", 0, "x")); !errors.Is(err, engine.ErrInvalidRequest) {
		t.Errorf("panicking planner: %v", err)
	}
}
