package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	gproto "google.golang.org/protobuf/proto"

	"github.com/cuzk-project/cuzk/circuits/synthetic"
	"github.com/cuzk-project/cuzk/filecoin/update"
	"github.com/cuzk-project/cuzk/groth16"
	cuzkv1 "github.com/cuzk-project/cuzk/proto/cuzk/v1"
)

// proofFiles are what `cuzk gen-vanilla winning-post|window-post|snap`
// writes.
type proofFiles struct{ req, public string }

// genProof runs gen-vanilla kind for proof into dir, the files named after
// name.
func genProof(t *testing.T, dir, kind, proof, name string, args ...string) proofFiles {
	t.Helper()
	f := proofFiles{filepath.Join(dir, name+"-req.json"), filepath.Join(dir, name+".json")}
	all := append([]string{"gen-vanilla", kind, "--proof-type", proof, "--out", f.req, "--public", f.public}, args...)
	if out, code := run(t, all...); code != 0 {
		t.Fatalf("gen-vanilla %s: exit %d: %s", kind, code, out)
	}
	return f
}

func cloneRequest(r *cuzkv1.SubmitProofRequest) *cuzkv1.SubmitProofRequest {
	return gproto.Clone(r).(*cuzkv1.SubmitProofRequest)
}

// The requests are the fields Curio's client sets for each kind, the
// public data the form a chain verifier reads, both deterministic from
// the seed.
func TestGenVanillaPoStSnap(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		kind, proof string
		args        []string
		want        *cuzkv1.SubmitProofRequest // vanilla proofs, randomness and comms left out
		idPrefix    string
		vanilla     int
		form        string
	}{
		{kindWinning, "StackedDrgWinning2KiBV1", []string{"--miner", "1234", "--sectors", "1-8"},
			&cuzkv1.SubmitProofRequest{ProofKind: cuzkv1.ProofKind_WINNING_POST, SectorSize: 2048, RegisteredProof: 0,
				Priority: cuzkv1.Priority_CRITICAL, MinerId: 1234},
			"winpost-1234-", 1, "WinningPoStVerifyInfo"},
		{kindWindow, "StackedDrgWindow2KiBV1_2", []string{"--miner", "1234", "--sectors", "1,2,5-6,9", "--partition", "1"},
			&cuzkv1.SubmitProofRequest{ProofKind: cuzkv1.ProofKind_WINDOW_POST_PARTITION, SectorSize: 2048, RegisteredProof: 10,
				Priority: cuzkv1.Priority_HIGH, MinerId: 1234, PartitionIndex: 1},
			"wdpost-1234-1-[", 2, "WindowPoStVerifyInfo"},
		{kindSnap, "StackedDrg2KiBV1", []string{"--miner", "1234", "--sector", "42"},
			&cuzkv1.SubmitProofRequest{ProofKind: cuzkv1.ProofKind_SNAP_DEALS_UPDATE, SectorSize: 2048, RegisteredProof: 0,
				Priority: cuzkv1.Priority_NORMAL, MinerId: 1234, SectorNumber: 42},
			"snap-1234-42", 1, "ReplicaUpdateInfo"},
	} {
		t.Run(tc.kind, func(t *testing.T) {
			f := genProof(t, dir, tc.kind, tc.proof, tc.kind, append([]string{"--seed", "7"}, tc.args...)...)
			req, err := readRequest(f.req)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(req.RequestId, tc.idPrefix) || len(req.VanillaProofs) != tc.vanilla || req.VanillaProof != nil {
				t.Errorf("request id %q, %d vanilla proofs, vanilla_proof %d bytes", req.RequestId, len(req.VanillaProofs), len(req.VanillaProof))
			}
			got := cloneRequest(req)
			got.RequestId, got.VanillaProofs, got.Randomness, got.CommROld, got.CommRNew, got.CommDNew = "", nil, nil, nil, nil, nil
			if !gproto.Equal(got, tc.want) {
				t.Errorf("request fields:\n%v\nwant\n%v", got, tc.want)
			}
			d, err := readPublic(f.public)
			if err != nil {
				t.Fatal(err)
			}
			if d.form() != tc.form || d.proof() != nil || d.kind() != req.ProofKind {
				t.Errorf("public data: %s (%v), proof %d bytes", d.form(), d.kind(), len(d.proof()))
			}
			switch tc.kind {
			case kindSnap:
				// Curio sends the digests out of the CIDs, equal to the public
				// data's.
				if len(req.CommROld) != 32 || len(req.CommRNew) != 32 || len(req.CommDNew) != 32 || req.Randomness != nil {
					t.Errorf("comms of %d, %d, %d bytes; randomness %d", len(req.CommROld), len(req.CommRNew), len(req.CommDNew), len(req.Randomness))
				}
				old, rNew, dNew, err := d.(*snapData).v.Comms()
				if err != nil {
					t.Fatal(err)
				}
				for _, c := range []struct {
					b    []byte
					want [32]byte
					d    bool
				}{{req.CommROld, old, false}, {req.CommRNew, rNew, false}, {req.CommDNew, dNew, true}} {
					parse := update.ParseCommR
					if c.d {
						parse = update.ParseCommD
					}
					if got, err := parse(c.b, "comm"); err != nil || got != c.want {
						t.Errorf("request comm %x: %x, %v; public data %x", c.b, got, err, c.want)
					}
				}
			default:
				if len(req.Randomness) != 32 || req.Randomness[31]&0xc0 != 0 || req.CommROld != nil {
					t.Errorf("randomness %x; comm_r_old %x", req.Randomness, req.CommROld)
				}
				if tc.kind == kindWindow && len(d.(*windowData).v.ChallengedSectors) != 5 {
					t.Errorf("the deadline's %d sectors, want 5", len(d.(*windowData).v.ChallengedSectors))
				}
			}
			again := genProof(t, t.TempDir(), tc.kind, tc.proof, tc.kind, append([]string{"--seed", "7"}, tc.args...)...)
			other := genProof(t, t.TempDir(), tc.kind, tc.proof, tc.kind, append([]string{"--seed", "8"}, tc.args...)...)
			if !bytes.Equal(mustRead(t, again.req), mustRead(t, f.req)) || !bytes.Equal(mustRead(t, again.public), mustRead(t, f.public)) {
				t.Error("the same options wrote other files")
			}
			if bytes.Equal(mustRead(t, other.req), mustRead(t, f.req)) {
				t.Error("another seed wrote the same request")
			}
		})
	}

	x := filepath.Join(dir, "x.json")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"gen-vanilla", "winning-post", "--out", x}, "--proof-type and --out are required"},
		{[]string{"gen-vanilla", "snap", "--proof-type", "StackedDrg2KiBV1"}, "--proof-type and --out are required"},
		{[]string{"gen-vanilla", "winning-post", "--proof-type", "StackedDrgWindow2KiBV1", "--out", x}, "is a WindowPoSt proof, not a WinningPoSt one"},
		{[]string{"gen-vanilla", "window-post", "--proof-type", "StackedDrgWinning2KiBV1", "--out", x}, "is a WinningPoSt proof, not a WindowPoSt one"},
		{[]string{"gen-vanilla", "window-post", "--proof-type", "StackedDrgWindow3KiBV1", "--out", x}, "unknown registered PoSt proof"},
		{[]string{"gen-vanilla", "window-post", "--proof-type", "StackedDrgWindow2KiBV1", "--sectors", "1-4", "--partition", "2", "--out", x}, "partition 2 of a proof over 4 sectors"},
		{[]string{"gen-vanilla", "window-post", "--proof-type", "StackedDrgWindow2KiBV1", "--sectors", "5-3", "--out", x}, `"5-3" is not a range`},
		{[]string{"gen-vanilla", "winning-post", "--proof-type", "StackedDrgWinning2KiBV1", "--sectors", "1,x", "--out", x}, `"x" is not a sector number`},
		{[]string{"gen-vanilla", "winning-post", "--proof-type", "StackedDrgWinning2KiBV1", "--sectors", "1-99999999", "--out", x}, "more than"},
		{[]string{"gen-vanilla", "snap", "--proof-type", "StackedDrg3KiBV1", "--out", x}, "neither an update nor a seal proof"},
		{[]string{"gen-vanilla", "snap", "--proof-type", "StackedDrg2KiBV1", "--out", filepath.Join(dir, "none", "x.json")}, "no such file"},
		{[]string{"gen-vanilla", "winning-post", "--proof-type", "StackedDrgWinning2KiBV1", "--partition", "1", "--out", x}, "unknown flag: --partition"},
		{[]string{"gen-vanilla"}, "porep|winning-post|window-post|snap"},
	} {
		if out, code := run(t, tc.args...); code == 0 || !strings.Contains(out, tc.want) {
			t.Errorf("%v: exit %d, %q; want an error containing %q", tc.args[1:], code, out, tc.want)
		}
	}
	// A seal proof names the update proof of its sector size.
	f := genProof(t, dir, kindSnap, "StackedDrg2KiBV1_1", "by-seal")
	if r, err := readRequest(f.req); err != nil || r.RegisteredProof != uint64(update.StackedDrg2KiBV1) {
		t.Errorf("snap by seal proof: %v, %v", r, err)
	}
}

