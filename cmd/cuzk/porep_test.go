package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protojson"

	"github.com/cuzk-project/cuzk/circuits/synthetic"
	"github.com/cuzk-project/cuzk/filecoin"
	"github.com/cuzk-project/cuzk/filecoin/c1"
	"github.com/cuzk-project/cuzk/groth16"
	cuzkv1 "github.com/cuzk-project/cuzk/proto/cuzk/v1"
)

// porepFiles are what `cuzk gen-vanilla porep` writes.
type porepFiles struct{ req, seal, raw string }

// genPoRep runs gen-vanilla for proof into dir.
func genPoRep(t *testing.T, dir, proof string, args ...string) porepFiles {
	t.Helper()
	f := porepFiles{filepath.Join(dir, "req.json"), filepath.Join(dir, "seal.json"), filepath.Join(dir, "c1.json")}
	all := append([]string{"gen-vanilla", "porep", "--proof-type", proof, "--out", f.req, "--public", f.seal, "--raw", f.raw}, args...)
	if out, code := run(t, all...); code != 0 {
		t.Fatalf("gen-vanilla: exit %d: %s", code, out)
	}
	return f
}

func TestGenVanillaPoRep(t *testing.T) {
	dir := t.TempDir()
	f := genPoRep(t, dir, "StackedDrg2KiBV1_1", "--seed", "7", "--miner", "1234", "--sector", "42")

	var req cuzkv1.SubmitProofRequest
	if err := protojson.Unmarshal(mustRead(t, f.req), &req); err != nil {
		t.Fatal(err)
	}
	want := &cuzkv1.SubmitProofRequest{RequestId: "porep-1234-42", ProofKind: cuzkv1.ProofKind_POREP_SEAL_COMMIT,
		SectorSize: 2048, RegisteredProof: uint64(filecoin.StackedDrg2KiBV1_1), Priority: cuzkv1.Priority_NORMAL,
		SectorNumber: 42, MinerId: 1234}
	got := proto(&req)
	got.VanillaProof = nil
	if !strings.EqualFold(protojson.Format(got), protojson.Format(want)) {
		t.Errorf("request fields:\n%v\nwant\n%v", protojson.Format(got), protojson.Format(want))
	}
	env, err := c1.DecodeEnvelope(req.VanillaProof)
	if err != nil || env.SectorNum != 42 || env.SectorSize != 2048 || !bytes.Equal(env.Phase1Out, mustRead(t, f.raw)) {
		t.Fatalf("envelope: %v; SectorNum %d SectorSize %d; Phase1Out equal to --raw: %v", err, env.SectorNum, env.SectorSize,
			err == nil && bytes.Equal(env.Phase1Out, mustRead(t, f.raw)))
	}
	var seal filecoin.SealVerifyInfo
	if err := json.Unmarshal(mustRead(t, f.seal), &seal); err != nil {
		t.Fatal(err)
	}
	if seal.SealProof != filecoin.StackedDrg2KiBV1_1 || seal.Miner != 1234 || seal.Number != 42 || seal.Proof != nil ||
		len(seal.Randomness) != 32 || len(seal.InteractiveRandomness) != 32 {
		t.Errorf("seal.json: %+v", seal)
	}

	// Deterministic from the seed.
	again := genPoRep(t, t.TempDir(), "StackedDrg2KiBV1_1", "--seed", "7", "--miner", "1234", "--sector", "42")
	other := genPoRep(t, t.TempDir(), "StackedDrg2KiBV1_1", "--seed", "8", "--miner", "1234", "--sector", "42")
	if !bytes.Equal(mustRead(t, again.req), mustRead(t, f.req)) || !bytes.Equal(mustRead(t, again.seal), mustRead(t, f.seal)) {
		t.Error("the same options wrote other files")
	}
	if bytes.Equal(mustRead(t, other.raw), mustRead(t, f.raw)) {
		t.Error("another seed wrote the same C1")
	}

	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"gen-vanilla", "porep", "--out", filepath.Join(dir, "x.json")}, "--proof-type and --out are required"},
		{[]string{"gen-vanilla", "porep", "--proof-type", "StackedDrg2KiBV1_1"}, "--proof-type and --out are required"},
		{[]string{"gen-vanilla", "porep", "--proof-type", "StackedDrg3KiBV1", "--out", filepath.Join(dir, "x.json")}, "unknown registered seal proof"},
		{[]string{"gen-vanilla", "porep", "--proof-type", "StackedDrg2KiBV1_1", "--out", filepath.Join(dir, "none", "x.json")}, "no such file"},
		{[]string{"gen-vanilla"}, "cuzk gen-vanilla porep"},
	} {
		if out, code := run(t, tc.args...); code == 0 || !strings.Contains(out, tc.want) {
			t.Errorf("%v: exit %d, %q; want an error containing %q", tc.args, code, out, tc.want)
		}
	}
}

