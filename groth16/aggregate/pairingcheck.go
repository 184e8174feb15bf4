package aggregate

import (
	"fmt"
	"io"
	"math/big"

	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"
)

// pairingChecks merges checks ∏ e(Pᵢ, Qᵢ) = T into one multi-Miller loop
// and one final exponentiation: each check but one is raised to a random
// non-zero 128-bit weight ρ (Pᵢ → ρ·Pᵢ, T → T^ρ), so a failing check makes
// the merged one fail except with probability about 2⁻¹²⁸. At most one
// check is added unweighted (the aggregated Groth16 equation).
type pairingChecks struct {
	rnd    io.Reader
	p      []bls12381.G1Affine
	q      []bls12381.G2Affine
	target bls12381.GT
	plain  bool
}

func newPairingChecks(rnd io.Reader) (*pairingChecks, error) {
	c := &pairingChecks{rnd: rnd}
	c.target.SetOne()
	return c, nil
}

// add merges ∏ e(ps[i], qs[i]) = t with a random weight; t nil means 1.
// A failure of the random source is reported by verify.
func (c *pairingChecks) add(ps []bls12381.G1Affine, qs []bls12381.G2Affine, t *bls12381.GT) {
	if c.rnd == nil {
		return
	}
	var buf [16]byte
	var rho big.Int
	for rho.Sign() == 0 {
		if _, err := io.ReadFull(c.rnd, buf[:]); err != nil {
			c.rnd = nil
			return
		}
		rho.SetBytes(buf[:])
	}
	for i := range ps {
		var s bls12381.G1Affine
		s.ScalarMultiplication(&ps[i], &rho)
		c.p = append(c.p, s)
		c.q = append(c.q, qs[i])
	}
	if t != nil {
		var tr bls12381.GT
		tr.CyclotomicExp(*t, &rho)
		c.target.Mul(&c.target, &tr)
	}
}

// addUnweighted merges ∏ e(ps[i], qs[i]) = t as it is; only once.
func (c *pairingChecks) addUnweighted(ps []bls12381.G1Affine, qs []bls12381.G2Affine, t *bls12381.GT) {
	if c.plain {
		panic("aggregate: a second unweighted pairing check")
	}
	c.plain = true
	c.p = append(c.p, ps...)
	c.q = append(c.q, qs...)
	c.target.Mul(&c.target, t)
}

// verify reports whether every merged check holds.
func (c *pairingChecks) verify() (bool, error) {
	if c.rnd == nil {
		return false, fmt.Errorf("aggregate: random weights: source failed")
	}
	f, err := millerProduct(c.p, c.q)
	if err != nil {
		return false, err
	}
	got := bls12381.FinalExponentiation(&f)
	return got.Equal(&c.target), nil
}
