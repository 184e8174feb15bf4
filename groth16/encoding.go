package groth16

import (
	"errors"
	"fmt"
	"strings"

	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fp"
)

// Point encodings (zcash / IETF, as blst and bellperson write them):
//
//	G1 uncompressed  96 B: x ‖ y, 48-byte big-endian Fp each
//	G2 uncompressed 192 B: x.c1 ‖ x.c0 ‖ y.c1 ‖ y.c0
//	G1 compressed    48 B, G2 compressed 96 B: x only, flags in byte 0
//
// The three top bits of byte 0 are flags: 0x80 compressed, 0x40 infinity,
// 0x20 sign of y (compressed only).
const (
	G1Size           = bls12381.SizeOfG1AffineUncompressed // 96
	G2Size           = bls12381.SizeOfG2AffineUncompressed // 192
	G1CompressedSize = bls12381.SizeOfG1AffineCompressed   // 48
	G2CompressedSize = bls12381.SizeOfG2AffineCompressed   // 96

	flagCompressed = 0x80
	flagInfinity   = 0x40
	flagSign       = 0x20
	flagMask       = 0xe0
)

// Errors a point decoder returns, wrapped with the vector and index that
// failed (for example "params: l[17]: point not on curve").
var (
	ErrBadPointEncoding = errors.New("bad point encoding")
	ErrNonCanonical     = errors.New("coordinate not canonical (≥ p)")
	ErrNotOnCurve       = errors.New("point not on curve")
	ErrNotInSubgroup    = errors.New("point not in the prime-order subgroup")
	ErrPointAtInfinity  = errors.New("point at infinity")
)

// PointError says which point of which vector failed to decode.
type PointError struct {
	File   string // "params", "vk" or "proof"
	Vector string // e.g. "l", "alpha_g1"
	Index  int    // -1 for a single point
	Err    error
}

func (e *PointError) Error() string {
	if e.Index < 0 {
		return fmt.Sprintf("%s: %s: %v", e.File, e.Vector, e.Err)
	}
	return fmt.Sprintf("%s: %s[%d]: %v", e.File, e.Vector, e.Index, e.Err)
}

func (e *PointError) Unwrap() error { return e.Err }

// pointCheck says how much a decoder verifies beyond canonical coordinates.
type pointCheck uint8

const (
	// checkCurve verifies y² = x³ + b (blst's "unchecked" deserialization
	// does this too).
	checkCurve pointCheck = 1 << iota
	// checkSubgroup verifies membership in the prime-order subgroup.
	checkSubgroup
	// allowInfinity accepts the point at infinity.
	allowInfinity
)

// readFp reads a 48-byte big-endian coordinate, rejecting values ≥ p.
// mask clears flag bits of the first byte.
func readFp(b []byte, mask byte) (fp.Element, error) {
	var buf [fp.Bytes]byte
	copy(buf[:], b[:fp.Bytes])
	buf[0] &= mask
	e, err := fp.BigEndian.Element(&buf)
	if err != nil {
		return e, ErrNonCanonical
	}
	return e, nil
}

// isZero reports whether every byte of b is zero.
func isZero(b []byte) bool {
	for _, x := range b {
		if x != 0 {
			return false
		}
	}
	return true
}

// decodeRawFlags checks the flags of an uncompressed encoding. It reports
// whether the encoding is the point at infinity (0x40 and all else zero).
func decodeRawFlags(b []byte) (infinity bool, err error) {
	switch b[0] & flagMask {
	case 0:
		return false, nil
	case flagInfinity:
		if b[0]&^flagMask != 0 || !isZero(b[1:]) {
			return false, fmt.Errorf("%w: infinity flag with non-zero coordinates", ErrBadPointEncoding)
		}
		return true, nil
	default:
		if b[0]&flagCompressed != 0 {
			return false, fmt.Errorf("%w: compressed flag in an uncompressed point", ErrBadPointEncoding)
		}
		return false, fmt.Errorf("%w: flags 0x%02x", ErrBadPointEncoding, b[0]&flagMask)
	}
}

// DecodeG1 decodes a 96-byte uncompressed G1 point with full checks
// (canonical, on curve, in the subgroup); the point at infinity is
// accepted.
func DecodeG1(b []byte) (bls12381.G1Affine, error) {
	var p bls12381.G1Affine
	if len(b) != G1Size {
		return p, fmt.Errorf("%w: G1 point is %d bytes, want %d", ErrBadPointEncoding, len(b), G1Size)
	}
	err := decodeG1(&p, b, checkCurve|checkSubgroup|allowInfinity)
	return p, err
}

// DecodeG2 decodes a 192-byte uncompressed G2 point with full checks; the
// point at infinity is accepted.
func DecodeG2(b []byte) (bls12381.G2Affine, error) {
	var p bls12381.G2Affine
	if len(b) != G2Size {
		return p, fmt.Errorf("%w: G2 point is %d bytes, want %d", ErrBadPointEncoding, len(b), G2Size)
	}
	err := decodeG2(&p, b, checkCurve|checkSubgroup|allowInfinity)
	return p, err
}