// proto copies a request (protojson.Format of a value in a test).
func proto(r *cuzkv1.SubmitProofRequest) *cuzkv1.SubmitProofRequest {
	return &cuzkv1.SubmitProofRequest{RequestId: r.RequestId, ProofKind: r.ProofKind, SectorSize: r.SectorSize,
		RegisteredProof: r.RegisteredProof, Priority: r.Priority, VanillaProof: r.VanillaProof,
		SectorNumber: r.SectorNumber, MinerId: r.MinerId}
}

// rewriteRequest writes a copy of the request at path, changed by edit.
func rewriteRequest(t *testing.T, path, name string, edit func(r *cuzkv1.SubmitProofRequest, o *c1.Output)) string {
	t.Helper()
	r, err := readRequest(path)
	if err != nil {
		t.Fatal(err)
	}
	env, o, err := c1.DecodeEnvelopeOutput(r.VanillaProof)
	if err != nil {
		t.Fatal(err)
	}
	edit(r, o)
	js, err := o.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	env.Phase1Out = js
	r.VanillaProof = env.Encode()
	out := filepath.Join(filepath.Dir(path), name)
	if err := writeRequest(out, r); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestCheck(t *testing.T) {
	dir := t.TempDir()
	f := genPoRep(t, dir, "StackedDrg2KiBV1_1")
	out, code := run(t, "check", "--request", f.req)
	if code != 0 || !strings.Contains(out, "request: accepted") || !strings.Contains(out, "ok: 1 of 1 partitions checked, all satisfied") ||
		!strings.Contains(out, "match") {
		t.Fatalf("check of a generated 2 KiB request: exit %d\n%s", code, out)
	}
	checkErrors(t, dir, f)
	if raceEnabled {
		return // a 2 KiB partition synthesizes in about 20 s under the race detector
	}
	if out, code := run(t, "check", "--kind", "porep", "--vanilla", f.raw, "--partition", "0"); code != 0 || !strings.Contains(out, "all satisfied") {
		t.Fatalf("check --vanilla of the bare C1: exit %d\n%s", code, out)
	}

	// A changed label in a parent's column: the vanilla proof is refused,
	// and the circuit is not satisfied (the column hash no longer opens).
	badColumn := rewriteRequest(t, f.req, "bad-column.json", func(_ *cuzkv1.SubmitProofRequest, o *c1.Output) {
		o.Partitions[0][0].ReplicaColumnProofs.DRGParents[0].Rows[0][0] ^= 1
	})
	// Another miner's request for the same C1: refused, the circuit itself holds.
	otherMiner := rewriteRequest(t, f.req, "other-miner.json", func(r *cuzkv1.SubmitProofRequest, _ *c1.Output) { r.MinerId++ })
	for _, tc := range []struct {
		name, path string
		want       []string
	}{
		{"changed column row", badColumn, []string{"REFUSED", "NO (", "FAILED: 1 of 1 partitions checked are not satisfied"}},
		{"another miner", otherMiner, []string{"REFUSED", "replica_id", "  yes  ", "FAILED: the request is refused"}},
	} {
		out, code := run(t, "check", "--request", tc.path)
		if code != 1 {
			t.Errorf("%s: exit %d, want 1\n%s", tc.name, code, out)
		}
		for _, w := range tc.want {
			if !strings.Contains(out, w) {
				t.Errorf("%s: output lacks %q:\n%s", tc.name, w, out)
			}
		}
	}

}

// checkErrors: bad input to check is refused with a clear error.
func checkErrors(t *testing.T, dir string, f porepFiles) {
	t.Helper()
	garbage := filepath.Join(dir, "garbage.json")
	os.WriteFile(garbage, []byte(`{"proof_kind":"POREP_SEAL_COMMIT","vanilla_proof":"AAAA"}`), 0o644)
	winning := filepath.Join(dir, "winning.json")
	os.WriteFile(winning, []byte(`{"proof_kind":"WINNING_POST"}`), 0o644)
	unspecified := filepath.Join(dir, "unspecified.json")
	os.WriteFile(unspecified, []byte(`{"request_id":"x"}`), 0o644)
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"check"}, 2, "no request"},
		{[]string{"check", "--request", filepath.Join(dir, "none.json")}, 2, "no such file"},
		{[]string{"check", "--request", f.raw}, 2, "not a cuzk.v1.SubmitProofRequest"},
		{[]string{"check", "--request", winning}, 1, "cannot be decoded (the daemon refuses it): invalid request: vanilla_proofs is empty"},
		{[]string{"check", "--request", unspecified}, 1, "proof_kind is unspecified"},
		{[]string{"check", "--request", garbage}, 1, "cannot be decoded"},
		{[]string{"check", "--request", f.req, "--vanilla", f.raw}, 2, "not both"},
		{[]string{"check", "--vanilla", f.req}, 2, "neither a Curio C1 envelope nor a C1 output"},
		{[]string{"check", "--kind", "wpost", "--vanilla", f.raw}, 2, "only porep"},
		{[]string{"check", "--request", f.req, "--partition", "1"}, 2, "partitions 0..0"},
	} {
		if out, code := run(t, tc.args...); code != tc.code || !strings.Contains(out, tc.want) {
			t.Errorf("%v: exit %d, %q; want exit %d containing %q", tc.args, code, out, tc.code, tc.want)
		}
	}
}

