package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/cuzk-project/cuzk/circuits"
	"github.com/cuzk-project/cuzk/client"
	"github.com/cuzk-project/cuzk/filecoin"
	cuzkv1 "github.com/cuzk-project/cuzk/proto/cuzk/v1"
)

// testParamsDir is where the development parameters of the end-to-end
// tests go: $CUZK_TEST_PARAMS_DIR when set, else the user cache
// directory's cuzk/filecoin-dev (the circuits example uses it too), so that
// the setups (minutes each) are paid once per machine.
func testParamsDir(t *testing.T) string {
	if d := os.Getenv("CUZK_TEST_PARAMS_DIR"); d != "" {
		return d
	}
	d, err := circuits.DefaultParamsDir()
	if err != nil {
		return filepath.Join(t.TempDir(), "params")
	}
	return filepath.Join(d, "filecoin-dev")
}

// A PoRep C2 from end to end at 2 KiB and 8 MiB (512 MiB without -short):
// gen-vanilla → setup → the daemon's Prove (Curio's envelope through gRPC;
// a production daemon, the parameters in its param_cache) → verify
// --public valid; a flipped byte of the proof, the seed, the ticket or
// comm_r makes it invalid; bad requests before it get InvalidArgument and
// the daemon serves on. At 2 KiB also prove --request in process.
func TestPoRepEndToEnd(t *testing.T) {
	sizes := []struct {
		proof     string
		inProcess bool
		long      bool
	}{
		{"StackedDrg2KiBV1_1", true, false},
		{"StackedDrg8MiBV1_1", false, false},
		{"StackedDrg512MiBV1_1", false, true},
	}
	params := testParamsDir(t)
	for _, sz := range sizes {
		t.Run(sz.proof, func(t *testing.T) {
			if sz.long && testing.Short() {
				t.Skip("512 MiB: without -short")
			}
			porepEndToEnd(t, params, sz.proof, sz.inProcess)
		})
	}
}

func porepEndToEnd(t *testing.T, params, proofType string, inProcess bool) {
	dir := t.TempDir()
	f := genPoRep(t, dir, proofType, "--seed", "3")
	p, err := filecoin.ParseSealProof(proofType)
	if err != nil {
		t.Fatal(err)
	}
	info, _ := p.Info()
	if _, err := os.Stat(filepath.Join(params, info.ParamsFile())); err != nil {
		t0 := time.Now()
		if out, code := run(t, "setup", "--proof-type", proofType, "--params-dir", params); code != 0 {
			t.Fatalf("setup: exit %d: %s", code, out)
		}
		t.Logf("%s setup: %v", proofType, time.Since(t0).Round(time.Second))
	}
	if inProcess {
		proof := filepath.Join(dir, "proof.bin")
		t0 := time.Now()
		if out, code := run(t, "prove", "--request", f.req, "--out", proof, "--params-dir", params, "--budget", "8"); code != 0 {
			t.Fatalf("prove --request: exit %d: %s", code, out)
		}
		t.Logf("%s prove in process: %v", proofType, time.Since(t0).Round(time.Millisecond))
		if out, code := run(t, "verify", "--public", f.seal, "--params-dir", params, "--proof", proof); code != 0 || !strings.HasPrefix(out, "valid") {
			t.Fatalf("verify --public of the in-process proof: exit %d: %s", code, out)
		}
	}

	// A production daemon (no --dev) with the parameter file in its
	// param_cache.
	c, _ := startParamsDaemon(t, params, false, 8<<30)
	req, err := readRequest(f.req)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	rejectEach(ctx, t, c, req, []requestEdit{
		{"truncated envelope", func(r *cuzkv1.SubmitProofRequest) { r.VanillaProof = r.VanillaProof[:len(r.VanillaProof)/3] }},
		{"garbage", func(r *cuzkv1.SubmitProofRequest) { r.VanillaProof = []byte("\x00\xffnot a C1") }},
		{"another sector", func(r *cuzkv1.SubmitProofRequest) { r.SectorNumber++ }},
	})
	t0 := time.Now()
	res, err := c.Prove(ctx, req)
	if err != nil {
		t.Fatalf("daemon Prove: %v", err)
	}
	t.Logf("%s prove through the daemon: %v", proofType, time.Since(t0).Round(time.Millisecond))
	if len(res.Proof) != info.Partitions*192 {
		t.Fatalf("daemon proof: %d bytes", len(res.Proof))
	}
	if err := os.WriteFile(filepath.Join(dir, "daemon-proof.bin"), res.Proof, 0o644); err != nil {
		t.Fatal(err)
	}
	if out, code := run(t, "verify", "--public", f.seal, "--params-dir", params, "--proof", filepath.Join(dir, "daemon-proof.bin")); code != 0 || !strings.HasPrefix(out, "valid") {
		t.Fatalf("verify of the daemon's proof: exit %d: %s", code, out)
	}

	seal, err := readSeal(f.seal)
	if err != nil {
		t.Fatal(err)
	}
	seal.Proof = res.Proof
	for _, tc := range []struct {
		name string
		edit func(s *filecoin.SealVerifyInfo)
	}{
		{"proof", func(s *filecoin.SealVerifyInfo) { s.Proof[100] ^= 1 }},
		{"seed", func(s *filecoin.SealVerifyInfo) { s.InteractiveRandomness[0] ^= 1 }},
		{"ticket", func(s *filecoin.SealVerifyInfo) { s.Randomness[0] ^= 1 }},
		{"comm_r", func(s *filecoin.SealVerifyInfo) {
			r, err := s.SealedCID.CommR()
			if err != nil {
				t.Fatal(err)
			}
			r[0] ^= 1
			s.SealedCID = filecoin.SealedCID(r)
		}},
	} {
		s := *seal
		s.Proof = append([]byte(nil), seal.Proof...)
		s.Randomness = append([]byte(nil), seal.Randomness...)
		s.InteractiveRandomness = append([]byte(nil), seal.InteractiveRandomness...)
		tc.edit(&s)
		path := filepath.Join(dir, "flipped-"+tc.name+".json")
		if err := writeSeal(path, &s); err != nil {
			t.Fatal(err)
		}
		if out, code := run(t, "verify", "--public", path, "--params-dir", params); code != 1 || !strings.HasPrefix(out, "invalid") {
			t.Errorf("a flipped byte of the %s: exit %d: %s", tc.name, code, out)
		}
	}
}

// rejectEach sends each edited copy of req to the daemon and wants
// InvalidArgument for every one: the daemon serves on after each.
func rejectEach(ctx context.Context, t *testing.T, c *client.Client, req *cuzkv1.SubmitProofRequest, bad []requestEdit) {
	t.Helper()
	for _, b := range bad {
		r := cloneRequest(req)
		r.RequestId = "bad-" + b.name
		b.edit(r)
		if _, err := c.Prove(ctx, r); status.Code(err) != codes.InvalidArgument {
			t.Fatalf("%s: err = %v, want InvalidArgument", b.name, err)
		}
	}
}
