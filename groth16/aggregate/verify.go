package aggregate

import (
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"math/big"
	"slices"

	"github.com/consensys/gnark-crypto/ecc"
	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-project/cuzk/groth16"
)

// ErrInvalid reports an aggregate that fails verification.
var ErrInvalid = errors.New("aggregate: invalid aggregate proof")

// Verify checks p against the Groth16 verifying key gvk, the public inputs
// of every aggregated proof (inputs[i] for proof i, without ONE) and the
// transcript bytes include given to Aggregate (bellperson's
// verify_aggregate_proof, V2). rnd seeds the random weights that merge the
// pairing checks into one final exponentiation (crypto/rand if nil). It
// returns nil, ErrInvalid for an aggregate that fails, or an error naming
// an input that does not fit.
func Verify(vk *VerifierKey, gvk *groth16.VerifyingKey, inputs [][]fr.Element, p *Proof, include []byte, rnd io.Reader) error {
	if err := checkVerifyShape(vk, gvk, inputs, p); err != nil {
		return err
	}
	if rnd == nil {
		rnd = rand.Reader
	}
	n := int(p.N)
	r, z, xs, xInvs := verifierChallenges(p, include)
	f := foldStatements(p, xs, xInvs)

	slices.Reverse(xs)
	slices.Reverse(xInvs)
	var one fr.Element
	one.SetOne()
	// r folded by the x⁻¹: ∏ (1 + x⁻¹_{l−1−j} r^(2^j)).
	finalR := productEval(xInvs, &r, &one)

	checks, err := newPairingChecks(rnd)
	if err != nil {
		return err
	}
	addKZGChecks(checks, vk, p, xs, xInvs, &z, &r, n)
	// TIPP: the folded statement holds for the final A, B and keys.
	checks.add([]bls12381.G1Affine{p.FinalA}, []bls12381.G2Affine{p.FinalB}, &f.zab)
	checks.add([]bls12381.G1Affine{p.FinalA, p.FinalWKey[0]}, []bls12381.G2Affine{p.FinalVKey[0], p.FinalB}, &f.tab)
	checks.add([]bls12381.G1Affine{p.FinalA, p.FinalWKey[1]}, []bls12381.G2Affine{p.FinalVKey[1], p.FinalB}, &f.uab)
	// MIPP: the same for the final C, and Z = C^(final r).
	checks.add([]bls12381.G1Affine{p.FinalC}, []bls12381.G2Affine{p.FinalVKey[0]}, &f.tc)
	checks.add([]bls12381.G1Affine{p.FinalC}, []bls12381.G2Affine{p.FinalVKey[1]}, &f.uc)
	var cr bls12381.G1Affine
	cr.ScalarMultiplication(&p.FinalC, bigOf(&finalR))
	mippOK := cr.Equal(&f.zc)

	if err := addGroth16Check(checks, gvk, inputs, p, &r, n); err != nil {
		return err
	}
	ok, err := checks.verify()
	if err != nil {
		return err
	}
	if !ok || !mippOK {
		return ErrInvalid
	}
	return nil
}

// checkVerifyShape refuses an aggregate, a key or inputs that do not fit
// one another.
func checkVerifyShape(vk *VerifierKey, gvk *groth16.VerifyingKey, inputs [][]fr.Element, p *Proof) error {
	if err := p.checkShape(); err != nil {
		return err
	}
	n := int(p.N)
	if n != vk.N {
		return fmt.Errorf("%w: aggregate of %d proofs, verifier key for %d", ErrProofCount, n, vk.N)
	}
	if len(inputs) != n {
		return fmt.Errorf("%w: %d input vectors for %d proofs", ErrProofCount, len(inputs), n)
	}
	for i := range inputs {
		if len(inputs[i])+1 != len(gvk.IC) {
			return fmt.Errorf("%w: proof %d has %d inputs, the verifying key %d",
				groth16.ErrInputCount, i, len(inputs[i]), len(gvk.IC)-1)
		}
	}
	return nil
}