func TestSetupPoRepErrors(t *testing.T) {
	dir := t.TempDir()
	info, err := filecoin.StackedDrg2KiBV1_1.Info()
	if err != nil {
		t.Fatal(err)
	}
	existing := filepath.Join(dir, info.ParamsFile())
	if err := os.WriteFile(existing, []byte("a real parameter file"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"setup", "--proof-type", "StackedDrg2KiBV1_1", "--params-dir", dir}, "not replacing it"},
		{[]string{"setup", "--proof-type", "StackedDrg2KiB"}, "unknown registered seal proof"},
		{[]string{"setup", "--proof-type", "StackedDrg2KiBV1_1", "--constraints", "1024"}, "--constraints does not go with --proof-type"},
		{[]string{"setup", "--force"}, "go with --proof-type"},
	} {
		if out, code := run(t, tc.args...); code == 0 || !strings.Contains(out, tc.want) {
			t.Errorf("%v: exit %d, %q; want an error containing %q", tc.args, code, out, tc.want)
		}
	}
	if b := mustRead(t, existing); string(b) != "a real parameter file" {
		t.Error("setup replaced an existing parameter file without --force")
	}
}

func TestVerifyPublicErrors(t *testing.T) {
	dir := t.TempDir()
	f := genPoRep(t, dir, "StackedDrg2KiBV1_1")
	// A key of another circuit: the seal's inputs do not fit it.
	c, err := synthetic.New(synthetic.Default(256))
	if err != nil {
		t.Fatal(err)
	}
	p, err := groth16.Setup(c, []byte("x"))
	if err != nil {
		t.Fatal(err)
	}
	vk := filepath.Join(dir, "other.vk")
	if err := groth16.WriteVerifyingKey(vk, &p.VK); err != nil {
		t.Fatal(err)
	}
	var g1 [groth16.ProofSize]byte
	proofOf := func(name string, b []byte) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	zero := groth16.Proof{}.Bytes()
	goodShape := proofOf("proof.bin", zero[:])
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"verify", "--public", f.seal, "--vk", vk}, 2, "has no proof"},
		{[]string{"verify", "--public", filepath.Join(dir, "none.json"), "--vk", vk}, 2, "no such file"},
		{[]string{"verify", "--public", f.req, "--vk", vk}, 2, "not a SealVerifyInfo"},
		{[]string{"verify", "--public", f.seal, "--params-dir", dir, "--proof", goodShape}, 2, "no such file"},
		{[]string{"verify", "--public", f.seal, "--vk", vk, "--params-dir", dir}, 2, "not both"},
		{[]string{"verify", "--public", f.seal, "--vk", vk, "--inputs", "x.json"}, 2, "--inputs does not go with --public"},
		{[]string{"verify", "--public", f.seal, "--vk", vk, "--proof", proofOf("short.bin", g1[:100])}, 1, "invalid"},
		{[]string{"verify", "--public", f.seal, "--vk", vk, "--proof", proofOf("junk.bin", bytes.Repeat([]byte{0xa5}, groth16.ProofSize))}, 1, "invalid"},
		{[]string{"verify", "--public", f.seal, "--vk", vk, "--proof", goodShape}, 1, "invalid"},
	} {
		if out, code := run(t, tc.args...); code != tc.code || !strings.Contains(out, tc.want) {
			t.Errorf("%v: exit %d, %q; want exit %d containing %q", tc.args[1:], code, out, tc.code, tc.want)
		}
	}
}
