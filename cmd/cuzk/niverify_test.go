package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// verify --public of a non-interactive PoRep's SealVerifyInfo checks its
// Proof as one aggregate of the partitions: a proof of another length is
// invalid (exit 1) saying what an aggregate's length is, so is one of that
// length that does not decode, and --partition is refused (exit 2). (A
// real aggregate verified from SealVerifyInfo: circuits'
// TestProveNIPoRepOnCPU, minutes, without -short.)
func TestVerifyPublicNonInteractive(t *testing.T) {
	dir := t.TempDir()
	pub := filepath.Join(dir, "ni.json")
	if out, code := run(t, "gen-vanilla", "porep", "--proof-type", "StackedDrg2KiBV1_2_Feat_NonInteractivePoRep", "--seed", "3",
		"--out", filepath.Join(dir, "ni-req.json"), "--public", pub); code != 0 {
		t.Fatalf("gen-vanilla: exit %d: %s", code, out)
	}
	vk := filepath.Join(dir, "dev.vk")
	if out, code := run(t, "setup", "--circuit", "synthetic", "--constraints", "1024", "--out", filepath.Join(dir, "dev.params")); code != 0 {
		t.Fatalf("setup: exit %d: %s", code, out)
	}
	withProof := func(t *testing.T, proof []byte) string {
		t.Helper()
		b, err := os.ReadFile(pub)
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		m["Proof"] = proof // base64, as go-state-types writes []byte
		out, _ := json.Marshal(m)
		p := filepath.Join(dir, "ni-proof.json")
		if err := os.WriteFile(p, out, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	// 13 partitions padded to 16: an aggregate has 2260 + 2976·4 bytes.
	short := withProof(t, make([]byte, 13*192))
	if out, code := run(t, "verify", "--public", short, "--vk", vk, "--dev-srs"); code != 1 || !strings.Contains(out, "14164") {
		t.Fatalf("13 partition proofs where an aggregate belongs: exit %d: %s", code, out)
	}
	if out, code := run(t, "verify", "--public", short, "--vk", vk, "--dev-srs", "--partition", "0"); code != 2 || !strings.Contains(out, "aggregate") {
		t.Fatalf("--partition of an NI PoRep: exit %d: %s", code, out)
	}
	zeros := withProof(t, make([]byte, 14164)) // the length, not an aggregate
	if out, code := run(t, "verify", "--public", zeros, "--vk", vk, "--dev-srs"); code != 1 || !strings.Contains(out, "malformed") {
		t.Fatalf("zeros of an aggregate's length: exit %d: %s", code, out)
	}
}
