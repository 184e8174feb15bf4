package aggregate

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// Reference aggregates: made by bellperson (through rust-fil-proofs), not
// by this package; testdata/REFERENCE.md describes each. Without the
// SnarkPack SRS and the PoRep verifying keys they were made under (neither
// is in the repository), the KZG openings and the Groth16 equation cannot
// be checked; what is checked is everything that needs neither:
//
//   - the bytes decode (every point in its subgroup, every GT element
//     torus-decoded into the order-r subgroup) and re-encode identically:
//     the field order, the nproofs field and the GT compression agree;
//   - for the NI-PoRep aggregates and the mainnet commit batch, whose
//     transcript bytes are known, the GIPA statement folded by the
//     challenges this package derives (hcom, random-r, gipa-0 twice,
//     gipa-k) holds for the final A, B, C and keys: five GT equations
//     (TIPP's Z, T, U; MIPP's T, U) and MIPP's G1 equation
//     C^(final r) = folded Σ rⁱ·Cᵢ. One changed byte in the transcript (a
//     tag, the bincode of a GT, G1 or Fr, the challenge loop, the
//     transcript bytes) changes every challenge and breaks them.
type referenceAggregate struct {
	dir string
	n   uint32
	// commR is the path of the sector's comm_r for an NI-PoRep aggregate,
	// whose transcript bytes are SHA-256(comm_r); "" when unknown.
	commR string
	// include is the path of the transcript bytes themselves, when known
	// and not derived from commR.
	include string
}

var referenceAggregates = []referenceAggregate{
	{dir: "testdata/ref-ni-8m-n16", n: 16, commR: "comm_r.bin"},
	{dir: "testdata/ref-ni-32g-n128", n: 128, commR: "comm_r.bin"},
	{dir: "testdata/ref-2k-n512", n: 512},
	{dir: "testdata/ref-mainnet-7x32g-n128", n: 128, include: "include.bin"},
}

