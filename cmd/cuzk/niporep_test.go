package main

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/cuzk-project/cuzk/circuits"
	"github.com/cuzk-project/cuzk/config"
	"github.com/cuzk-project/cuzk/filecoin"
	"github.com/cuzk-project/cuzk/filecoin/gen"
	cuzkv1 "github.com/cuzk-project/cuzk/proto/cuzk/v1"
)

// A production daemon without the SnarkPack SRS in its parameter cache
// refuses a non-interactive PoRep C2 at submit: FailedPrecondition naming
// the file it looked for; a development daemon accepts it (its SRS is
// generated).
func TestDaemonNIPoRepSRS(t *testing.T) {
	dir, err := os.MkdirTemp("", "cuzkn")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	s, err := gen.GeneratePoRep(context.Background(), gen.PoRepOptions{Proof: filecoin.StackedDrg2KiBV1_2_Feat_NonInteractivePoRep, Seed: 1, Miner: 1000, Sector: 1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	req := &cuzkv1.SubmitProofRequest{RequestId: "ni-1", ProofKind: cuzkv1.ProofKind_POREP_SEAL_COMMIT,
		RegisteredProof: uint64(filecoin.StackedDrg2KiBV1_2_Feat_NonInteractivePoRep), SectorSize: 2 << 10, SectorNumber: 1,
		VanillaProof: s.Envelope.Encode()}

	cfg := testDaemonConfig(t, dir)
	cfg.Daemon.Dev = false
	c, stop := startDaemon(t, cfg)
	_, _, err = c.Submit(context.Background(), req)
	st := status.Convert(errors.Unwrap(err))
	want := filepath.Join(cfg.SRS.ParamCache, circuits.AggregationSRSFile)
	if err == nil || st.Code() != codes.FailedPrecondition || !strings.Contains(st.Message(), want) {
		t.Fatalf("NI PoRep without the SRS: %v, want FailedPrecondition naming %s", err, want)
	}
	if err := stop(); err != nil {
		t.Fatal(err)
	}

	cfg.Daemon.Dev = true
	cfg.Memory.TotalBudget = config.Budget{Bytes: 8 << 30} // a 2 KiB PoRep partition's estimate is 2.3 GiB
	c, _ = startDaemon(t, cfg)
	id, _, err := c.Submit(context.Background(), req)
	if err != nil {
		t.Fatalf("a dev daemon refuses an NI PoRep: %v", err)
	}
	if _, err := c.Cancel(context.Background(), id); err != nil {
		t.Fatal(err)
	}
}
