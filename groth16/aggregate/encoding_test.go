package aggregate

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"testing"

	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fp"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// blstrsGTGenerator is blstrs's Gt::generator(), e(g₁, g₂), as its source
// spells it: twelve Fp in Montgomery form (R = 2³⁸⁴), six little-endian
// u64 limbs each, in gtCoeffs order.
var blstrsGTGenerator = [72]uint64{
	0x1972e433a01f85c5, 0x97d32b76fd772538, 0xc8ce546fc96bcdf9, 0xcef63e7366d40614, 0xa611342781843780, 0x13f3448a3fc6d825,
	0xd26331b02e9d6995, 0x9d68a482f7797e7d, 0x9c9b29248d39ea92, 0xf4801ca2e13107aa, 0xa16c0732bdbcb066, 0x083ca4afba360478,
	0x59e261db0916b641, 0x2716b6f4b23e960d, 0xc8e55b10a0bd9c45, 0x0bdb0bd99c4deda8, 0x8cf89ebf57fdaac5, 0x12d6b7929e777a5e,
	0x5fc85188b0e15f35, 0x34a06e3a8f096365, 0xdb3126a6e02ad62c, 0xfc6f5aa97d9a990b, 0xa12f55f5eb89c210, 0x1723703a926f8889,
	0x93588f2971828778, 0x43f65b8611ab7585, 0x3183aaf5ec279fdf, 0xfa73d7e18ac99df6, 0x64e176a6a64c99b0, 0x179fa78c58388f1f,
	0x672a0a11ca2aef12, 0x0d11b9b52aa3f16b, 0xa44412d0699d056e, 0xc01d0177221a5ba5, 0x66e0cede6c735529, 0x05f5a71e9fddc339,
	0xd30a88a1b062c679, 0x5ac56a5d35fc8304, 0xd0c834a6a81f290d, 0xcd5430c2da3707c7, 0xf0c27ff780500af0, 0x09245da6e2d72eae,
	0x9f2e0676791b5156, 0xe2d1c8234918fe13, 0x4c9e459f3c561bf4, 0xa3e85e53b9d3e3c1, 0x820a121e21a70020, 0x15af618341c59acc,
	0x7c95658c24993ab1, 0x73eb38721ca886b9, 0x5256d749477434bc, 0x8ba41902ea504a8b, 0x04a3d3f80c86ce6d, 0x18a64a87fb686eaa,
	0xbb83e71bb920cf26, 0x2a5277ac92a73945, 0xfc0ee59f94f046a0, 0x7158cdf3786058f7, 0x7cc1061b82f945f6, 0x03f847aa9fdbe567,
	0x8078dba56134e657, 0x1cd7ec9a43998a6e, 0xb1aa599a1a993766, 0xc9a0f62f0842ee44, 0x8e159be3b605dffa, 0x0c86ba0d4af13fc2,
	0xe80ff2a06a52ffb1, 0x7694ca48721a906c, 0x7583183e03b08514, 0xf567afdd40cee4e2, 0x9a6d96d2e526a5fc, 0x197e9f49861f2242,
}

func gtGenerator(t testing.TB) bls12381.GT {
	_, _, g1, g2 := bls12381.Generators()
	gt, err := bls12381.Pair([]bls12381.G1Affine{g1}, []bls12381.G2Affine{g2})
	if err != nil {
		t.Fatal(err)
	}
	return gt
}

// gnark-crypto's reduced pairing and Fp12 layout agree with blstrs's: the
// GT values in an aggregate and its transcript are the same numbers. (fp
// and blst share Montgomery form with R = 2³⁸⁴ and limb order.)
func TestGTGeneratorMatchesBlstrs(t *testing.T) {
	gt := gtGenerator(t)
	for i, c := range gtCoeffs(&gt) {
		for j := 0; j < 6; j++ {
			if c[j] != blstrsGTGenerator[6*i+j] {
				t.Fatalf("coefficient %d limb %d: %#x, blstrs %#x", i, j, c[j], blstrsGTGenerator[6*i+j])
			}
		}
	}
}

