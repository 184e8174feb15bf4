package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cuzk-project/cuzk/client"
	"github.com/cuzk-project/cuzk/filecoin"
	"github.com/cuzk-project/cuzk/groth16"
	cuzkv1 "github.com/cuzk-project/cuzk/proto/cuzk/v1"
)

// WinningPoSt, WindowPoSt and SnapDeals from end to end at 2 KiB (8 MiB
// without -short): gen-vanilla → setup (dev parameters, kept in
// testParamsDir) → a production daemon (no --dev, the parameters in its
// param_cache) proving each request over gRPC as Curio's client sends it →
// verify --public valid; a flipped byte of the proof, the randomness or a
// comm_r → invalid. WindowPoSt proves the second partition of a
// two-partition deadline. Bad requests before each get InvalidArgument and
// the daemon serves on. At 2 KiB also check, and prove --request in
// process filling the public data (both partitions of the deadline, one
// request each).
func TestPoStSnapEndToEnd(t *testing.T) {
	for _, sz := range []struct {
		name      string // the sector size in the proof names
		inProcess bool
		long      bool
		budget    uint64 // the daemon's: a SnapDeals 8 MiB partition reserves 9.9 GB beside its 4.3 GB of parameters
	}{
		{"2KiB", true, false, 8 << 30},
		{"8MiB", false, true, 16 << 30},
	} {
		t.Run(sz.name, func(t *testing.T) {
			if sz.long && testing.Short() {
				t.Skip("8 MiB: without -short (the SnapDeals setup is 10 M rows)")
			}
			postSnapEndToEnd(t, sz.name, sz.inProcess, sz.budget)
		})
	}
}

// e2eProof is one kind's generated request and how it is proven.
type e2eProof struct {
	kind, proofType string
	files           proofFiles
	partition       int // WindowPoSt: the request's partition; -1 the whole proof
}

func postSnapEndToEnd(t *testing.T, size string, inProcess bool, budget uint64) {
	params := testParamsDir(t)
	dir := t.TempDir()
	proofs := []*e2eProof{
		{kind: kindWinning, proofType: "StackedDrgWinning" + size + "V1", partition: -1},
		{kind: kindWindow, proofType: "StackedDrgWindow" + size + "V1_2", partition: 1},
		{kind: kindSnap, proofType: "StackedDrg" + size + "V1", partition: -1},
	}
	if raceEnabled {
		// The race detector makes the 1.7 M-row SnapDeals circuit minutes
		// per proof; the PoSt requests take the same daemon paths.
		proofs, inProcess = proofs[:2], false
	}
	for _, p := range proofs {
		args := []string{"--seed", "3"}
		if p.kind == kindWindow { // a deadline of two partitions
			args = append(args, "--sectors", "1-4", "--partition", "1")
		}
		t0 := time.Now()
		p.files = genProof(t, dir, p.kind, p.proofType, p.kind, args...)
		t.Logf("%s gen-vanilla: %v", p.proofType, time.Since(t0).Round(time.Millisecond))
		c, err := lookupProof(p.kind, p.proofType)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(filepath.Join(params, c.paramsFile)); err != nil {
			t0 := time.Now()
			if out, code := run(t, "setup", "--proof-type", p.proofType, "--kind", p.kind, "--params-dir", params); code != 0 {
				t.Fatalf("setup %s: exit %d: %s", p.proofType, code, out)
			}
			t.Logf("%s setup (%s): %v", p.proofType, c.id, time.Since(t0).Round(time.Second))
		}
	}
	if inProcess {
		inProcessPoStSnap(t, dir, params, proofs)
	}

	c, _ := startParamsDaemon(t, params, false, budget)
	for _, p := range proofs {
		t.Run(p.kind, func(t *testing.T) { daemonPoStSnap(t, c, dir, params, p) })
	}
}

