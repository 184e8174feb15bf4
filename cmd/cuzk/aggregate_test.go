package main

import (
	"crypto/sha256"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-project/cuzk/circuits/porep"
	"github.com/cuzk-project/cuzk/filecoin"
	"github.com/cuzk-project/cuzk/groth16"
)

// sealSimulator makes valid Groth16 proofs of any public inputs from a
// verifying key whose trapdoor it knows (A = g^a, B = h^b, C =
// g^((ab − αβ − γ·(u₀ + Σxᵢuᵢ))/δ), ICᵢ = g^(uᵢ)), so the command tests
// aggregate valid seal proofs without the minute a 2 KiB C2 takes.
type sealSimulator struct {
	alpha, beta, gamma, delta fr.Element
	u                         []fr.Element
	vk                        groth16.VerifyingKey
	n                         int
}

func simScalar(label string) fr.Element {
	h := sha256.Sum256([]byte("cmd/cuzk aggregate tests/" + label))
	var x fr.Element
	x.SetBytes(h[:])
	return x
}

func simG1(x fr.Element) bls12381.G1Affine {
	_, _, g, _ := bls12381.Generators()
	var p bls12381.G1Affine
	return *p.ScalarMultiplication(&g, x.BigInt(new(big.Int)))
}

func simG2(x fr.Element) bls12381.G2Affine {
	_, _, _, h := bls12381.Generators()
	var p bls12381.G2Affine
	return *p.ScalarMultiplication(&h, x.BigInt(new(big.Int)))
}

func newSealSimulator(inputs int) *sealSimulator {
	s := &sealSimulator{alpha: simScalar("alpha"), beta: simScalar("beta"), gamma: simScalar("gamma"), delta: simScalar("delta")}
	s.u = make([]fr.Element, inputs+1)
	for i := range s.u {
		s.u[i] = simScalar(fmt.Sprint("u", i))
	}
	s.vk = groth16.VerifyingKey{AlphaG1: simG1(s.alpha), BetaG1: simG1(s.beta), DeltaG1: simG1(s.delta),
		BetaG2: simG2(s.beta), GammaG2: simG2(s.gamma), DeltaG2: simG2(s.delta)}
	for _, u := range s.u {
		s.vk.IC = append(s.vk.IC, simG1(u))
	}
	return s
}

// prove returns the C2 proof bytes of v: one simulated proof per
// partition of its public inputs.
func (s *sealSimulator) prove(t *testing.T, v *filecoin.SealVerifyInfo) []byte {
	t.Helper()
	seal, err := porep.SealOf(v)
	if err != nil {
		t.Fatal(err)
	}
	inputs, err := seal.Inputs()
	if err != nil {
		t.Fatal(err)
	}
	var out []byte
	for _, x := range inputs {
		s.n++
		a, b := simScalar(fmt.Sprint("a", s.n)), simScalar(fmt.Sprint("b", s.n))
		acc := s.u[0]
		for i := range x {
			var m fr.Element
			m.Mul(&x[i], &s.u[i+1])
			acc.Add(&acc, &m)
		}
		var c, m, dInv fr.Element
		c.Mul(&a, &b)
		m.Mul(&s.alpha, &s.beta)
		c.Sub(&c, &m)
		m.Mul(&s.gamma, &acc)
		c.Sub(&c, &m)
		dInv.Inverse(&s.delta)
		c.Mul(&c, &dInv)
		p := groth16.Proof{A: simG1(a), B: simG2(b), C: simG1(c)}
		pb := p.Bytes()
		out = append(out, pb[:]...)
	}
	return out
}

// aggregateBatch writes n 2 KiB sectors' SealVerifyInfo files (by
// gen-vanilla) and their simulated proofs into dir, and the simulator's
// key as sim.vk.
func aggregateBatch(t *testing.T, dir string, n int) (seals, proofs []string, vk string) {
	t.Helper()
	var sim *sealSimulator
	for i := range n {
		sub := filepath.Join(dir, fmt.Sprint("s", i))
		if err := os.MkdirAll(sub, 0o755); err != nil {
			t.Fatal(err)
		}
		f := genPoRep(t, sub, "StackedDrg2KiBV1_1", "--seed", fmt.Sprint(10+i), "--sector", fmt.Sprint(100+i))
		v, err := readSeal(f.seal)
		if err != nil {
			t.Fatal(err)
		}
		if sim == nil {
			seal, _ := porep.SealOf(v)
			in, err := seal.Inputs()
			if err != nil {
				t.Fatal(err)
			}
			sim = newSealSimulator(len(in[0]))
		}
		p := filepath.Join(dir, fmt.Sprintf("p%d.bin", i))
		if err := os.WriteFile(p, sim.prove(t, v), 0o644); err != nil {
			t.Fatal(err)
		}
		seals, proofs = append(seals, f.seal), append(proofs, p)
	}
	vk = filepath.Join(dir, "sim.vk")
	if err := groth16.WriteVerifyingKey(vk, &sim.vk); err != nil {
		t.Fatal(err)
	}
	return seals, proofs, vk
}

