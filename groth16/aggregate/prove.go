package aggregate

import (
	"context"
	"fmt"
	"slices"

	"github.com/consensys/gnark-crypto/ecc"
	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-project/cuzk/groth16"
)

// Aggregate builds the SnarkPack (V2 transcript) aggregate of proofs under
// pk. include is everything outside the proofs that the transcript must
// bind (bellperson's transcript_include; Filecoin passes a hash of the
// sectors' comm_r and seeds); Verify must be given the same bytes. The
// number of proofs must equal pk.N; callers pad to a power of two by
// repeating the last proof, as Filecoin does. ctx is checked between GIPA
// rounds.
func Aggregate(ctx context.Context, pk *ProverKey, include []byte, proofs []groth16.Proof) (*Proof, error) {
	n := len(proofs)
	if n < 2 || n&(n-1) != 0 {
		return nil, fmt.Errorf("%w: %d proofs is not a power of two ≥ 2", ErrProofCount, n)
	}
	if n != pk.N {
		return nil, fmt.Errorf("%w: %d proofs for a key specialized to %d", ErrProofCount, n, pk.N)
	}
	a := make([]bls12381.G1Affine, n)
	b := make([]bls12381.G2Affine, n)
	c := make([]bls12381.G1Affine, n)
	for i := range proofs {
		a[i], b[i], c[i] = proofs[i].A, proofs[i].B, proofs[i].C
	}

	var p Proof
	p.N = uint32(n)
	var err error
	if p.ComAB, err = commitPair(pk.vKey, pk.wKey, a, b); err != nil {
		return nil, err
	}
	if p.ComC, err = commitSingle(pk.vKey, c); err != nil {
		return nil, err
	}
	hcom := newTranscript("hcom").gt(&p.ComAB[0], &p.ComAB[1], &p.ComC[0], &p.ComC[1]).challenge()
	r := newTranscript("random-r").fr(&hcom).bytes(include).challenge()

	rVec := powers(&r, n)
	rInv := fr.BatchInvert(rVec)
	bR := scaleG2(b, rVec)
	if p.IPAB, err = pairProduct(a, bR); err != nil {
		return nil, err
	}
	if _, err = p.AggC.MultiExp(c, rVec, ecc.MultiExpConfig{}); err != nil {
		return nil, err
	}
	// w rescaled by r⁻ⁱ, so that the pair commitment of (A, B^r) under it
	// equals ComAB.
	w := commitKeyG1{A: scaleG1(pk.wKey.A, rInv), B: scaleG1(pk.wKey.B, rInv)}
	v := commitKeyG2{A: slices.Clone(pk.vKey.A), B: slices.Clone(pk.vKey.B)}

	xs, xInvs, err := gipa(ctx, &p, hcom, r, a, bR, c, rVec, v, w)
	if err != nil {
		return nil, err
	}
	last := len(xs) - 1
	extra := extraChallenge(&p, &xs[last])
	z := kzgChallenge(&p, &extra)

	slices.Reverse(xs)
	slices.Reverse(xInvs)
	var one, rInv1 fr.Element
	one.SetOne()
	rInv1.Inverse(&r)

	// f_v(X) = ∏ (1 + x⁻¹_{l−1−j} X^(2^j)), committed by the final v key.
	qv := kzgQuotient(productCoeffs(xInvs, &one), &z)
	// f_w(X) = Xⁿ·∏ (1 + x_{l−1−j} (X/r)^(2^j)), committed by the final w key.
	qw := kzgQuotient(append(make([]fr.Element, n), productCoeffs(xs, &rInv1)...), &z)
	for k, h := range [][]bls12381.G2Affine{pk.HAlpha, pk.HBeta} {
		if _, err := p.VKeyOpening[k].MultiExp(h[:len(qv)], qv, ecc.MultiExpConfig{}); err != nil {
			return nil, err
		}
	}
	for k, g := range [][]bls12381.G1Affine{pk.GAlpha, pk.GBeta} {
		if _, err := p.WKeyOpening[k].MultiExp(g[:len(qw)], qw, ecc.MultiExpConfig{}); err != nil {
			return nil, err
		}
	}
	return &p, nil
}

