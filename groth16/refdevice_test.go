package groth16

import (
	"context"
	"fmt"
	"math/big"

	"github.com/consensys/gnark-crypto/ecc"
	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr/fft"

	"github.com/cuzk-project/cuzk/r1cs"
)

// refDevice is a slow, plain Device for tests: H by gnark's FFT following
// bellperson's execute_fft step by step, MSMs by gnark's MultiExp over
// density-compacted bases and scalars.
type refDevice struct{}

type refWork struct {
	a *Assignment
	p *Params
}

func (refDevice) Prepare(_ context.Context, a *Assignment, p *Params) (Prepared, error) {
	if err := p.CheckShape(ShapeOfAssignment(a)); err != nil {
		return nil, err
	}
	return &refWork{a, p}, nil
}

func (refDevice) Run(_ context.Context, w Prepared) (Partial, error) {
	rw := w.(*refWork)
	return refSums(rw.a, rw.p)
}

func (refDevice) Finish(_ context.Context, r Partial) (*Sums, error) { return r.(*Sums), nil }

func (refDevice) Profile() Profile { return Profile{} }

// refH computes the m−1 coefficients of H = (a·b − c)/Z in natural order.
func refH(a, b, c []fr.Element) []fr.Element {
	n := len(a)
	m := r1cs.DomainSize(n)
	if m == 1 {
		return nil
	}
	dom := fft.NewDomain(uint64(m))
	pad := func(v []fr.Element) []fr.Element {
		out := make([]fr.Element, m)
		copy(out, v)
		return out
	}
	A, B, C := pad(a), pad(b), pad(c)
	for _, v := range [][]fr.Element{A, B, C} {
		// evaluations over ω^k → coefficients (bit-reversed after DIF)
		dom.FFTInverse(v, fft.DIF)
		// bit-reversed coefficients → evaluations on the coset g·ω^k (natural)
		dom.FFT(v, fft.DIT, fft.OnCoset())
	}
	// Z(g·ω^k) = g^m − 1
	var zinv, one fr.Element
	one.SetOne()
	zinv.Exp(dom.FrMultiplicativeGen, new(big.Int).SetUint64(uint64(m)))
	zinv.Sub(&zinv, &one)
	zinv.Inverse(&zinv)
	for i := range A {
		A[i].Mul(&A[i], &B[i])
		A[i].Sub(&A[i], &C[i])
		A[i].Mul(&A[i], &zinv)
	}
	dom.FFTInverse(A, fft.DIF, fft.OnCoset())
	fft.BitReverse(A)
	return A[:m-1]
}

func msmG1(bases []bls12381.G1Affine, scalars []fr.Element) (bls12381.G1Jac, error) {
	var r bls12381.G1Jac
	if len(bases) != len(scalars) {
		return r, fmt.Errorf("msm: %d bases, %d scalars", len(bases), len(scalars))
	}
	if len(bases) == 0 {
		r.X.SetOne()
		r.Y.SetOne() // (1, 1, 0): the identity
		return r, nil
	}
	_, err := r.MultiExp(bases, scalars, ecc.MultiExpConfig{})
	return r, err
}

func msmG2(bases []bls12381.G2Affine, scalars []fr.Element) (bls12381.G2Jac, error) {
	var r bls12381.G2Jac
	if len(bases) != len(scalars) {
		return r, fmt.Errorf("msm: %d bases, %d scalars", len(bases), len(scalars))
	}
	if len(bases) == 0 {
		r.X.SetOne()
		r.Y.SetOne()
		return r, nil
	}
	_, err := r.MultiExp(bases, scalars, ecc.MultiExpConfig{})
	return r, err
}

func compact(vals []fr.Element, d *r1cs.Bitmap) []fr.Element {
	var out []fr.Element
	for i := range vals {
		if d.Get(i) {
			out = append(out, vals[i])
		}
	}
	return out
}

func refSums(a *Assignment, p *Params) (*Sums, error) {
	s := &Sums{}
	var err error
	h := refH(a.A, a.B, a.C)
	if s.H, err = msmG1(p.H, h); err != nil {
		return nil, fmt.Errorf("H: %w", err)
	}
	if s.L, err = msmG1(p.L, a.Aux); err != nil {
		return nil, fmt.Errorf("L: %w", err)
	}
	aScalars := append(append([]fr.Element(nil), a.Input...), compact(a.Aux, a.ADensityAux)...)
	if s.A, err = msmG1(p.A, aScalars); err != nil {
		return nil, fmt.Errorf("A: %w", err)
	}
	bScalars := append(compact(a.Input, a.BDensityInput), compact(a.Aux, a.BDensityAux)...)
	if s.B1, err = msmG1(p.BG1, bScalars); err != nil {
		return nil, fmt.Errorf("B1: %w", err)
	}
	if s.B2, err = msmG2(p.BG2, bScalars); err != nil {
		return nil, fmt.Errorf("B2: %w", err)
	}
	return s, nil
}