// verifierChallenges are the challenges exactly as the prover derived
// them: r, the KZG point z and each GIPA round's x and x⁻¹, in round
// order.
func verifierChallenges(p *Proof, include []byte) (r, z fr.Element, xs, xInvs []fr.Element) {
	hcom := newTranscript("hcom").gt(&p.ComAB[0], &p.ComAB[1], &p.ComC[0], &p.ComC[1]).challenge()
	r = newTranscript("random-r").fr(&hcom).bytes(include).challenge()
	l := len(p.ComsAB)
	xs, xInvs = make([]fr.Element, l), make([]fr.Element, l)
	xInv := newTranscript("gipa-0").fr(&hcom).gt(&p.IPAB).g1(&p.AggC).fr(&r).challenge()
	for k := 0; k < l; k++ {
		m := roundMessages{
			tabL: p.ComsAB[k][0], tabR: p.ComsAB[k][1],
			tucL: p.ComsC[k][0], tucR: p.ComsC[k][1],
			zabL: p.ZAB[k][0], zabR: p.ZAB[k][1],
			zcL: p.ZC[k][0], zcR: p.ZC[k][1],
		}
		xInv = m.challenge(k, &xInv)
		xInvs[k] = xInv
		xs[k].Inverse(&xInv)
	}
	extra := extraChallenge(p, &xs[l-1])
	z = kzgChallenge(p, &extra)
	return r, z, xs, xInvs
}

// addKZGChecks adds the openings at z of the final commitment keys, xs and
// xInvs in reverse round order: v as h^(f_v(α)), h^(f_v(β)) and w as
// g^(αⁿ·f_w(α)), g^(βⁿ·f_w(β)).
func addKZGChecks(checks *pairingChecks, vk *VerifierKey, p *Proof, xs, xInvs []fr.Element, z, r *fr.Element, n int) {
	var one, rInv fr.Element
	one.SetOne()
	rInv.Inverse(r)
	yv := productEval(xInvs, z, &one)
	var negG, gz, gyv bls12381.G1Affine
	negG.Neg(&vk.G)
	gz.ScalarMultiplication(&vk.G, bigOf(z))
	hy := mulG2(&vk.H, &yv)
	for k, gs := range []bls12381.G1Affine{vk.GAlpha, vk.GBeta} {
		var lhs bls12381.G2Affine
		lhs.Sub(&p.FinalVKey[k], &hy)
		gs.Sub(&gs, &gz)
		checks.add([]bls12381.G1Affine{negG, gs}, []bls12381.G2Affine{lhs, p.VKeyOpening[k]}, nil)
	}
	yw := productEval(xs, z, &rInv)
	var zn fr.Element
	zn.Exp(*z, big.NewInt(int64(n)))
	yw.Mul(&yw, &zn)
	gyv.ScalarMultiplication(&vk.G, bigOf(&yw))
	var negH bls12381.G2Affine
	negH.Neg(&vk.H)
	hz := mulG2(&vk.H, z)
	for k, hs := range []bls12381.G2Affine{vk.HAlpha, vk.HBeta} {
		var lhs bls12381.G1Affine
		lhs.Sub(&p.FinalWKey[k], &gyv)
		hs.Sub(&hs, &hz)
		checks.add([]bls12381.G1Affine{lhs, p.WKeyOpening[k]}, []bls12381.G2Affine{negH, hs}, nil)
	}
}

