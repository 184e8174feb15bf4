package aggregate

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"math/big"
	"testing"

	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-project/cuzk/filecoin"
	"github.com/cuzk-project/cuzk/groth16"
	snarkpack "github.com/cuzk-project/cuzk/groth16/aggregate"
)

// simulator makes valid Groth16 proofs for any public inputs without a
// circuit: it knows the verifying key's trapdoor (α, β, γ, δ and the
// discrete logs u of IC), so for random a, b it sets A = g^a, B = h^b and
// C = g^((ab − αβ − γ·(u₀ + Σ xᵢuᵢ))/δ), which satisfies
// e(A, B) = e(α, β)·e(IC₀ + Σ xᵢ·ICᵢ₊₁, γ)·e(C, δ). A real 2 KiB PoRep C2
// takes most of a minute per sector; these take microseconds and are as
// good for the aggregate, which sees only the three points and the inputs.
type simulator struct {
	alpha, beta, gamma, delta fr.Element
	u                         []fr.Element
	vk                        groth16.VerifyingKey
	counter                   uint64
}

func newSimulator(inputs int, seed string) *simulator {
	s := &simulator{}
	s.alpha, s.beta, s.gamma, s.delta = scalar(seed, "alpha"), scalar(seed, "beta"), scalar(seed, "gamma"), scalar(seed, "delta")
	s.u = make([]fr.Element, inputs+1)
	for i := range s.u {
		s.u[i] = scalar(seed, fmt.Sprint("u", i))
	}
	_, _, g, h := bls12381.Generators()
	s.vk = groth16.VerifyingKey{
		AlphaG1: g1(&g, &s.alpha), BetaG1: g1(&g, &s.beta), DeltaG1: g1(&g, &s.delta),
		BetaG2: g2(&h, &s.beta), GammaG2: g2(&h, &s.gamma), DeltaG2: g2(&h, &s.delta),
		IC: bls12381.BatchScalarMultiplicationG1(&g, s.u),
	}
	return s
}

// prove returns a fresh proof for x (without ONE).
func (s *simulator) prove(x []fr.Element) groth16.Proof {
	s.counter++
	a, b := scalar("proof", fmt.Sprint("a", s.counter)), scalar("proof", fmt.Sprint("b", s.counter))
	acc := s.u[0]
	for i := range x {
		var t fr.Element
		t.Mul(&x[i], &s.u[i+1])
		acc.Add(&acc, &t)
	}
	var c, t, dInv fr.Element
	c.Mul(&a, &b)
	t.Mul(&s.alpha, &s.beta)
	c.Sub(&c, &t)
	t.Mul(&s.gamma, &acc)
	c.Sub(&c, &t)
	dInv.Inverse(&s.delta)
	c.Mul(&c, &dInv)
	_, _, g, h := bls12381.Generators()
	return groth16.Proof{A: g1(&g, &a), B: g2(&h, &b), C: g1(&g, &c)}
}

// proveSeal returns a sector's C2 proof bytes: one proof per partition of
// its public inputs.
func (s *simulator) proveSeal(t testing.TB, v *filecoin.SealVerifyInfo) []byte {
	t.Helper()
	b, err := newBatch([]filecoin.SealVerifyInfo{*v})
	if err != nil {
		t.Fatal(err)
	}
	in, err := b.seals[0].Inputs()
	if err != nil {
		t.Fatal(err)
	}
	var out []byte
	for k := range in {
		p := s.prove(in[k])
		pb := p.Bytes()
		out = append(out, pb[:]...)
	}
	return out
}

func scalar(seed, label string) fr.Element {
	h := sha256.Sum256([]byte(seed + "/" + label))
	var x fr.Element
	x.SetBytes(h[:])
	return x
}

func g1(g *bls12381.G1Affine, x *fr.Element) bls12381.G1Affine {
	var p bls12381.G1Affine
	p.ScalarMultiplication(g, x.BigInt(new(big.Int)))
	return p
}

func g2(h *bls12381.G2Affine, x *fr.Element) bls12381.G2Affine {
	var p bls12381.G2Affine
	p.ScalarMultiplication(h, x.BigInt(new(big.Int)))
	return p
}

// testSeal is sector number of miner 1000 sealed with proof, its ticket,
// seed and commitments derived from tag and number.
func testSeal(proof filecoin.SealProof, number uint64, tag string) filecoin.SealVerifyInfo {
	v := filecoin.SealVerifyInfo{SealProof: proof, SectorID: filecoin.SectorID{Miner: 1000, Number: number}}
	var n [8]byte
	binary.BigEndian.PutUint64(n[:], number)
	field := func(label string) [32]byte {
		b := sha256.Sum256(append([]byte(tag+"/"+label+"/"), n[:]...))
		b[31] &= 0x3f // a field element, little-endian
		return b
	}
	ticket, seed := field("ticket"), field("seed")
	v.Randomness, v.InteractiveRandomness = ticket[:], seed[:]
	v.SealedCID = filecoin.SealedCID(field("comm_r"))
	v.UnsealedCID = filecoin.UnsealedCID(field("comm_d"))
	return v
}

// testBatch is n sectors of proof, their simulated proofs and a simulator
// whose key verifies them.
func testBatch(t testing.TB, proof filecoin.SealProof, n int) (*simulator, []filecoin.SealVerifyInfo, [][]byte) {
	t.Helper()
	seals := make([]filecoin.SealVerifyInfo, n)
	for i := range seals {
		seals[i] = testSeal(proof, uint64(100+i), t.Name())
	}
	b, err := newBatch(seals[:1])
	if err != nil {
		t.Fatal(err)
	}
	in, err := b.seals[0].Inputs()
	if err != nil {
		t.Fatal(err)
	}
	sim := newSimulator(len(in[0]), "filecoin/aggregate tests")
	proofs := make([][]byte, n)
	for i := range seals {
		proofs[i] = sim.proveSeal(t, &seals[i])
	}
	return sim, seals, proofs
}

// devSRS is a development SRS for n padded proofs.
func devSRS(t testing.TB, n int) *snarkpack.SRS {
	t.Helper()
	s, err := snarkpack.DevSRS([]byte("filecoin/aggregate tests"), n)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestSimulatedProofsVerify: the fixture's proofs are valid Groth16 proofs
// of the seals' inputs, so the aggregate tests test aggregation and not a
// broken fixture.
func TestSimulatedProofsVerify(t *testing.T) {
	sim, seals, proofs := testBatch(t, filecoin.StackedDrg2KiBV1_1, 2)
	pvk, err := groth16.PrepareVerifyingKey(&sim.vk)
	if err != nil {
		t.Fatal(err)
	}
	for i := range seals {
		b, _ := newBatch(seals[i : i+1])
		in, err := b.seals[0].Inputs()
		if err != nil {
			t.Fatal(err)
		}
		ps, err := groth16.DecodeProofs(proofs[i])
		if err != nil {
			t.Fatal(err)
		}
		if err := groth16.BatchVerify(pvk, ps, in, nil); err != nil {
			t.Fatalf("sector %d: %v", i, err)
		}
		other, _ := newBatch(seals[1-i : 2-i])
		oin, _ := other.seals[0].Inputs()
		if err := groth16.BatchVerify(pvk, ps, oin, nil); err == nil {
			t.Fatalf("sector %d's proof verifies with sector %d's inputs", i, 1-i)
		}
	}
}