// The transcript writes GT as bincode writes blstrs's Fp12: twelve
// canonical Fp, little-endian, c0.c0.c0 first.
func TestTranscriptGTBytes(t *testing.T) {
	gt := gtGenerator(t)
	var want bytes.Buffer
	for i := 0; i < 12; i++ {
		var e fp.Element
		copy(e[:], blstrsGTGenerator[6*i:6*i+6])
		var b [fpSize]byte
		fp.LittleEndian.PutElement(&b, e) // canonical, not Montgomery
		want.Write(b[:])
	}
	var got recorder
	(&transcript{h: &got}).gt(&gt)
	if !bytes.Equal(got.Bytes(), want.Bytes()) {
		t.Fatalf("GT transcript bytes differ")
	}
	got.Reset()
	var x fr.Element
	x.SetUint64(0x0102030405060708)
	(&transcript{h: &got}).fr(&x).bytes([]byte{0xaa, 0xbb})
	wantFr := make([]byte, 32+8+2)
	binary.LittleEndian.PutUint64(wantFr, 0x0102030405060708)
	wantFr[32] = 2
	wantFr[40], wantFr[41] = 0xaa, 0xbb
	if !bytes.Equal(got.Bytes(), wantFr) {
		t.Fatalf("Fr and byte-slice transcript bytes: %x, want %x", got.Bytes(), wantFr)
	}
}

// recorder is a hash.Hash that keeps what is written.
type recorder struct{ bytes.Buffer }

func (r *recorder) Sum(b []byte) []byte { return append(b, make([]byte, 32)...) }
func (r *recorder) Size() int           { return 32 }
func (r *recorder) BlockSize() int      { return 64 }

func TestTranscriptChallenge(t *testing.T) {
	a := newTranscript("test").fr(new(fr.Element).SetUint64(1)).challenge()
	b := newTranscript("test").fr(new(fr.Element).SetUint64(1)).challenge()
	c := newTranscript("tesT").fr(new(fr.Element).SetUint64(1)).challenge()
	if !a.Equal(&b) {
		t.Fatal("challenge is not deterministic")
	}
	if a.Equal(&c) {
		t.Fatal("the tag does not reach the challenge")
	}
	if a.IsZero() || a.IsOne() {
		t.Fatal("challenge 0 or 1")
	}
}

// The derivation as bellperson's into_challenge does it, spelled out: the
// counter is a u64 big-endian that stays in the hash from try to try, the
// digest is little-endian with its top bit cleared, 0, 1 and values ≥ r
// are skipped.
func TestChallengeByHand(t *testing.T) {
	got := newTranscript("hand").bytes([]byte("x")).challenge()
	h := newTranscript("hand").bytes([]byte("x")).h
	for ctr := uint64(1); ; ctr++ {
		var cb [8]byte
		binary.BigEndian.PutUint64(cb[:], ctr)
		h.Write(cb[:])
		d := h.Sum(nil)
		d[31] &= 0x7f
		var le [32]byte
		copy(le[:], d)
		want, err := fr.LittleEndian.Element(&le)
		if err != nil || want.IsZero() || want.IsOne() {
			continue
		}
		if !got.Equal(&want) {
			t.Fatalf("challenge %v, by hand %v", got.String(), want.String())
		}
		return
	}
}

func TestGTCompressionRoundTrip(t *testing.T) {
	x := gtGenerator(t)
	for i := 0; i < 8; i++ {
		var b [GTSize]byte
		if err := putGT(b[:], &x); err != nil {
			t.Fatal(err)
		}
		var y bls12381.GT
		if err := decodeGT(&y, b[:]); err != nil {
			t.Fatalf("decode: %v", err)
		}
		if !x.Equal(&y) {
			t.Fatalf("round trip %d differs", i)
		}
		x.Square(&x)
		x.Mul(&x, &y)
	}
	var one bls12381.GT
	one.SetOne()
	if err := putGT(make([]byte, GTSize), &one); !errors.Is(err, ErrNotCompressible) {
		t.Fatalf("compressing 1: %v", err)
	}
}

