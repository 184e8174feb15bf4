package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cuzk-project/cuzk/circuits"
	"github.com/cuzk-project/cuzk/filecoin"
	"github.com/cuzk-project/cuzk/groth16/aggregate"
	cuzkv1 "github.com/cuzk-project/cuzk/proto/cuzk/v1"
)

// A non-interactive PoRep C2 from end to end at 2 KiB and 8 MiB, as an
// operator runs it: gen-vanilla → a --dev daemon (development parameters
// generated on request into its param_cache, the development SnarkPack SRS)
// → prove --addr writes the proof: one aggregate of the 13 partitions
// padded to 16, and fills a public file's proof (--public --dev-srs) →
// verify --public --dev-srs valid; another sector number,
// comm_r, ticket or a flipped byte of the aggregate makes it invalid; bad
// requests before it get InvalidArgument and the daemon serves on. Both
// sizes prove 13 partitions on the CPU (minutes on two cores): without
// -short only.
func TestNIPoRepEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("13 PoRep partitions and their aggregate on the CPU: without -short")
	}
	params := testParamsDir(t) // before testDaemonConfig moves the user cache
	for _, proof := range []string{
		"StackedDrg2KiBV1_2_Feat_NonInteractivePoRep",
		"StackedDrg8MiBV1_2_Feat_NonInteractivePoRep",
	} {
		t.Run(proof, func(t *testing.T) { niPoRepEndToEnd(t, params, proof) })
	}
}

func niPoRepEndToEnd(t *testing.T, params, proofType string) {
	dir := t.TempDir()
	f := genPoRep(t, dir, proofType, "--seed", "3")
	p, err := filecoin.ParseSealProof(proofType)
	if err != nil {
		t.Fatal(err)
	}
	info, _ := p.Info()
	vkPath := filepath.Join(params, info.VKFile())
	_, err = os.Stat(vkPath)
	setupOnRequest := err != nil
	// The daemon aggregates with an SRS file in its param_cache when there
	// is one, else with the development SRS that --dev-srs names.
	srsArgs := []string{"--dev-srs"}
	if _, err := os.Stat(filepath.Join(params, circuits.AggregationSRSFile)); err == nil {
		srsArgs = nil
	}

	c, cfg := startParamsDaemon(t, params, true, 8<<30)
	req, err := readRequest(f.req)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 40*time.Minute)
	defer cancel()
	rejectEach(ctx, t, c, req, []requestEdit{
		{"truncated envelope", func(r *cuzkv1.SubmitProofRequest) { r.VanillaProof = r.VanillaProof[:len(r.VanillaProof)/3] }},
		{"another sector", func(r *cuzkv1.SubmitProofRequest) { r.SectorNumber++ }},
	})

	proof := filepath.Join(dir, "proof.bin")
	filled := filepath.Join(dir, "filled.json") // a copy of the public file, its proof filled by prove --public
	seal, err := os.ReadFile(f.seal)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filled, seal, 0o644); err != nil {
		t.Fatal(err)
	}
	t0 := time.Now()
	prove := append([]string{"prove", "--request", f.req, "--out", proof, "--addr", cfg.Daemon.Listen,
		"--public", filled, "--params-dir", params}, srsArgs...)
	out, code := run(t, prove...)
	took := time.Since(t0)
	if code != 0 {
		t.Fatalf("prove --addr --public: exit %d: %s", code, out)
	}
	logProveTimes(t, proofType, out, took, t0, setupOnRequest, vkPath)
	b, err := os.ReadFile(proof)
	if err != nil {
		t.Fatal(err)
	}
	if want := aggregate.Size(16); len(b) != want {
		t.Fatalf("daemon proof: %d bytes, want an aggregate of 13 partitions padded to 16 (%d)", len(b), want)
	}
	if d, err := readPublic(filled); err != nil || !bytes.Equal(d.proof(), b) {
		t.Fatalf("prove --public: the public file's proof is not the aggregate written (%v)", err)
	}
	t0 = time.Now()
	verify := append([]string{"verify", "--public", f.seal, "--params-dir", params, "--proof", proof}, srsArgs...)
	if out, code := run(t, verify...); code != 0 || !strings.HasPrefix(out, "valid") {
		t.Fatalf("verify --public of the daemon's aggregate: exit %d: %s", code, out)
	}
	t.Logf("%s verify --public: %v", proofType, time.Since(t0).Round(time.Millisecond))
	rejectChangedSeals(t, dir, params, f.seal, b, srsArgs)
}

// logProveTimes logs the wall time of prove --addr and, when the daemon
// generated the development parameters on request, how much of it the
// setup took (until its .vk, the last file setup writes, was in place).
func logProveTimes(t *testing.T, proofType, out string, took time.Duration, start time.Time, setupOnRequest bool, vkPath string) {
	t.Helper()
	t.Logf("%s prove --addr: %v; %s", proofType, took.Round(time.Millisecond), strings.TrimSpace(out))
	if !setupOnRequest {
		t.Logf("%s: the parameters were in the param_cache already (no setup)", proofType)
		return
	}
	st, err := os.Stat(vkPath)
	if err != nil {
		t.Fatalf("the daemon generated no verifying key %s: %v", vkPath, err)
	}
	setup := st.ModTime().Sub(start)
	t.Logf("%s of it: setup of the development parameters on request %v, then the C2 %v", proofType,
		setup.Round(time.Second), (took - setup).Round(time.Second))
}

// rejectChangedSeals writes the public data of seal with the aggregate
// proof and one change each, and wants verify --public to call every one
// invalid.
func rejectChangedSeals(t *testing.T, dir, params, sealPath string, proof []byte, srsArgs []string) {
	t.Helper()
	seal, err := readSeal(sealPath)
	if err != nil {
		t.Fatal(err)
	}
	seal.Proof = proof
	for _, tc := range []struct {
		name string
		edit func(s *filecoin.SealVerifyInfo)
	}{
		{"sector number", func(s *filecoin.SealVerifyInfo) { s.Number++ }},
		{"comm_r", func(s *filecoin.SealVerifyInfo) {
			r, err := s.SealedCID.CommR()
			if err != nil {
				t.Fatal(err)
			}
			r[0] ^= 1
			s.SealedCID = filecoin.SealedCID(r)
		}},
		{"ticket", func(s *filecoin.SealVerifyInfo) { s.Randomness[0] ^= 1 }},
		{"aggregate byte", func(s *filecoin.SealVerifyInfo) { s.Proof[len(s.Proof)-100] ^= 1 }},
	} {
		s := *seal
		s.Proof = append([]byte(nil), seal.Proof...)
		s.Randomness = append([]byte(nil), seal.Randomness...)
		tc.edit(&s)
		path := filepath.Join(dir, "changed-"+strings.ReplaceAll(tc.name, " ", "-")+".json")
		if err := writeSeal(path, &s); err != nil {
			t.Fatal(err)
		}
		args := append([]string{"verify", "--public", path, "--params-dir", params}, srsArgs...)
		if out, code := run(t, args...); code != 1 || !strings.HasPrefix(out, "invalid") {
			t.Errorf("changed %s: exit %d: %s", tc.name, code, out)
		}
	}
}