// inProcessPoStSnap checks each request and proves it with prove
// --request --public; the deadline's partition 0 is generated and proven
// too, into the same public data, which then verifies whole.
func inProcessPoStSnap(t *testing.T, dir, params string, proofs []*e2eProof) {
	for _, p := range proofs {
		if out, code := run(t, "check", "--request", p.files.req); code != 0 || !strings.Contains(out, "all satisfied") {
			t.Fatalf("check %s: exit %d\n%s", p.proofType, code, out)
		}
		public := filepath.Join(dir, p.kind+"-inprocess.json")
		if err := os.WriteFile(public, mustRead(t, p.files.public), 0o644); err != nil {
			t.Fatal(err)
		}
		reqs := []string{p.files.req}
		if p.kind == kindWindow {
			first := genProof(t, t.TempDir(), kindWindow, p.proofType, "first", "--seed", "3", "--sectors", "1-4", "--partition", "0")
			if string(mustRead(t, first.public)) != string(mustRead(t, p.files.public)) {
				t.Fatal("partition 0's public data is not partition 1's: not one deadline")
			}
			reqs = append(reqs, first.req)
		}
		for i, req := range reqs {
			t0 := time.Now()
			out, code := run(t, "prove", "--request", req, "--out", filepath.Join(dir, p.kind+".bin"), "--public", public,
				"--params-dir", params, "--budget", "8")
			if code != 0 || !strings.Contains(out, "verified against it") {
				t.Fatalf("prove --request %s: exit %d: %s", req, code, out)
			}
			t.Logf("%s prove in process: %v", p.proofType, time.Since(t0).Round(time.Millisecond))
			if p.kind == kindWindow && i == 0 {
				// Partition 1 alone so far.
				if out, code := run(t, "verify", "--public", public, "--params-dir", params); code != 1 || !strings.Contains(out, "partition 0 has no proof yet") {
					t.Errorf("verify of the half-proven deadline: exit %d: %s", code, out)
				}
				if out, code := run(t, "verify", "--public", public, "--params-dir", params, "--partition", "1"); code != 0 || !strings.HasPrefix(out, "valid") {
					t.Errorf("verify --partition 1: exit %d: %s", code, out)
				}
			}
		}
		if out, code := run(t, "verify", "--public", public, "--params-dir", params); code != 0 || !strings.HasPrefix(out, "valid") {
			t.Errorf("verify --public of the in-process %s proof: exit %d: %s", p.proofType, code, out)
		}
	}
}

// daemonPoStSnap sends bad requests (InvalidArgument each), then the
// request, verifies the proof from the public data and flips bytes of it.
func daemonPoStSnap(t *testing.T, c *client.Client, dir, params string, p *e2eProof) {
	req, err := readRequest(p.files.req)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel()
	rejectEach(ctx, t, c, req, badRequests(p.kind))
	t0 := time.Now()
	res, err := c.Prove(ctx, req)
	if err != nil {
		t.Fatalf("daemon Prove: %v", err)
	}
	t.Logf("%s prove through the daemon: %v (synthesis %d ms, device %d ms)", p.proofType, time.Since(t0).Round(time.Millisecond),
		res.SynthesisMs, res.GpuComputeMs)
	d, err := readPublic(p.files.public)
	if err != nil {
		t.Fatal(err)
	}
	in, err := d.inputs()
	if err != nil {
		t.Fatal(err)
	}
	want := len(in) * groth16.ProofSize
	if p.partition >= 0 {
		want = groth16.ProofSize
	}
	if len(res.Proof) != want {
		t.Fatalf("daemon proof: %d bytes, want %d", len(res.Proof), want)
	}
	proof := filepath.Join(dir, p.kind+"-daemon.bin")
	if err := os.WriteFile(proof, res.Proof, 0o644); err != nil {
		t.Fatal(err)
	}
	verify := func(public string) (string, int) {
		args := []string{"verify", "--public", public, "--params-dir", params, "--proof", proof}
		if p.partition >= 0 {
			args = append(args, "--partition", "1")
		}
		return run(t, args...)
	}
	if out, code := verify(p.files.public); code != 0 || !strings.HasPrefix(out, "valid") {
		t.Fatalf("verify --public of the daemon's proof: exit %d: %s", code, out)
	}
	for _, flip := range publicFlips(p.kind) {
		d, err := readPublic(p.files.public)
		if err != nil {
			t.Fatal(err)
		}
		flip.edit(t, d)
		path := filepath.Join(dir, p.kind+"-flipped-"+flip.name+".json")
		if err := writePublic(path, d); err != nil {
			t.Fatal(err)
		}
		if out, code := verify(path); code != 1 || !strings.HasPrefix(out, "invalid") {
			t.Errorf("a flipped byte of the %s: exit %d: %s", flip.name, code, out)
		}
	}
	flipped := append([]byte(nil), res.Proof...)
	flipped[100] ^= 1
	if err := os.WriteFile(proof, flipped, 0o644); err != nil {
		t.Fatal(err)
	}
	if out, code := verify(p.files.public); code != 1 || !strings.HasPrefix(out, "invalid") {
		t.Errorf("a flipped byte of the proof: exit %d: %s", code, out)
	}
}

