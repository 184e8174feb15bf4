package aggregate

import (
	"errors"
	"fmt"

	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fp"
)

// Encoded sizes, as blstrs writes them.
const (
	G1Size = 48  // compressed G1 point
	G2Size = 96  // compressed G2 point, x.c1 first
	GTSize = 288 // torus-compressed GT element: six Fp, little-endian
	fpSize = 48
)

var (
	// ErrBadEncoding reports bytes that do not encode a point or a GT
	// element: wrong flags, a non-canonical coordinate, no square root,
	// outside the prime-order subgroup.
	ErrBadEncoding = errors.New("aggregate: bad encoding")
	// ErrNotCompressible reports a GT element whose c1 is zero (only ±1
	// in the cyclotomic subgroup); it has no torus compression.
	ErrNotCompressible = errors.New("aggregate: GT element is not compressible")
)

// Flags in the top three bits of a compressed point's first byte (the
// zcash layout, which gnark-crypto shares for BLS12-381).
const (
	flagMask       = 0xe0
	flagCompressed = 0x80
	flagInfinity   = 0x40
	flagLargest    = 0x20
)

// checkCompressedFlags accepts exactly the compressed layouts blstrs reads:
// compression set, and either infinity with every other bit zero, or a
// finite point with canonical x coordinates (one Fp in G1, c1 then c0 in G2).
func checkCompressedFlags(b []byte) error {
	f := b[0] & flagMask
	switch {
	case f&flagCompressed == 0:
		return fmt.Errorf("%w: compressed flag not set", ErrBadEncoding)
	case f&flagInfinity != 0:
		if f != flagCompressed|flagInfinity || b[0]&^flagMask != 0 || !allZero(b[1:]) {
			return fmt.Errorf("%w: bad infinity encoding", ErrBadEncoding)
		}
		return nil
	}
	for i := 0; i < len(b); i += fpSize {
		var x [fpSize]byte
		copy(x[:], b[i:i+fpSize])
		if i == 0 {
			x[0] &^= flagMask
		}
		if _, err := fp.BigEndian.Element(&x); err != nil {
			return fmt.Errorf("%w: x coordinate not canonical", ErrBadEncoding)
		}
	}
	return nil
}

func allZero(b []byte) bool {
	for _, x := range b {
		if x != 0 {
			return false
		}
	}
	return true
}

// decodeG1 reads a compressed G1 point (on the curve, in the subgroup;
// infinity allowed, as blstrs's from_bytes allows it).
func decodeG1(p *bls12381.G1Affine, b []byte) error {
	if err := checkCompressedFlags(b[:G1Size]); err != nil {
		return err
	}
	if _, err := p.SetBytes(b[:G1Size]); err != nil {
		return fmt.Errorf("%w: G1: %v", ErrBadEncoding, err)
	}
	return nil
}

// decodeG2 reads a compressed G2 point, like decodeG1.
func decodeG2(p *bls12381.G2Affine, b []byte) error {
	if err := checkCompressedFlags(b[:G2Size]); err != nil {
		return err
	}
	if _, err := p.SetBytes(b[:G2Size]); err != nil {
		return fmt.Errorf("%w: G2: %v", ErrBadEncoding, err)
	}
	return nil
}

func putG1(b []byte, p *bls12381.G1Affine) { c := p.Bytes(); copy(b, c[:]) }
func putG2(b []byte, p *bls12381.G2Affine) { c := p.Bytes(); copy(b, c[:]) }

// gtCoeffs lists the twelve Fp coefficients of x in blstrs's order:
// c0.c0.c0, c0.c0.c1, c0.c1.c0, …, c1.c2.c1 (the same tower as gnark-crypto:
// Fp2 = Fp[u]/(u²+1), Fp6 = Fp2[v]/(v³−(u+1)), Fp12 = Fp6[w]/(w²−v)).
func gtCoeffs(x *bls12381.GT) [12]*fp.Element {
	return [12]*fp.Element{
		&x.C0.B0.A0, &x.C0.B0.A1, &x.C0.B1.A0, &x.C0.B1.A1, &x.C0.B2.A0, &x.C0.B2.A1,
		&x.C1.B0.A0, &x.C1.B0.A1, &x.C1.B1.A0, &x.C1.B1.A1, &x.C1.B2.A0, &x.C1.B2.A1,
	}
}

// putGT writes the torus compression of x (Naehrig–Barreto–Schwabe):
// for x = c0 + c1·w in the cyclotomic subgroup, b = (c0 + 1)/c1 ∈ Fp6, as
// six little-endian Fp (b.c0.c0, b.c0.c1, b.c1.c0, …).
func putGT(out []byte, x *bls12381.GT) error {
	if x.C1.IsZero() {
		return ErrNotCompressible
	}
	var num, inv, b bls12381.GT
	num.C0 = x.C0
	num.C0.B0.A0.Add(&num.C0.B0.A0, oneFp())
	inv.C0.Inverse(&x.C1)
	b.C0.Mul(&num.C0, &inv.C0)
	cs := gtCoeffs(&b)
	for i := 0; i < 6; i++ {
		fp.LittleEndian.PutElement((*[fpSize]byte)(out[i*fpSize:]), *cs[i])
	}
	return nil
}

func oneFp() *fp.Element { var one fp.Element; one.SetOne(); return &one }

// decodeGT reads a torus-compressed GT element: x = (b + w)/(b − w), and
// rejects non-canonical coefficients and results outside the order-r
// subgroup (blstrs's read_compressed).
func decodeGT(x *bls12381.GT, in []byte) error {
	var b bls12381.GT
	cs := gtCoeffs(&b)
	for i := 0; i < 6; i++ {
		e, err := fp.LittleEndian.Element((*[fpSize]byte)(in[i*fpSize:]))
		if err != nil {
			return fmt.Errorf("%w: GT coefficient %d not canonical", ErrBadEncoding, i)
		}
		*cs[i] = e
	}
	var num, den bls12381.GT
	num.C0, den.C0 = b.C0, b.C0
	num.C1.SetOne()
	den.C1.SetOne()
	den.C1.Neg(&den.C1)
	den.Inverse(&den)
	x.Mul(&num, &den)
	if !x.IsInSubGroup() {
		return fmt.Errorf("%w: GT element not in the subgroup", ErrBadEncoding)
	}
	return nil
}