// check accepts every generated kind, with the verifier's inputs; a
// changed request is refused and exits 1.
func TestCheckPoStSnap(t *testing.T) {
	dir := t.TempDir()
	files := map[string]proofFiles{
		kindWinning: genProof(t, dir, kindWinning, "StackedDrgWinning2KiBV1", "winning"),
		kindWindow:  genProof(t, dir, kindWindow, "StackedDrgWindow2KiBV1", "window", "--partition", "1"),
		kindSnap:    genProof(t, dir, kindSnap, "StackedDrg2KiBV1", "snap"),
	}
	for kind, f := range files {
		out, code := run(t, "check", "--request", f.req)
		if code != 0 || !strings.Contains(out, "request: accepted") || !strings.Contains(out, "ok: 1 of 1 partitions checked, all satisfied") ||
			!strings.Contains(out, "match") {
			t.Errorf("check of a generated %s request: exit %d\n%s", kind, code, out)
		}
	}
	edit := func(f proofFiles, name string, change func(r *cuzkv1.SubmitProofRequest)) string {
		r, err := readRequest(f.req)
		if err != nil {
			t.Fatal(err)
		}
		change(r)
		path := filepath.Join(dir, name+".json")
		if err := writeRequest(path, r); err != nil {
			t.Fatal(err)
		}
		return path
	}
	for _, tc := range []struct {
		name, path string
		want       []string
	}{
		{"winning: other randomness", edit(files[kindWinning], "w-rand", func(r *cuzkv1.SubmitProofRequest) { r.Randomness[0] ^= 1 }),
			[]string{"REFUSED", "FAILED"}},
		{"window V1: other partition index", edit(files[kindWindow], "d-index", func(r *cuzkv1.SubmitProofRequest) { r.PartitionIndex = 0 }),
			[]string{"REFUSED", "FAILED"}},
		{"window: truncated sector proof", edit(files[kindWindow], "d-trunc", func(r *cuzkv1.SubmitProofRequest) {
			r.VanillaProofs[1] = r.VanillaProofs[1][:100]
		}), []string{"cannot be decoded", "vanilla_proofs[1]"}},
		{"snap: other comm_r_new", edit(files[kindSnap], "s-comm", func(r *cuzkv1.SubmitProofRequest) { r.CommRNew[8] ^= 1 }),
			[]string{"REFUSED", "FAILED"}},
		{"snap: garbage partition proof", edit(files[kindSnap], "s-garbage", func(r *cuzkv1.SubmitProofRequest) {
			r.VanillaProofs[0] = []byte("\x00\xffnot bincode")
		}), []string{"REFUSED", "error: vanilla_proofs[0]", "FAILED: 1 of 1"}},
		{"snap: a comm_d_new of 31 bytes", edit(files[kindSnap], "s-short", func(r *cuzkv1.SubmitProofRequest) { r.CommDNew = r.CommDNew[:31] }),
			[]string{"cannot be decoded", "comm_d_new"}},
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
	if out, code := run(t, "check", "--request", files[kindWinning].req, "--partition", "1"); code != 2 || !strings.Contains(out, "partitions 0..0") {
		t.Errorf("--partition 1 of a WinningPoSt: exit %d: %s", code, out)
	}
}

func TestCircuitOfProof(t *testing.T) {
	for _, tc := range []struct {
		name, kind, id, err string
	}{
		{"StackedDrg2KiBV1_1", "", "porep-2k", ""},
		{"StackedDrgWinning32GiBV1", "", "winning-32g", ""},
		{"StackedDrgWindow8MiBV1_2", "", "wpost-8m", ""},
		{"StackedDrgWindow8MiBV1_1", "window-post", "wpost-8m", ""},
		{"StackedDrg2KiBV1", "snap", "snap-2k", ""},
		{"StackedDrg2KiBV1", "porep", "porep-2k", ""},
		{"StackedDrg2KiBV1", "", "", "give --kind porep or --kind snap"},
		{"StackedDrgWinning2KiBV1", "window-post", "", "is a WinningPoSt proof"},
		{"StackedDrg2KiBV1_1", "snap", "", "unknown registered update proof"},
		{"StackedDrg2KiB", "", "", "unknown registered seal proof"},
		{"StackedDrg2KiBV1_1", "wpost", "", "unknown registered PoSt proof"},
		{"StackedDrg2KiBV1_1", "junk", "", `--kind: "junk" is not a proof kind: want one of porep-c2, snap-update, window-post, winning-post`},
	} {
		c, err := circuitOfProof(tc.name, tc.kind)
		switch {
		case tc.err == "" && (err != nil || c.id != tc.id):
			t.Errorf("%s --kind %q: %s, %v; want %s", tc.name, tc.kind, c.id, err, tc.id)
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("%s --kind %q: %v; want an error containing %q", tc.name, tc.kind, err, tc.err)
		}
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"setup", "--proof-type", "StackedDrg2KiBV1"}, "give --kind porep or --kind snap"},
		{[]string{"setup", "--kind", "snap"}, "go with --proof-type"},
		{[]string{"setup", "--proof-type", "StackedDrgWinning2KiBV1", "--kind", "window-post"}, "is a WinningPoSt proof"},
	} {
		if out, code := run(t, tc.args...); code == 0 || !strings.Contains(out, tc.want) {
			t.Errorf("%v: exit %d, %q; want an error containing %q", tc.args, code, out, tc.want)
		}
	}
}

