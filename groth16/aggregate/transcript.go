package aggregate

import (
	"crypto/sha256"
	"encoding/binary"
	"hash"

	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fp"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// transcriptPrefix opens every transcript; bellperson kept the V1 string
// for V2.
const transcriptPrefix = "snarkpack-v1"

// transcript is bellperson's Fiat–Shamir transcript: SHA-256 over the
// prefix, a tag, and each value as bincode 1.x (fixed-width, little-endian)
// serializes the blstrs type:
//
//   - Fr: its canonical value as four u64, little-endian (32 bytes);
//   - G1, G2 (affine or projective): the compressed point (48, 96 bytes);
//   - GT: the twelve Fp coefficients, uncompressed, each as six u64
//     little-endian (576 bytes), in gtCoeffs order;
//   - a byte slice: its length as u64 little-endian, then the bytes.
type transcript struct{ h hash.Hash }

func newTranscript(tag string) *transcript {
	t := &transcript{sha256.New()}
	t.h.Write([]byte(transcriptPrefix))
	t.h.Write([]byte(tag))
	return t
}

func (t *transcript) fr(xs ...*fr.Element) *transcript {
	for _, x := range xs {
		var b [fr.Bytes]byte
		fr.LittleEndian.PutElement(&b, *x)
		t.h.Write(b[:])
	}
	return t
}

func (t *transcript) g1(ps ...*bls12381.G1Affine) *transcript {
	for _, p := range ps {
		b := p.Bytes()
		t.h.Write(b[:])
	}
	return t
}

func (t *transcript) g2(ps ...*bls12381.G2Affine) *transcript {
	for _, p := range ps {
		b := p.Bytes()
		t.h.Write(b[:])
	}
	return t
}

func (t *transcript) gt(xs ...*bls12381.GT) *transcript {
	var b [fpSize]byte
	for _, x := range xs {
		for _, c := range gtCoeffs(x) {
			fp.LittleEndian.PutElement(&b, *c)
			t.h.Write(b[:])
		}
	}
	return t
}

func (t *transcript) bytes(b []byte) *transcript {
	var n [8]byte
	binary.LittleEndian.PutUint64(n[:], uint64(len(b)))
	t.h.Write(n[:])
	t.h.Write(b)
	return t
}

// challenge derives a scalar: append a counter (u64 big-endian, from 1;
// earlier counters stay in the hash), read the digest as a little-endian
// integer with its top bit cleared, and retry until it is a canonical
// scalar other than 0 and 1.
func (t *transcript) challenge() fr.Element {
	var ctr [8]byte
	for i := uint64(1); ; i++ {
		binary.BigEndian.PutUint64(ctr[:], i)
		t.h.Write(ctr[:])
		var d [32]byte
		t.h.Sum(d[:0])
		d[31] &= 0x7f
		c, err := fr.LittleEndian.Element(&d)
		if err != nil || c.IsZero() || c.IsOne() {
			continue
		}
		return c
	}
}