func TestDecodeGTRejects(t *testing.T) {
	x := gtGenerator(t)
	var good [GTSize]byte
	if err := putGT(good[:], &x); err != nil {
		t.Fatal(err)
	}
	pModulus := fp.Modulus().Bytes() // big-endian
	cases := map[string]func(b []byte){
		"zero (decodes to −1, order 2)": func(b []byte) { clear(b) },
		"one byte changed":              func(b []byte) { b[100] ^= 1 },
		"coefficient equal to p": func(b []byte) {
			for i := range pModulus {
				b[fpSize-1-i] = pModulus[i]
			}
		},
	}
	for name, mutate := range cases {
		b := good
		mutate(b[:])
		var y bls12381.GT
		if err := decodeGT(&y, b[:]); !errors.Is(err, ErrBadEncoding) {
			t.Errorf("%s: got %v, want ErrBadEncoding", name, err)
		}
	}
}

func TestDecodePointFlags(t *testing.T) {
	_, _, g1, g2 := bls12381.Generators()
	var p1 [G1Size]byte
	putG1(p1[:], &g1)
	var p2 [G2Size]byte
	putG2(p2[:], &g2)
	var inf1 [G1Size]byte
	inf1[0] = flagCompressed | flagInfinity
	cases := []struct {
		name string
		b    []byte
		g2   bool
		ok   bool
	}{
		{"G1 generator", p1[:], false, true},
		{"G2 generator", p2[:], true, true},
		{"G1 infinity", inf1[:], false, true},
		{"G1 without compression flag", withByte(p1[:], 0, p1[0]&^flagCompressed), false, false},
		{"G1 infinity with sign flag", withByte(inf1[:], 0, inf1[0]|flagLargest), false, false},
		{"G1 infinity with a set bit", withByte(inf1[:], 47, 1), false, false},
		{"G1 x not canonical", withByte(p1[:], 0, p1[0]|0x1f), false, false},
		{"G2 x.c0 not canonical", fillFF(p2[:], 48, 96), true, false},
	}
	for _, tc := range cases {
		var err error
		if tc.g2 {
			var p bls12381.G2Affine
			err = decodeG2(&p, tc.b)
		} else {
			var p bls12381.G1Affine
			err = decodeG1(&p, tc.b)
		}
		if tc.ok && err != nil {
			t.Errorf("%s: %v", tc.name, err)
		}
		if !tc.ok && !errors.Is(err, ErrBadEncoding) {
			t.Errorf("%s: got %v, want ErrBadEncoding", tc.name, err)
		}
	}
}

func withByte(b []byte, i int, v byte) []byte {
	c := append([]byte(nil), b...)
	c[i] = v
	return c
}

func fillFF(b []byte, lo, hi int) []byte {
	c := append([]byte(nil), b...)
	for i := lo; i < hi; i++ {
		c[i] = 0xff
	}
	return c
}

// The compressed generators as the zcash format (blst, blstrs, the IETF
// BLS drafts) spells them; with the sort flag set they are the negated
// generators.
func TestGeneratorEncodingsZcash(t *testing.T) {
	const (
		g1Hex = "97f1d3a73197d7942695638c4fa9ac0fc3688c4f9774b905a14e3a3f171bac586c55e83ff97a1aeffb3af00adb22c6bb"
		g2Hex = "93e02b6052719f607dacd3a088274f65596bd0d09920b61ab5da61bbdc7f5049334cf11213945d57e5ac7d055d042b7e" +
			"024aa2b2f08f0a91260805272dc51051c6e47ad4fa403b02b4510b647ae3d1770bac0326a805bbefd48056c8c121bdb8"
	)
	_, _, g1, g2 := bls12381.Generators()
	var b1 [G1Size]byte
	putG1(b1[:], &g1)
	var b2 [G2Size]byte
	putG2(b2[:], &g2)
	if got := hex.EncodeToString(b1[:]); got != g1Hex {
		t.Fatalf("G1 generator: %s", got)
	}
	if got := hex.EncodeToString(b2[:]); got != g2Hex {
		t.Fatalf("G2 generator: %s", got)
	}
	b1[0] |= flagLargest
	b2[0] |= flagLargest
	var n1, want1 bls12381.G1Affine
	var n2, want2 bls12381.G2Affine
	want1.Neg(&g1)
	want2.Neg(&g2)
	if err := decodeG1(&n1, b1[:]); err != nil || !n1.Equal(&want1) {
		t.Fatalf("G1 with the sort flag is not −g1 (%v)", err)
	}
	if err := decodeG2(&n2, b2[:]); err != nil || !n2.Equal(&want2) {
		t.Fatalf("G2 with the sort flag is not −g2 (%v)", err)
	}
}
