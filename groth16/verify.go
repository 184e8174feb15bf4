package groth16

import (
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"math/big"

	"github.com/consensys/gnark-crypto/ecc"
	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// ErrInvalidProof reports a proof that fails verification.
var ErrInvalidProof = errors.New("groth16: invalid proof")

// ErrInputCount reports a public-input count that does not match |IC| − 1.
var ErrInputCount = errors.New("groth16: wrong number of public inputs")

// PreparedVerifyingKey holds what every verification reuses:
// e(α, β), and the Miller-loop lines of −γ and −δ.
type PreparedVerifyingKey struct {
	AlphaBeta bls12381.GT
	IC        []bls12381.G1Affine

	negGammaLines, negDeltaLines [2][len(bls12381.LoopCounter) - 1]bls12381.LineEvaluationAff
}

// PrepareVerifyingKey precomputes e(α, β) and the lines of −γ and −δ.
func PrepareVerifyingKey(vk *VerifyingKey) (*PreparedVerifyingKey, error) {
	if len(vk.IC) == 0 {
		return nil, errors.New("groth16: verifying key has no IC points")
	}
	ab, err := bls12381.Pair([]bls12381.G1Affine{vk.AlphaG1}, []bls12381.G2Affine{vk.BetaG2})
	if err != nil {
		return nil, fmt.Errorf("groth16: e(α, β): %w", err)
	}
	pvk := &PreparedVerifyingKey{AlphaBeta: ab, IC: vk.IC}
	var ng, nd bls12381.G2Affine
	ng.Neg(&vk.GammaG2)
	nd.Neg(&vk.DeltaG2)
	pvk.negGammaLines = bls12381.PrecomputeLines(ng)
	pvk.negDeltaLines = bls12381.PrecomputeLines(nd)
	return pvk, nil
}

// checkProofPoints rejects proofs built in memory with points off the
// curve, outside the subgroup or at infinity (decoded proofs are already
// checked).
func checkProofPoints(p *Proof) error {
	switch {
	case p.A.IsInfinity(), p.B.IsInfinity(), p.C.IsInfinity():
		return fmt.Errorf("%w: %w", ErrInvalidProof, ErrPointAtInfinity)
	case !p.A.IsInSubGroup(), !p.B.IsInSubGroup(), !p.C.IsInSubGroup():
		return fmt.Errorf("%w: %w", ErrInvalidProof, ErrNotInSubgroup)
	}
	return nil
}

// linearCombinationIC computes Σ_i s_i·IC_i (s has one scalar per IC point).
func linearCombinationIC(ic []bls12381.G1Affine, s []fr.Element) (bls12381.G1Affine, error) {
	var acc bls12381.G1Affine
	if _, err := acc.MultiExp(ic, s, ecc.MultiExpConfig{}); err != nil {
		return acc, err
	}
	return acc, nil
}

// Verify checks one proof (bellperson's verify_proof):
// e(A, B)·e(acc, −γ)·e(C, −δ) = e(α, β), acc = IC₀ + Σ xᵢ·IC_{i+1}.
func Verify(pvk *PreparedVerifyingKey, proof *Proof, inputs []fr.Element) error {
	if len(inputs)+1 != len(pvk.IC) {
		return fmt.Errorf("%w: %d inputs but the verifying key has %d IC points (want %d inputs)",
			ErrInputCount, len(inputs), len(pvk.IC), len(pvk.IC)-1)
	}
	if err := checkProofPoints(proof); err != nil {
		return err
	}
	s := make([]fr.Element, len(pvk.IC))
	s[0].SetOne()
	copy(s[1:], inputs)
	acc, err := linearCombinationIC(pvk.IC, s)
	if err != nil {
		return err
	}
	ml1, err := bls12381.MillerLoop([]bls12381.G1Affine{proof.A}, []bls12381.G2Affine{proof.B})
	if err != nil {
		return err
	}
	ml2, err := bls12381.MillerLoopFixedQ(
		[]bls12381.G1Affine{acc, proof.C},
		[][2][len(bls12381.LoopCounter) - 1]bls12381.LineEvaluationAff{pvk.negGammaLines, pvk.negDeltaLines})
	if err != nil {
		return err
	}
	ml1.Mul(&ml1, &ml2)
	if r := bls12381.FinalExponentiation(&ml1); !r.Equal(&pvk.AlphaBeta) {
		return ErrInvalidProof
	}
	return nil
}

// BatchVerify checks several proofs with one final exponentiation
// (bellperson's verify_proofs_batch, Zcash spec B.2): with random 128-bit
// zⱼ drawn from rnd (crypto/rand when nil),
//
//	FE(Πⱼ ML(zⱼ·Aⱼ, Bⱼ) · ML(Σⱼ zⱼ·accⱼ, −γ) · ML(Σⱼ zⱼ·Cⱼ, −δ)) = e(α, β)^(Σⱼ zⱼ).
//
// It returns ErrInvalidProof when the batch fails; it does not say which
// proof is bad (verify them one by one for that).
func BatchVerify(pvk *PreparedVerifyingKey, proofs []Proof, inputs [][]fr.Element, rnd io.Reader) error {
	if err := checkBatch(pvk, proofs, inputs); err != nil {
		return err
	}
	z, err := batchWeights(len(proofs), rnd)
	if err != nil {
		return err
	}

	// Σⱼ zⱼ·accⱼ as one MSM over IC: scalar Σⱼ zⱼ for IC₀ and Σⱼ zⱼ·xⱼ,ᵢ.
	s := make([]fr.Element, len(pvk.IC))
	var zsum, t fr.Element
	for j := range proofs {
		zsum.Add(&zsum, &z[j])
		for i := range inputs[j] {
			t.Mul(&z[j], &inputs[j][i])
			s[i+1].Add(&s[i+1], &t)
		}
	}
	s[0] = zsum
	acc, err := linearCombinationIC(pvk.IC, s)
	if err != nil {
		return err
	}

	// Σⱼ zⱼ·Cⱼ, and zⱼ·Aⱼ.
	cs := make([]bls12381.G1Affine, len(proofs))
	as := make([]bls12381.G1Affine, len(proofs))
	bs := make([]bls12381.G2Affine, len(proofs))
	for j := range proofs {
		cs[j] = proofs[j].C
		bs[j] = proofs[j].B
		var zb big.Int
		z[j].BigInt(&zb)
		as[j].ScalarMultiplication(&proofs[j].A, &zb)
	}
	var sumC bls12381.G1Affine
	if _, err := sumC.MultiExp(cs, z, ecc.MultiExpConfig{}); err != nil {
		return err
	}

	ml1, err := bls12381.MillerLoop(as, bs)
	if err != nil {
		return err
	}
	ml2, err := bls12381.MillerLoopFixedQ(
		[]bls12381.G1Affine{acc, sumC},
		[][2][len(bls12381.LoopCounter) - 1]bls12381.LineEvaluationAff{pvk.negGammaLines, pvk.negDeltaLines})
	if err != nil {
		return err
	}
	ml1.Mul(&ml1, &ml2)
	got := bls12381.FinalExponentiation(&ml1)

	var zb big.Int
	zsum.BigInt(&zb)
	var want bls12381.GT
	want.Exp(pvk.AlphaBeta, &zb)
	if !got.Equal(&want) {
		return ErrInvalidProof
	}
	return nil
}

// checkBatch checks the counts and the proofs' points of a batch.
func checkBatch(pvk *PreparedVerifyingKey, proofs []Proof, inputs [][]fr.Element) error {
	if len(proofs) == 0 {
		return errors.New("groth16: batch verify: no proofs")
	}
	if len(inputs) != len(proofs) {
		return fmt.Errorf("%w: %d proofs but %d input vectors", ErrInputCount, len(proofs), len(inputs))
	}
	for j := range proofs {
		if len(inputs[j])+1 != len(pvk.IC) {
			return fmt.Errorf("%w: proof %d has %d inputs but the verifying key has %d IC points (want %d inputs)",
				ErrInputCount, j, len(inputs[j]), len(pvk.IC), len(pvk.IC)-1)
		}
		if err := checkProofPoints(&proofs[j]); err != nil {
			return fmt.Errorf("proof %d: %w", j, err)
		}
	}
	return nil
}

// batchWeights draws the batch's random 128-bit weights from rnd (nil:
// crypto/rand); a zero weight becomes one.
func batchWeights(n int, rnd io.Reader) ([]fr.Element, error) {
	if rnd == nil {
		rnd = rand.Reader
	}
	z := make([]fr.Element, n)
	var buf [16]byte
	for j := range z {
		if _, err := io.ReadFull(rnd, buf[:]); err != nil {
			return nil, fmt.Errorf("groth16: batch verify: drawing weights: %w", err)
		}
		var v big.Int
		v.SetBytes(buf[:])
		z[j].SetBigInt(&v)
		if z[j].IsZero() {
			z[j].SetOne()
		}
	}
	return z, nil
}
