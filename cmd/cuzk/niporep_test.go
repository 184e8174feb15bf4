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
	"github.com/cuzk-project/cuzk/filecoin/c1"
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

// check of a non-interactive PoRep C1 needs no SRS: the planner accepts
// it (vanilla proofs verified, challenges from comm_r), the request line
// gives the registry's counts and the aggregate a C2 would be, and every
// partition synthesizes satisfied with the verifier's inputs. A changed
// comm_r (other challenges) or column row is refused.
func TestCheckNIPoRep(t *testing.T) {
	dir := t.TempDir()
	f := genPoRep(t, dir, "StackedDrg2KiBV1_2_Feat_NonInteractivePoRep", "--seed", "5")
	badCommR := rewriteRequest(t, f.req, "bad-comm-r.json", func(_ *cuzkv1.SubmitProofRequest, o *c1.Output) { o.CommR[3] ^= 1 })
	badColumn := rewriteRequest(t, f.req, "bad-column.json", func(_ *cuzkv1.SubmitProofRequest, o *c1.Output) {
		o.Partitions[12][0].ReplicaColumnProofs.DRGParents[0].Rows[0][0] ^= 1
	})
	for _, tc := range []struct {
		name string
		args []string
		code int
		want []string
	}{
		{"last partition", []string{"--request", f.req, "--partition", "12"}, 0, []string{
			"StackedDrg2KiBV1_2_Feat_NonInteractivePoRep", "13 partitions × 2 challenges = 26 challenges", "non-interactive",
			"padded to 16, 14164 bytes", "request: accepted; vanilla proof verified", "challenges from comm_r",
			"\n12 ", "match", "ok: 1 of 13 partitions checked, all satisfied"}},
		{"bare C1", []string{"--kind", "porep", "--vanilla", f.raw, "--partition", "0"}, 0, []string{"request: accepted", "all satisfied"}},
		{"changed comm_r", []string{"--request", badCommR, "--partition", "0"}, 1, []string{"REFUSED", "comm_r", "NO (", "FAILED"}},
		{"changed column row", []string{"--request", badColumn, "--partition", "12"}, 1, []string{
			"REFUSED", "NO (", "FAILED: 1 of 1 partitions checked are not satisfied"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, code := run(t, append([]string{"check"}, tc.args...)...)
			if code != tc.code {
				t.Errorf("exit %d, want %d\n%s", code, tc.code, out)
			}
			for _, w := range tc.want {
				if !strings.Contains(out, w) {
					t.Errorf("output lacks %q:\n%s", w, out)
				}
			}
		})
	}
}

// The request line of a PoRep C1 in check gives the registry's counts:
// 126 partitions × 18 challenges for a 32 GiB NI PoRep, and the aggregate's
// size; interactive PoRep has neither the total nor the aggregate.
func TestCheckPoRepDescribe(t *testing.T) {
	for _, tc := range []struct {
		proof      filecoin.SealProof
		want, lack string
	}{
		{filecoin.StackedDrg32GiBV1_2_Feat_NonInteractivePoRep, "126 partitions × 18 challenges = 2268 challenges, non-interactive (challenges from comm_r); its C2 aggregates the 126 partition proofs (padded to 128, 23092 bytes)", ""},
		{filecoin.StackedDrg8MiBV1_2_Feat_NonInteractivePoRep, "13 partitions × 2 challenges = 26 challenges", ""},
		{filecoin.StackedDrg32GiBV1_1, "sector 7, 10 partitions × 18 challenges", "non-interactive"},
	} {
		info, err := tc.proof.Info()
		if err != nil {
			t.Fatal(err)
		}
		got := porepDescribe(info, 7)
		if !strings.Contains(got, tc.want) || (tc.lack != "" && strings.Contains(got, tc.lack)) {
			t.Errorf("%v: %q, want it to contain %q and not %q", tc.proof, got, tc.want, tc.lack)
		}
	}
}