func readRef(t *testing.T, dir, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestReferenceAggregateRoundTrip(t *testing.T) {
	for _, ref := range referenceAggregates {
		t.Run(filepath.Base(ref.dir), func(t *testing.T) {
			b := readRef(t, ref.dir, "aggregate.bin")
			if len(b) != Size(int(ref.n)) {
				t.Fatalf("%d bytes, Size(%d) = %d", len(b), ref.n, Size(int(ref.n)))
			}
			p, err := DecodeProof(b)
			if err != nil {
				t.Fatal(err)
			}
			if p.N != ref.n {
				t.Fatalf("nproofs %d, want %d", p.N, ref.n)
			}
			out, err := p.MarshalBinary()
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(out, b) {
				t.Fatal("re-encoding differs from the reference bytes")
			}
		})
	}
}

// niInclude is the NI-PoRep transcript bytes of one sector: SHA-256 over
// its comm_r alone (no seed), as rust-fil-proofs hashes them.
func niInclude(commR []byte) []byte {
	h := sha256.Sum256(commR)
	return h[:]
}

func TestReferenceAggregateGIPA(t *testing.T) {
	for _, ref := range referenceAggregates {
		if ref.commR == "" && ref.include == "" {
			continue
		}
		t.Run(filepath.Base(ref.dir), func(t *testing.T) {
			b := readRef(t, ref.dir, "aggregate.bin")
			var include []byte
			if ref.commR != "" {
				include = niInclude(readRef(t, ref.dir, ref.commR))
			} else {
				include = readRef(t, ref.dir, ref.include)
			}
			p, err := DecodeProof(b)
			if err != nil {
				t.Fatal(err)
			}
			if err := checkGIPA(p, include); err != nil {
				t.Fatalf("the reference aggregate fails: %v", err)
			}
			include[len(include)/2] ^= 1
			if err := checkGIPA(p, include); err == nil {
				t.Fatal("it passes with a changed byte of its transcript bytes")
			}
		})
	}
}

// TestReferenceAggregateGIPARejects changes one thing at a time in the
// 16-proof NI-PoRep reference and expects the GIPA check (or decoding) to
// fail: the check can fail, so its passing above means something.
func TestReferenceAggregateGIPARejects(t *testing.T) {
	const dir = "testdata/ref-ni-8m-n16"
	good := readRef(t, dir, "aggregate.bin")
	commR := readRef(t, dir, "comm_r.bin")
	l := log2(16)
	roundsOff := 5*GTSize + G1Size + 4
	finalsOff := roundsOff + roundSize*l
	cases := []struct {
		name       string
		mustDecode bool                           // the change leaves valid encodings
		change     func(agg, commR []byte) []byte // returns the transcript bytes
	}{
		{"comm_r flipped", true, func(_, c []byte) []byte { c[5] ^= 1; return niInclude(c) }},
		{"seed ‖ comm_r instead of comm_r", true, func(_, c []byte) []byte {
			h := sha256.New()
			h.Write(make([]byte, 32))
			h.Write(c)
			return h.Sum(nil)
		}},
		{"transcript bytes raw comm_r", true, func(_, c []byte) []byte { return c }},
		{"ip_ab byte flipped", false, func(a, c []byte) []byte { a[4*GTSize+7] ^= 1; return niInclude(c) }},
		{"agg_c byte flipped", false, func(a, c []byte) []byte { a[5*GTSize+20] ^= 1; return niInclude(c) }},
		{"round 0 comms_ab byte flipped", false, func(a, c []byte) []byte { a[roundsOff+100] ^= 1; return niInclude(c) }},
		{"last z_c byte flipped", false, func(a, c []byte) []byte {
			a[finalsOff-G1Size+30] ^= 1
			return niInclude(c)
		}},
		{"final_c byte flipped", false, func(a, c []byte) []byte { a[finalsOff+G1Size+G2Size+9] ^= 1; return niInclude(c) }},
		{"rounds 0 and 1 of z_c swapped", true, func(a, c []byte) []byte {
			zc := roundsOff + l*(8+2)*GTSize
			r0, r1 := a[zc:zc+2*G1Size], a[zc+2*G1Size:zc+4*G1Size]
			tmp := slices.Clone(r0)
			copy(r0, r1)
			copy(r1, tmp)
			return niInclude(c)
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			agg, c := slices.Clone(good), slices.Clone(commR)
			include := tc.change(agg, c)
			p, err := DecodeProof(agg)
			if err != nil {
				if tc.mustDecode || !errors.Is(err, ErrMalformed) {
					t.Fatalf("decoding: %v", err)
				}
				return
			}
			if err := checkGIPA(p, include); err == nil {
				t.Fatal("the changed aggregate passes the GIPA check")
			}
		})
	}
}

// checkGIPA checks the parts of a V2 aggregate's verification that need
// neither the SRS nor the Groth16 verifying key: the GIPA statement folded
// by the transcript's challenges against the final values. Each equation
// is checked exactly, without random weights, so a failure names it.
func checkGIPA(p *Proof, include []byte) error {
	if err := p.checkShape(); err != nil {
		return err
	}
	r, _, xs, xInvs := verifierChallenges(p, include)
	f := foldStatements(p, xs, xInvs)
	rev := slices.Clone(xInvs)
	slices.Reverse(rev)
	var one fr.Element
	one.SetOne()
	finalR := productEval(rev, &r, &one)
	var cr bls12381.G1Affine
	cr.ScalarMultiplication(&p.FinalC, bigOf(&finalR))
	if !cr.Equal(&f.zc) {
		return errors.New("MIPP: final C^(final r) differs from the folded Σ rⁱ·Cᵢ")
	}
	eqs := []struct {
		name string
		g1   []bls12381.G1Affine
		g2   []bls12381.G2Affine
		want *bls12381.GT
	}{
		{"TIPP Z", []bls12381.G1Affine{p.FinalA}, []bls12381.G2Affine{p.FinalB}, &f.zab},
		{"TIPP T", []bls12381.G1Affine{p.FinalA, p.FinalWKey[0]}, []bls12381.G2Affine{p.FinalVKey[0], p.FinalB}, &f.tab},
		{"TIPP U", []bls12381.G1Affine{p.FinalA, p.FinalWKey[1]}, []bls12381.G2Affine{p.FinalVKey[1], p.FinalB}, &f.uab},
		{"MIPP T", []bls12381.G1Affine{p.FinalC}, []bls12381.G2Affine{p.FinalVKey[0]}, &f.tc},
		{"MIPP U", []bls12381.G1Affine{p.FinalC}, []bls12381.G2Affine{p.FinalVKey[1]}, &f.uc},
	}
	for _, e := range eqs {
		got, err := bls12381.Pair(e.g1, e.g2)
		if err != nil {
			return fmt.Errorf("%s: %w", e.name, err)
		}
		if !got.Equal(e.want) {
			return fmt.Errorf("%s: the pairing of the finals differs from the folded statement", e.name)
		}
	}
	return nil
}

// TestReferenceGTCompression reads pairs (g1, g2) with the torus-compressed
// e(g1, g2) as blstrs writes it (testdata/ref-gt/vectors.txt, hex, one
// "g1 g2 gt" per line): the pairing of the decoded points must compress to
// exactly those 288 bytes and the bytes must decode to the pairing.
func TestReferenceGTCompression(t *testing.T) {
	lines := strings.Fields(string(readRef(t, "testdata/ref-gt", "vectors.txt")))
	if len(lines) == 0 || len(lines)%3 != 0 {
		t.Fatalf("%d hex fields, want a positive multiple of 3", len(lines))
	}
	for i := 0; i < len(lines); i += 3 {
		var raw [3][]byte
		for j := range raw {
			b, err := hex.DecodeString(lines[i+j])
			if err != nil {
				t.Fatal(err)
			}
			raw[j] = b
		}
		var g1 bls12381.G1Affine
		var g2 bls12381.G2Affine
		if err := decodeG1(&g1, raw[0]); err != nil {
			t.Fatalf("vector %d: g1: %v", i/3, err)
		}
		if err := decodeG2(&g2, raw[1]); err != nil {
			t.Fatalf("vector %d: g2: %v", i/3, err)
		}
		want, err := bls12381.Pair([]bls12381.G1Affine{g1}, []bls12381.G2Affine{g2})
		if err != nil {
			t.Fatal(err)
		}
		out := make([]byte, GTSize)
		if err := putGT(out, &want); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(out, raw[2]) {
			t.Errorf("vector %d: the compression of e(g1, g2) differs from the reference", i/3)
		}
		var got bls12381.GT
		if err := decodeGT(&got, raw[2]); err != nil {
			t.Fatalf("vector %d: %v", i/3, err)
		}
		if !got.Equal(&want) {
			t.Errorf("vector %d: the reference bytes decode to another element than e(g1, g2)", i/3)
		}
		raw[2][17] ^= 1
		if err := decodeGT(&got, raw[2]); err == nil && got.Equal(&want) {
			t.Errorf("vector %d: a flipped byte still decodes to e(g1, g2)", i/3)
		}
	}
}
