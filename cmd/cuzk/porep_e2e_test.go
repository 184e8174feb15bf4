package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cuzk-project/cuzk/config"
	"github.com/cuzk-project/cuzk/filecoin"
)

// testParamsDir is where the 2 KiB development parameters of the end-to-end
// test go: $CUZK_TEST_PARAMS_DIR when set (kept between runs: the setup
// takes minutes), else a directory of the test.
func testParamsDir(t *testing.T) string {
	if d := os.Getenv("CUZK_TEST_PARAMS_DIR"); d != "" {
		return d
	}
	return filepath.Join(t.TempDir(), "params")
}

// A 2 KiB PoRep from end to end, as issue 11 accepts it: gen-vanilla →
// setup → prove --request (in process) and the daemon's Prove (Curio's
// envelope through gRPC) → verify --public valid; a flipped byte of the
// proof, the seed, the ticket or comm_r makes it invalid.
func TestPoRepEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("the 2 KiB development setup takes minutes")
	}
	dir := t.TempDir()
	params := testParamsDir(t)
	f := genPoRep(t, dir, "StackedDrg2KiBV1_1", "--seed", "3")
	info, _ := filecoin.StackedDrg2KiBV1_1.Info()
	if _, err := os.Stat(filepath.Join(params, info.ParamsFile())); err != nil {
		t0 := time.Now()
		if out, code := run(t, "setup", "--proof-type", "StackedDrg2KiBV1_1", "--params-dir", params); code != 0 {
			t.Fatalf("setup: exit %d: %s", code, out)
		}
		t.Logf("2 KiB setup: %v", time.Since(t0).Round(time.Second))
	}
	proof := filepath.Join(dir, "proof.bin")
	t0 := time.Now()
	if out, code := run(t, "prove", "--request", f.req, "--out", proof, "--public", f.seal, "--params-dir", params, "--budget", "8"); code != 0 {
		t.Fatalf("prove --request: exit %d: %s", code, out)
	}
	t.Logf("2 KiB prove: %v", time.Since(t0).Round(time.Millisecond))
	if out, code := run(t, "verify", "--public", f.seal, "--params-dir", params); code != 0 || !strings.HasPrefix(out, "valid") {
		t.Fatalf("verify --public: exit %d: %s", code, out)
	}

	seal, err := readSeal(f.seal)
	if err != nil {
		t.Fatal(err)
	}
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

	// The same request through a production daemon (no --dev): the
	// parameter file is in its param_cache.
	sockDir, err := os.MkdirTemp("", "cuzkpr")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(sockDir)
	cfg := testDaemonConfig(t, sockDir)
	cfg.Daemon.Dev = false
	cfg.SRS.ParamCache = params
	cfg.Memory.TotalBudget = config.Budget{Bytes: 8 << 30}
	c, _ := startDaemon(t, cfg)
	req, err := readRequest(f.req)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	res, err := c.Prove(ctx, req)
	if err != nil {
		t.Fatalf("daemon Prove: %v", err)
	}
	daemonProof := filepath.Join(dir, "daemon-proof.bin")
	if err := os.WriteFile(daemonProof, res.Proof, 0o644); err != nil {
		t.Fatal(err)
	}
	if out, code := run(t, "verify", "--public", f.seal, "--params-dir", params, "--proof", daemonProof); code != 0 || !strings.HasPrefix(out, "valid") {
		t.Fatalf("verify of the daemon's proof: exit %d: %s", code, out)
	}
}