func list(files ...string) string { return strings.Join(files, ",") }

// TestAggregateCommand: cuzk aggregate writes a verified aggregate of 4
// and of 5 sectors (padded) under a development SRS; cuzk verify
// --aggregate answers valid for the batch in its order and invalid (exit
// 1) for another order, a flipped byte or another sector's data.
func TestAggregateCommand(t *testing.T) {
	dir := t.TempDir()
	params := filepath.Join(dir, "params")
	seals, proofs, vk := aggregateBatch(t, dir, 5)
	agg4, agg5 := filepath.Join(dir, "agg4.bin"), filepath.Join(dir, "agg5.bin")

	out, code := run(t, "aggregate", "--public", list(seals[:4]...), "--proofs", list(proofs[:4]...),
		"--params-dir", params, "--vk", vk, "--out", agg4, "--dev-srs")
	if code != 0 || !strings.Contains(out, "DEVELOPMENT SRS") || !strings.Contains(out, "never use it for mainnet") ||
		!strings.Contains(out, "4 partition proofs, padded to 4") {
		t.Fatalf("aggregate of 4: exit %d: %s", code, out)
	}
	// 5 sectors, the proofs in the public files this time.
	for i := range seals {
		v, err := readSeal(seals[i])
		if err != nil {
			t.Fatal(err)
		}
		v.Proof = mustRead(t, proofs[i])
		if err := writeSeal(seals[i], v); err != nil {
			t.Fatal(err)
		}
	}
	out, code = run(t, "aggregate", "--public", list(seals...), "--params-dir", params, "--vk", vk, "--out", agg5, "--dev-srs")
	if code != 0 || !strings.Contains(out, "exists; using it") || !strings.Contains(out, "5 partition proofs, padded to 8") {
		t.Fatalf("aggregate of 5: exit %d: %s", code, out)
	}

	verify := func(agg string, public ...string) (string, int) {
		return run(t, "verify", "--aggregate", agg, "--public", list(public...), "--params-dir", params, "--vk", vk)
	}
	for _, c := range []struct {
		name   string
		agg    string
		public []string
	}{
		{"4 sectors", agg4, seals[:4]},
		{"5 sectors", agg5, seals},
	} {
		if out, code := verify(c.agg, c.public...); code != 0 || !strings.HasPrefix(out, "valid") {
			t.Errorf("verify --aggregate, %s: exit %d: %s", c.name, code, out)
		}
	}
	flipped := filepath.Join(dir, "flipped.bin")
	b := mustRead(t, agg5)
	b[len(b)/2] ^= 1
	if err := os.WriteFile(flipped, b, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name   string
		agg    string
		public []string
	}{
		{"sectors 1 and 2 swapped", agg4, []string{seals[0], seals[2], seals[1], seals[3]}},
		{"another sector in place of the last", agg4, []string{seals[0], seals[1], seals[2], seals[4]}},
		{"one sector more", agg4, seals},
		{"a flipped byte", flipped, seals},
		{"another batch's aggregate", agg5, seals[:4]},
	} {
		if out, code := verify(c.agg, c.public...); code != 1 || !strings.HasPrefix(out, "invalid") {
			t.Errorf("verify --aggregate, %s: exit %d, want 1: %s", c.name, code, out)
		}
	}
}