// addGroth16Check adds the n Groth16 equations aggregated with the
// weights rⁱ, unweighted:
// ip_ab = e(α, β)^(Σrⁱ) · e(Σ rⁱ·acc_i, γ) · e(agg_c, δ).
func addGroth16Check(checks *pairingChecks, gvk *groth16.VerifyingKey, inputs [][]fr.Element, p *Proof, r *fr.Element, n int) error {
	var one, rSum, den fr.Element
	one.SetOne()
	rSum.Exp(*r, big.NewInt(int64(n)))
	rSum.Sub(&rSum, &one)
	den.Sub(r, &one)
	den.Inverse(&den)
	rSum.Mul(&rSum, &den)
	acc, err := weightedInputs(gvk.IC, inputs, r, &rSum)
	if err != nil {
		return err
	}
	var alpha bls12381.G1Affine
	alpha.ScalarMultiplication(&gvk.AlphaG1, bigOf(&rSum))
	checks.addUnweighted([]bls12381.G1Affine{alpha, acc, p.AggC},
		[]bls12381.G2Affine{gvk.BetaG2, gvk.GammaG2, gvk.DeltaG2}, &p.IPAB)
	return nil
}

// folded is the GIPA statement after all rounds: each commitment and
// inner product times ∏ L_k^(x_k)·R_k^(x_k⁻¹).
type folded struct {
	tab, uab, zab, tc, uc bls12381.GT
	zc                    bls12381.G1Affine
}

func foldStatements(p *Proof, xs, xInvs []fr.Element) folded {
	f := folded{tab: p.ComAB[0], uab: p.ComAB[1], zab: p.IPAB, tc: p.ComC[0], uc: p.ComC[1]}
	targets := []*bls12381.GT{&f.tab, &f.uab, &f.zab, &f.tc, &f.uc}
	parallel(len(targets), func(lo, hi int) error {
		for t := lo; t < hi; t++ {
			for k := range xs {
				var left, right *bls12381.GT
				switch t {
				case 0, 1:
					left, right = &p.ComsAB[k][0][t], &p.ComsAB[k][1][t]
				case 2:
					left, right = &p.ZAB[k][0], &p.ZAB[k][1]
				default:
					left, right = &p.ComsC[k][0][t-3], &p.ComsC[k][1][t-3]
				}
				var a, b bls12381.GT
				a.CyclotomicExp(*left, bigOf(&xs[k]))
				b.CyclotomicExp(*right, bigOf(&xInvs[k]))
				targets[t].Mul(targets[t], &a)
				targets[t].Mul(targets[t], &b)
			}
		}
		return nil
	})
	var zc bls12381.G1Jac
	zc.FromAffine(&p.AggC)
	for k := range xs {
		var a, b bls12381.G1Jac
		a.FromAffine(&p.ZC[k][0])
		a.ScalarMultiplication(&a, bigOf(&xs[k]))
		b.FromAffine(&p.ZC[k][1])
		b.ScalarMultiplication(&b, bigOf(&xInvs[k]))
		zc.AddAssign(&a)
		zc.AddAssign(&b)
	}
	f.zc.FromJacobian(&zc)
	return f
}

// weightedInputs is IC₀·Σrʲ + Σᵢ IC_{i+1}·(Σⱼ inputs[j][i]·rʲ).
func weightedInputs(ic []bls12381.G1Affine, inputs [][]fr.Element, r, rSum *fr.Element) (bls12381.G1Affine, error) {
	s := make([]fr.Element, len(ic))
	s[0] = *rSum
	var rj fr.Element
	rj.SetOne()
	for j := range inputs {
		for i := range inputs[j] {
			var t fr.Element
			t.Mul(&inputs[j][i], &rj)
			s[i+1].Add(&s[i+1], &t)
		}
		rj.Mul(&rj, r)
	}
	var acc bls12381.G1Affine
	_, err := acc.MultiExp(ic, s, ecc.MultiExpConfig{})
	return acc, err
}

func bigOf(x *fr.Element) *big.Int {
	var b big.Int
	return x.BigInt(&b)
}

func mulG2(p *bls12381.G2Affine, s *fr.Element) bls12381.G2Affine {
	var out bls12381.G2Affine
	out.ScalarMultiplication(p, bigOf(s))
	return out
}
