package hash

import (
	"encoding/hex"
	"errors"
	"fmt"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// ErrNotCanonical reports 32 bytes that, read little-endian, are not below
// the scalar field modulus r.
var ErrNotCanonical = errors.New("hash: domain is not a canonical scalar")

// Domain is a 32-byte tree node or commitment in Filecoin's wire form: a
// BLS12-381 scalar, little-endian.
type Domain [32]byte

// DomainOf returns e's little-endian bytes.
func DomainOf(e *fr.Element) Domain {
	var d Domain
	fr.LittleEndian.PutElement((*[32]byte)(&d), *e)
	return d
}

// Element reads d as a scalar; it fails with ErrNotCanonical when d ≥ r.
func (d Domain) Element() (fr.Element, error) {
	e, err := fr.LittleEndian.Element((*[32]byte)(&d))
	if err != nil {
		return fr.Element{}, fmt.Errorf("%w: %x", ErrNotCanonical, d[:])
	}
	return e, nil
}

// String is the lower-case hex of the 32 bytes in order.
func (d Domain) String() string { return hex.EncodeToString(d[:]) }

// ParseDomain reads 64 hex digits (bytes in wire order).
func ParseDomain(s string) (Domain, error) {
	var d Domain
	b, err := hex.DecodeString(s)
	if err != nil {
		return d, fmt.Errorf("hash: parse domain %q: %w", s, err)
	}
	if len(b) != 32 {
		return d, fmt.Errorf("hash: parse domain %q: %d bytes, want 32", s, len(b))
	}
	copy(d[:], b)
	return d, nil
}