// EncodeG1 writes p uncompressed into b (96 bytes).
func EncodeG1(b []byte, p *bls12381.G1Affine) {
	r := p.RawBytes()
	copy(b[:G1Size], r[:])
}

// EncodeG2 writes p uncompressed into b (192 bytes, c1 first).
func EncodeG2(b []byte, p *bls12381.G2Affine) {
	r := p.RawBytes()
	copy(b[:G2Size], r[:])
}

// decodeG1 decodes b[:96] into p. b must hold at least 96 bytes.
func decodeG1(p *bls12381.G1Affine, b []byte, chk pointCheck) error {
	return decodeRaw(p, b[:G1Size], []*fp.Element{&p.X, &p.Y}, chk)
}

// decodeG2 decodes b[:192] into p (c1 before c0 in each coordinate). b
// must hold at least 192 bytes.
func decodeG2(p *bls12381.G2Affine, b []byte, chk pointCheck) error {
	return decodeRaw(p, b[:G2Size], []*fp.Element{&p.X.A1, &p.X.A0, &p.Y.A1, &p.Y.A0}, chk)
}

// curvePoint is what decoding checks of a G1 or G2 point.
type curvePoint interface {
	IsInfinity() bool
	IsOnCurve() bool
	IsInSubGroup() bool
}

// decodeRaw decodes the uncompressed point b into the Fp coordinates of p,
// in file order (the first carries the flags), and checks p as chk says.
func decodeRaw(p curvePoint, b []byte, coords []*fp.Element, chk pointCheck) error {
	inf, err := decodeRawFlags(b)
	if err != nil {
		return err
	}
	if inf {
		if chk&allowInfinity == 0 {
			return ErrPointAtInfinity
		}
		for _, c := range coords {
			c.SetZero()
		}
		return nil
	}
	for i, c := range coords {
		mask := byte(0xff)
		if i == 0 {
			mask = 0x1f
		}
		if *c, err = readFp(b[48*i:48*(i+1)], mask); err != nil {
			return err
		}
	}
	// (0, 0) is gnark's in-memory identity; without the infinity flag it is
	// simply not a point of the curve.
	if p.IsInfinity() {
		return ErrNotOnCurve
	}
	if chk&(checkCurve|checkSubgroup) != 0 && !p.IsOnCurve() {
		return ErrNotOnCurve
	}
	if chk&checkSubgroup != 0 && !p.IsInSubGroup() {
		return ErrNotInSubgroup
	}
	return nil
}

// decodeCompressedG1 decodes a 48-byte compressed G1 point with the
// subgroup check; infinity is rejected.
func decodeCompressedG1(p *bls12381.G1Affine, b []byte) error {
	if err := checkCompressed(b[:G1CompressedSize]); err != nil {
		return err
	}
	if _, err := p.SetBytes(b[:G1CompressedSize]); err != nil {
		return classifyGnark(err)
	}
	return nil
}

// decodeCompressedG2 decodes a 96-byte compressed G2 point with the
// subgroup check; infinity is rejected.
func decodeCompressedG2(p *bls12381.G2Affine, b []byte) error {
	if err := checkCompressed(b[:G2CompressedSize]); err != nil {
		return err
	}
	if _, err := p.SetBytes(b[:G2CompressedSize]); err != nil {
		return classifyGnark(err)
	}
	return nil
}

// checkCompressed checks the flags of the compressed point b and that its
// x coordinates (one in G1, c1 then c0 in G2) are canonical, so that gnark
// is given only what bellperson would accept.
func checkCompressed(b []byte) error {
	if b[0]&flagCompressed == 0 {
		return fmt.Errorf("%w: compressed flag not set", ErrBadPointEncoding)
	}
	if b[0]&flagInfinity != 0 {
		if b[0] == flagCompressed|flagInfinity && isZero(b[1:]) {
			return ErrPointAtInfinity
		}
		return fmt.Errorf("%w: bad infinity encoding", ErrBadPointEncoding)
	}
	for i := 0; i < len(b); i += 48 {
		mask := byte(0xff)
		if i == 0 {
			mask = 0x1f
		}
		if _, err := readFp(b[i:i+48], mask); err != nil {
			return err
		}
	}
	return nil
}

// classifyGnark maps gnark's decoding errors (already past our canonical
// and flag checks) to ours.
func classifyGnark(err error) error {
	switch msg := err.Error(); {
	case strings.Contains(msg, "subgroup"):
		return ErrNotInSubgroup
	case strings.Contains(msg, "square root"):
		return fmt.Errorf("%w: x is not the abscissa of a curve point", ErrNotOnCurve)
	default:
		return fmt.Errorf("%w: %w", ErrBadPointEncoding, err)
	}
}