func TestDecodePublic(t *testing.T) {
	const sealed = `{"/":"bagboea4b5abcaam4vouj7wnvtzicuowdjspcpq6maqaqrq2w25zu6ui7lnho3jk4"}`
	for _, tc := range []struct {
		in, form, err string
	}{
		{`{"SealProof":5,"Miner":9}`, "SealVerifyInfo", ""},
		{`{"Randomness":null,"Proofs":[{"PoStProof":3,"ProofBytes":null}],"ChallengedSectors":[],"Prover":1}`, "WinningPoStVerifyInfo", ""},
		{`{"Proofs":[{"PoStProof":13}],"ChallengedSectors":null}`, "WindowPoStVerifyInfo", ""},
		{`{"proofs":[{"PoStProof":5}],"challengedsectors":null}`, "WindowPoStVerifyInfo", ""},
		{`{"UpdateProofType":3,"OldSealedSectorCID":` + sealed + `,"Proof":"AAAA"}`, "ReplicaUpdateInfo", ""},
		{`{}`, "", "has none of SealProof, ChallengedSectors, UpdateProofType"},
		{`[1]`, "", "not a SealVerifyInfo, WinningPoStVerifyInfo"},
		{`{"request_id":"x"}`, "", "has none of"},
		{`{"ChallengedSectors":[],"Proofs":[]}`, "", "Proofs: 0"},
		{`{"ChallengedSectors":[],"Proofs":[{"PoStProof":99}]}`, "", "Proofs[0].PoStProof 99"},
		{`{"ChallengedSectors":[],"Proofs":[{"PoStProof":1}],"Miner":3}`, "", "unknown field"},
		{`{"UpdateProofType":9}`, "", "UpdateProofType 9"},
		{`{"UpdateProofType":1,"SectorKey":null}`, "", "unknown field"},
		{`{"UpdateProofType":1} {}`, "", "after top-level value"},
	} {
		d, err := decodePublic([]byte(tc.in))
		switch {
		case tc.err == "" && (err != nil || d.form() != tc.form):
			t.Errorf("%s: %v, want a %s", tc.in, err, tc.form)
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("%s: %v, want an error containing %q", tc.in, err, tc.err)
		}
	}
	// A comm_d CID where comm_r_old goes decodes (a CID is a CID), but no
	// proof is valid for it.
	d, err := decodePublic([]byte(`{"UpdateProofType":1,"OldSealedSectorCID":{"/":"baga6ea4seaqpy7usqklokfx2vxuynmupslkeutzexe2uqurdg5vhtebhxqmpqmy"}}`))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d.inputs(); !errors.Is(err, errBadPublic) || !strings.Contains(err.Error(), "OldSealedSectorCID") {
		t.Errorf("inputs of a comm_d as comm_r_old: %v", err)
	}
}