type requestEdit struct {
	name string
	edit func(r *cuzkv1.SubmitProofRequest)
}

// badRequests are requests of kind that the daemon must refuse before
// proving anything.
func badRequests(kind string) []requestEdit {
	garbage := []byte("\x00\xffnot bincode")
	switch kind {
	case kindWinning:
		return []requestEdit{
			{"other randomness", func(r *cuzkv1.SubmitProofRequest) { r.Randomness[0] ^= 1 }},
			{"garbage vanilla proof", func(r *cuzkv1.SubmitProofRequest) { r.VanillaProofs[0] = garbage }},
			{"two sectors", func(r *cuzkv1.SubmitProofRequest) { r.VanillaProofs = append(r.VanillaProofs, r.VanillaProofs[0]) }},
			{"a WindowPoSt proof id", func(r *cuzkv1.SubmitProofRequest) { r.RegisteredProof += 10 }},
		}
	case kindWindow:
		return []requestEdit{
			{"other randomness", func(r *cuzkv1.SubmitProofRequest) { r.Randomness[3] ^= 1 }},
			{"truncated sector proof", func(r *cuzkv1.SubmitProofRequest) { r.VanillaProofs[1] = r.VanillaProofs[1][:100] }},
			{"no sectors", func(r *cuzkv1.SubmitProofRequest) { r.VanillaProofs = nil }},
			{"a sector twice", func(r *cuzkv1.SubmitProofRequest) { r.VanillaProofs[1] = r.VanillaProofs[0] }},
			{"randomness of 31 bytes", func(r *cuzkv1.SubmitProofRequest) { r.Randomness = r.Randomness[:31] }},
		}
	}
	return []requestEdit{
		{"other comm_r_new", func(r *cuzkv1.SubmitProofRequest) { r.CommRNew[0] ^= 1 }},
		{"other comm_r_old", func(r *cuzkv1.SubmitProofRequest) { r.CommROld[0] ^= 1 }},
		{"comm_d_new cut short", func(r *cuzkv1.SubmitProofRequest) { r.CommDNew = r.CommDNew[:31] }},
		{"garbage partition proof", func(r *cuzkv1.SubmitProofRequest) { r.VanillaProofs[0] = garbage }},
		{"no partition proofs", func(r *cuzkv1.SubmitProofRequest) { r.VanillaProofs = nil }},
	}
}

type publicFlip struct {
	name string
	edit func(t *testing.T, d publicData)
}

// flipCommR flips the low byte of a comm_r CID's digest.
func flipCommR(t *testing.T, c *filecoin.CID) {
	r, err := c.CommR()
	if err != nil {
		t.Fatal(err)
	}
	r[0] ^= 1
	*c = filecoin.SealedCID(r)
}

// publicFlips change one byte of the public data of kind.
func publicFlips(kind string) []publicFlip {
	switch kind {
	case kindWinning:
		return []publicFlip{
			{"randomness", func(_ *testing.T, d publicData) { d.(*winningData).v.Randomness[0] ^= 1 }},
			{"comm_r", func(t *testing.T, d publicData) { flipCommR(t, &d.(*winningData).v.ChallengedSectors[0].SealedCID) }},
		}
	case kindWindow:
		return []publicFlip{
			{"randomness", func(_ *testing.T, d publicData) { d.(*windowData).v.Randomness[0] ^= 1 }},
			// Sector 3 is partition 1's first.
			{"comm_r", func(t *testing.T, d publicData) { flipCommR(t, &d.(*windowData).v.ChallengedSectors[2].SealedCID) }},
		}
	}
	return []publicFlip{
		{"comm_r_old", func(t *testing.T, d publicData) { flipCommR(t, &d.(*snapData).v.OldSealedSectorCID) }},
		{"comm_r_new", func(t *testing.T, d publicData) { flipCommR(t, &d.(*snapData).v.NewSealedSectorCID) }},
		{"comm_d_new", func(t *testing.T, d publicData) {
			c := &d.(*snapData).v.NewUnsealedSectorCID
			b, err := c.CommD()
			if err != nil {
				t.Fatal(err)
			}
			b[0] ^= 1
			*c = filecoin.UnsealedCID(b)
		}},
	}
}
