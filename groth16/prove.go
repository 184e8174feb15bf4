package groth16

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"math/big"

	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-project/cuzk/r1cs"
)

// ErrIdentityDelta rejects parameters whose δ is the identity (bellperson's
// UnexpectedIdentity: a subversion attempt).
var ErrIdentityDelta = errors.New("groth16: delta is the identity")

// Randomness draws the blinding scalars r and s. Nil means crypto/rand.
type Randomness io.Reader

// DrawRS draws r and s uniformly from src (crypto/rand when nil).
func DrawRS(src io.Reader) (r, s fr.Element, err error) {
	if src == nil {
		src = rand.Reader
	}
	bound := fr.Modulus()
	for _, e := range []*fr.Element{&r, &s} {
		v, err := rand.Int(src, bound)
		if err != nil {
			return r, s, fmt.Errorf("groth16: drawing r, s: %w", err)
		}
		e.SetBigInt(v)
	}
	return r, s, nil
}

// Assemble turns a device's sums into a proof with bellperson's formulas
// (src/groth16/prover/native.rs):
//
//	A = α₁ + A + r·δ₁
//	B = β₂ + B2 + s·δ₂
//	C = s·A + r·B1 + r·s·δ₁ + s·α₁ + r·β₁ + H + L
func Assemble(vk *VerifyingKey, sums *Sums, r, s fr.Element) (Proof, error) {
	if vk.DeltaG1.IsInfinity() || vk.DeltaG2.IsInfinity() {
		return Proof{}, ErrIdentityDelta
	}
	var rb, sb, rsb big.Int
	var rs fr.Element
	rs.Mul(&r, &s)
	r.BigInt(&rb)
	s.BigInt(&sb)
	rs.BigInt(&rsb)

	var alpha, beta1, delta1 bls12381.G1Jac
	alpha.FromAffine(&vk.AlphaG1)
	beta1.FromAffine(&vk.BetaG1)
	delta1.FromAffine(&vk.DeltaG1)

	// A
	var a, t bls12381.G1Jac
	a.Set(&alpha)
	a.AddAssign(&sums.A)
	t.ScalarMultiplication(&delta1, &rb)
	a.AddAssign(&t)

	// B (G2)
	var b, t2, beta2, delta2 bls12381.G2Jac
	beta2.FromAffine(&vk.BetaG2)
	delta2.FromAffine(&vk.DeltaG2)
	b.Set(&beta2)
	b.AddAssign(&sums.B2)
	t2.ScalarMultiplication(&delta2, &sb)
	b.AddAssign(&t2)

	// C
	var c bls12381.G1Jac
	c.ScalarMultiplication(&sums.A, &sb)
	t.ScalarMultiplication(&sums.B1, &rb)
	c.AddAssign(&t)
	t.ScalarMultiplication(&delta1, &rsb)
	c.AddAssign(&t)
	t.ScalarMultiplication(&alpha, &sb)
	c.AddAssign(&t)
	t.ScalarMultiplication(&beta1, &rb)
	c.AddAssign(&t)
	c.AddAssign(&sums.H)
	c.AddAssign(&sums.L)

	var p Proof
	p.A.FromJacobian(&a)
	p.B.FromJacobian(&b)
	p.C.FromJacobian(&c)
	return p, nil
}

// Prove synthesizes c, computes its sums on d and assembles a proof with
// r, s drawn from rnd (crypto/rand when nil).
func Prove(ctx context.Context, d Device, p *Params, c r1cs.Circuit, rnd io.Reader) (Proof, []fr.Element, error) {
	a, err := Synthesize(c, r1cs.Shape{})
	if err != nil {
		return Proof{}, nil, fmt.Errorf("groth16: synthesis: %w", err)
	}
	if err := p.CheckShape(ShapeOfAssignment(a)); err != nil {
		return Proof{}, nil, err
	}
	inputs := append([]fr.Element(nil), a.Input[1:]...)
	sums, err := Compute(ctx, d, a, p)
	if err != nil {
		return Proof{}, nil, err
	}
	r, s, err := DrawRS(rnd)
	if err != nil {
		return Proof{}, nil, err
	}
	proof, err := Assemble(&p.VK, sums, r, s)
	return proof, inputs, err
}