func FuzzDecodePublic(f *testing.F) {
	f.Add([]byte(`{"SealProof":5,"Miner":9}`))
	f.Add([]byte(`{"Randomness":"AAAA","Proofs":[{"PoStProof":0,"ProofBytes":"AAAA"}],"ChallengedSectors":[{"SealProof":5,"SectorNumber":6,` +
		`"SealedCID":{"/":"bagboea4b5abcatoa7dx55hssubogndbwir5nbbqdq5k44qxn6gpm66zqsk2c5raa"}}],"Prover":1000}`))
	f.Add([]byte(`{"Proofs":[{"PoStProof":10}],"ChallengedSectors":[]}`))
	f.Add([]byte(`{"UpdateProofType":0,"OldSealedSectorCID":{"/":"bagboea4b5abca7llylgb64c36pxycxiddshjs56sxu3iciqx47no2ymew3u4wzia"},` +
		`"NewSealedSectorCID":null,"NewUnsealedSectorCID":{"/":"baga6ea4seaqhzto42xnx42epyr6yemni2qwyvms3aphchoxtgguvt3y7ypexiaa"},"Proof":null}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		d, err := decodePublic(b)
		if err != nil {
			return
		}
		js, err := json.Marshal(d)
		if err != nil {
			t.Fatal(err)
		}
		again, err := decodePublic(js)
		if err != nil || again.form() != d.form() {
			t.Fatalf("re-encoded %s does not decode as one: %v\n%s", d.form(), err, js)
		}
		if js2, _ := json.Marshal(again); !bytes.Equal(js, js2) {
			t.Fatalf("round trip changed it:\n%s\n%s", js, js2)
		}
		if d.form() == "SealVerifyInfo" {
			return // the PoRep inputs walk the whole graph: milliseconds each
		}
		if _, err := d.inputs(); err != nil && !errors.Is(err, errBadPublic) {
			t.Fatalf("inputs: %v is not errBadPublic", err)
		}
	})
}

// verify --public of the PoSt and SnapDeals forms refuses what no proof
// is valid for, and bad arguments, before any parameters are needed.
func TestVerifyPublicPoStSnapErrors(t *testing.T) {
	dir := t.TempDir()
	winning := genProof(t, dir, kindWinning, "StackedDrgWinning2KiBV1", "winning")
	window := genProof(t, dir, kindWindow, "StackedDrgWindow2KiBV1_2", "window", "--partition", "1")
	snap := genProof(t, dir, kindSnap, "StackedDrg2KiBV1", "snap")
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
	proofOf := func(name string, b []byte) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	zero := groth16.Proof{}.Bytes()
	one := proofOf("one.bin", zero[:])
	two := proofOf("two.bin", append(zero[:], zero[:]...))
	holes := proofOf("holes.bin", make([]byte, 2*groth16.ProofSize))
	badWinning := filepath.Join(dir, "bad-winning.json")
	d, err := readPublic(winning.public)
	if err != nil {
		t.Fatal(err)
	}
	d.(*winningData).v.Randomness = d.(*winningData).v.Randomness[:31]
	if err := writePublic(badWinning, d); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--public", winning.public, "--vk", vk}, 2, "has no proof"},
		{[]string{"--public", winning.public, "--params-dir", dir, "--proof", one}, 2, "no such file"},
		{[]string{"--public", winning.public, "--vk", vk, "--proof", one}, 1, "invalid"},
		{[]string{"--public", winning.public, "--vk", vk, "--proof", two}, 1, "want 1 partitions × 192"},
		{[]string{"--public", badWinning, "--vk", vk, "--proof", one}, 1, "Randomness: 31 bytes"},
		{[]string{"--public", window.public, "--vk", vk, "--proof", one}, 1, "one partition's proof: give --partition K"},
		{[]string{"--public", window.public, "--vk", vk, "--proof", holes}, 1, "partition 0 has no proof yet"},
		{[]string{"--public", window.public, "--vk", vk, "--proof", holes, "--partition", "1"}, 1, "partition 1 has no proof yet"},
		{[]string{"--public", window.public, "--vk", vk, "--proof", one, "--partition", "2"}, 2, "partitions 0..1"},
		{[]string{"--public", window.public, "--vk", vk, "--proof", one, "--partition", "-2"}, 2, "want a partition index"},
		{[]string{"--public", snap.public, "--vk", vk, "--proof", proofOf("short.bin", zero[:100])}, 1, "the proof has 100 bytes"},
		{[]string{"--public", snap.public, "--vk", vk, "--proof", proofOf("junk.bin", bytes.Repeat([]byte{0xa5}, groth16.ProofSize))}, 1, "invalid"},
		{[]string{"--public", snap.public, "--vk", vk, "--proof", one}, 1, "invalid"},
		{[]string{"--partition", "1"}, 2, "--partition goes with --public"},
	} {
		args := append([]string{"verify"}, tc.args...)
		if out, code := run(t, args...); code != tc.code || !strings.Contains(out, tc.want) {
			t.Errorf("%v: exit %d, %q; want exit %d containing %q", tc.args, code, out, tc.code, tc.want)
		}
	}
	// prove --request refuses public data of another kind before proving.
	if out, code := run(t, "prove", "--request", window.req, "--public", winning.public, "--params-dir", dir); code != 2 ||
		!strings.Contains(out, "is a WinningPoStVerifyInfo, the public data of WINNING_POST proofs, not of the request's WINDOW_POST_PARTITION") {
		t.Errorf("prove with another kind's public data: exit %d: %s", code, out)
	}
}