// TestAggregateCommandErrors: bad input gets exit 2 and a message naming
// what is wrong; nothing is written.
func TestAggregateCommandErrors(t *testing.T) {
	dir := t.TempDir()
	params := filepath.Join(dir, "params")
	seals, proofs, vk := aggregateBatch(t, dir, 4)
	short := filepath.Join(dir, "short.bin")
	if err := os.WriteFile(short, mustRead(t, proofs[2])[:100], 0o644); err != nil {
		t.Fatal(err)
	}
	window := filepath.Join(dir, "window.json")
	if err := os.WriteFile(window, []byte(`{"Randomness":"AA==","Proofs":[{"PoStProof":5,"ProofBytes":null}],"ChallengedSectors":[],"Prover":1000}`), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "agg.bin")
	base := []string{"--params-dir", params, "--vk", vk, "--out", out, "--dev-srs"}
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"no SRS", []string{"aggregate", "--public", list(seals...), "--proofs", list(proofs...), "--params-dir", params, "--vk", vk, "--out", out},
			"--dev-srs writes a development one"},
		{"no --public", append([]string{"aggregate"}, base...), "give --public"},
		{"--check-srs of a development SRS", append([]string{"aggregate", "--public", list(seals...), "--proofs", list(proofs...), "--check-srs"}, base...),
			"--check-srs: aggregate: not the mainnet SnarkPack SRS"},
		{"3 proofs for 4 sectors", append([]string{"aggregate", "--public", list(seals...), "--proofs", list(proofs[:3]...)}, base...),
			"--proofs has 3 files, --public 4"},
		{"no proofs anywhere", append([]string{"aggregate", "--public", list(seals...)}, base...), "has no proof"},
		{"a short proof", append([]string{"aggregate", "--public", list(seals...), "--proofs", list(proofs[0], proofs[1], short, proofs[3])}, base...),
			"sector 2 (number 102): proof has 100 bytes, want 1 partitions × 192"},
		{"proofs of sectors 0 and 1 swapped", append([]string{"aggregate", "--public", list(seals...), "--proofs", list(proofs[1], proofs[0], proofs[2], proofs[3])}, base...),
			"proofs that do not verify on their own: sector 0 (number 100)"},
		{"a WindowPoSt file", append([]string{"aggregate", "--public", list(seals[0], window, seals[2], seals[3]), "--proofs", list(proofs...)}, base...),
			"aggregation takes SealVerifyInfo files"},
		{"verify --aggregate without --public", []string{"verify", "--aggregate", out, "--params-dir", params}, "--aggregate needs --public"},
		{"verify --aggregate with --partition", []string{"verify", "--aggregate", out, "--public", seals[0], "--partition", "0"}, "--partition does not go with --aggregate"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, code := run(t, c.args...)
			if code != 2 || !strings.Contains(got, c.want) {
				t.Fatalf("exit %d, want 2 and %q: %s", code, c.want, got)
			}
			if _, err := os.Stat(out); err == nil {
				t.Fatalf("%s was written", out)
			}
		})
	}
}

// TestAggregateEndToEnd: four 2 KiB sectors proven by cuzk prove (real
// Groth16 proofs under the development parameters), aggregated and
// verified by the commands. Minutes: without -short.
func TestAggregateEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("proves four 2 KiB PoRep C2s: without -short")
	}
	params := testParamsDir(t)
	info, _ := filecoin.StackedDrg2KiBV1_1.Info()
	if _, err := os.Stat(filepath.Join(params, info.ParamsFile())); err != nil {
		if out, code := run(t, "setup", "--proof-type", "StackedDrg2KiBV1_1", "--params-dir", params); code != 0 {
			t.Fatalf("setup: exit %d: %s", code, out)
		}
	}
	dir := t.TempDir()
	srsDir := filepath.Join(dir, "srs") // the dev SRS stays out of the shared parameter directory
	var seals []string
	for i := range 4 {
		sub := filepath.Join(dir, fmt.Sprint("s", i))
		if err := os.MkdirAll(sub, 0o755); err != nil {
			t.Fatal(err)
		}
		f := genPoRep(t, sub, "StackedDrg2KiBV1_1", "--seed", fmt.Sprint(20+i), "--sector", fmt.Sprint(200+i))
		t0 := time.Now()
		if out, code := run(t, "prove", "--request", f.req, "--out", filepath.Join(sub, "proof.bin"), "--public", f.seal,
			"--params-dir", params, "--budget", "8"); code != 0 {
			t.Fatalf("prove sector %d: exit %d: %s", i, code, out)
		}
		t.Logf("sector %d proven in %v", i, time.Since(t0).Round(time.Second))
		seals = append(seals, f.seal)
	}
	vk := filepath.Join(params, info.VKFile())
	agg := filepath.Join(dir, "agg.bin")
	if out, code := run(t, "aggregate", "--public", list(seals...), "--params-dir", srsDir, "--vk", vk, "--out", agg, "--dev-srs"); code != 0 {
		t.Fatalf("aggregate: exit %d: %s", code, out)
	}
	if out, code := run(t, "verify", "--aggregate", agg, "--public", list(seals...), "--params-dir", srsDir, "--vk", vk); code != 0 || !strings.HasPrefix(out, "valid") {
		t.Fatalf("verify --aggregate: exit %d: %s", code, out)
	}
	swapped := list(seals[1], seals[0], seals[2], seals[3])
	if out, code := run(t, "verify", "--aggregate", agg, "--public", swapped, "--params-dir", srsDir, "--vk", vk); code != 1 {
		t.Fatalf("verify --aggregate, sectors swapped: exit %d, want 1: %s", code, out)
	}
}