// gipa runs the log₂ n rounds of the combined TIPP/MIPP recursion, filling
// p's round vectors and finals, and returns the challenges x_k and x_k⁻¹.
// It folds a, b, c, rv, v and w in place.
func gipa(ctx context.Context, p *Proof, hcom, r fr.Element, a []bls12381.G1Affine, b []bls12381.G2Affine,
	c []bls12381.G1Affine, rv []fr.Element, v commitKeyG2, w commitKeyG1) (xs, xInvs []fr.Element, err error) {
	xInv := newTranscript("gipa-0").fr(&hcom).gt(&p.IPAB).g1(&p.AggC).fr(&r).challenge()
	for round := 0; len(a) > 1; round++ {
		if err := ctx.Err(); err != nil {
			return nil, nil, err
		}
		s := len(a) / 2
		vL, vR := commitKeyG2{v.A[:s], v.B[:s]}, commitKeyG2{v.A[s:], v.B[s:]}
		wL, wR := commitKeyG1{w.A[:s], w.B[:s]}, commitKeyG1{w.A[s:], w.B[s:]}
		var m roundMessages
		if err := m.compute(vL, vR, wL, wR, a, b, c, rv); err != nil {
			return nil, nil, err
		}
		xInv = m.challenge(round, &xInv)
		var x fr.Element
		x.Inverse(&xInv)

		a = foldG1(a, &x)
		b = foldG2(b, &xInv)
		c = foldG1(c, &x)
		for i := 0; i < s; i++ {
			var t fr.Element
			t.Mul(&rv[i+s], &xInv)
			rv[i].Add(&rv[i], &t)
		}
		rv = rv[:s]
		v = commitKeyG2{foldG2(v.A, &xInv), foldG2(v.B, &xInv)}
		w = commitKeyG1{foldG1(w.A, &x), foldG1(w.B, &x)}

		p.ComsAB = append(p.ComsAB, [2]commitment{m.tabL, m.tabR})
		p.ComsC = append(p.ComsC, [2]commitment{m.tucL, m.tucR})
		p.ZAB = append(p.ZAB, [2]bls12381.GT{m.zabL, m.zabR})
		p.ZC = append(p.ZC, [2]bls12381.G1Affine{m.zcL, m.zcR})
		xs = append(xs, x)
		xInvs = append(xInvs, xInv)
	}
	p.FinalA, p.FinalB, p.FinalC = a[0], b[0], c[0]
	p.FinalVKey = [2]bls12381.G2Affine{v.A[0], v.B[0]}
	p.FinalWKey = [2]bls12381.G1Affine{w.A[0], w.B[0]}
	return xs, xInvs, nil
}

// roundMessages are what one GIPA round sends: the cross commitments of
// (A, B) and of C, the cross pairings of A and B, the cross
// multi-exponentiations of C and r.
type roundMessages struct {
	tabL, tabR, tucL, tucR commitment
	zabL, zabR             bls12381.GT
	zcL, zcR               bls12381.G1Affine
}

func (m *roundMessages) compute(vL, vR commitKeyG2, wL, wR commitKeyG1,
	a []bls12381.G1Affine, b []bls12381.G2Affine, c []bls12381.G1Affine, rv []fr.Element) error {
	s := len(a) / 2
	var err error
	if m.tabL, err = commitPair(vL, wR, a[s:], b[:s]); err != nil {
		return err
	}
	if m.tabR, err = commitPair(vR, wL, a[:s], b[s:]); err != nil {
		return err
	}
	if m.zabL, err = pairProduct(a[s:], b[:s]); err != nil {
		return err
	}
	if m.zabR, err = pairProduct(a[:s], b[s:]); err != nil {
		return err
	}
	if _, err = m.zcL.MultiExp(c[s:], rv[:s], ecc.MultiExpConfig{}); err != nil {
		return err
	}
	if _, err = m.zcR.MultiExp(c[:s], rv[s:], ecc.MultiExpConfig{}); err != nil {
		return err
	}
	if m.tucL, err = commitSingle(vL, c[s:]); err != nil {
		return err
	}
	m.tucR, err = commitSingle(vR, c[:s])
	return err
}

// challenge is x⁻¹ of a round: round 0 is tagged "gipa-0" again and chains
// from the challenge over (hcom, ip_ab, agg_c, r) (the V2 change: V1 used
// that one as round 0's challenge); round k > 0 is tagged "gipa-k" and
// chains from the previous x⁻¹.
func (m *roundMessages) challenge(round int, prev *fr.Element) fr.Element {
	return newTranscript(fmt.Sprintf("gipa-%d", round)).
		fr(prev).
		gt(&m.zabL, &m.zabR).
		g1(&m.zcL, &m.zcR).
		gt(&m.tabL[0], &m.tabL[1], &m.tabR[0], &m.tabR[1],
			&m.tucL[0], &m.tucL[1], &m.tucR[0], &m.tucR[1]).
		challenge()
}

// extraChallenge links the last GIPA round to the KZG challenge: the last
// x, the finals and the last round's messages.
func extraChallenge(p *Proof, lastX *fr.Element) fr.Element {
	k := len(p.ComsAB) - 1
	ab, cc := &p.ComsAB[k], &p.ComsC[k]
	return newTranscript("gipa-extra-link").
		fr(lastX).
		g1(&p.FinalA).g2(&p.FinalB).g1(&p.FinalC).
		gt(&p.ZAB[k][0], &p.ZAB[k][1]).
		g1(&p.ZC[k][0], &p.ZC[k][1]).
		gt(&ab[0][0], &ab[0][1], &ab[1][0], &ab[1][1],
			&cc[0][0], &cc[0][1], &cc[1][0], &cc[1][1]).
		challenge()
}

// kzgChallenge is the V2 opening point z: the extra challenge, the final
// keys and the final A, B, C.
func kzgChallenge(p *Proof, extra *fr.Element) fr.Element {
	return newTranscript("random-z").
		fr(extra).
		g2(&p.FinalVKey[0], &p.FinalVKey[1]).
		g1(&p.FinalWKey[0], &p.FinalWKey[1]).
		g1(&p.FinalA).g2(&p.FinalB).g1(&p.FinalC).
		challenge()
}
