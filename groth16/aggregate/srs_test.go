package aggregate

import (
	"bytes"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"testing"

	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"
)

func encodeSRS(t testing.TB, s *SRS) []byte {
	t.Helper()
	var buf bytes.Buffer
	n, err := s.WriteTo(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if int(n) != buf.Len() {
		t.Fatalf("WriteTo reported %d bytes, wrote %d", n, buf.Len())
	}
	return buf.Bytes()
}

func TestDevSRSPowers(t *testing.T) {
	s, err := DevSRS([]byte("powers"), 4)
	if err != nil {
		t.Fatal(err)
	}
	_, _, g, h := bls12381.Generators()
	if len(s.GAlpha) != 8 || len(s.HBeta) != 8 {
		t.Fatalf("lengths %d, %d; want 2n = 8", len(s.GAlpha), len(s.HBeta))
	}
	if !s.GAlpha[0].Equal(&g) || !s.GBeta[0].Equal(&g) || !s.HAlpha[0].Equal(&h) || !s.HBeta[0].Equal(&h) {
		t.Fatal("vectors do not start at the generators")
	}
	// e(g^(αⁱ⁺¹), h) = e(g^(αⁱ), h^α): consecutive powers of one α.
	for i := 0; i+1 < len(s.GAlpha); i++ {
		var negH bls12381.G2Affine
		negH.Neg(&s.HAlpha[0])
		ok, err := bls12381.PairingCheck(
			[]bls12381.G1Affine{s.GAlpha[i+1], s.GAlpha[i], s.GBeta[i+1], s.GBeta[i]},
			[]bls12381.G2Affine{negH, s.HAlpha[1], negH, s.HBeta[1]})
		if err != nil || !ok {
			t.Fatalf("power %d is not α times power %d (%v)", i+1, i, err)
		}
	}
	other, _ := DevSRS([]byte("other seed"), 4)
	if other.GAlpha[1].Equal(&s.GAlpha[1]) {
		t.Fatal("the seed does not reach α")
	}
}

func TestSRSRoundTrip(t *testing.T) {
	s, err := DevSRS([]byte("round trip"), 8)
	if err != nil {
		t.Fatal(err)
	}
	enc := encodeSRS(t, s)
	if want := 4*4 + 2*16*G1Size + 2*16*G2Size; len(enc) != want {
		t.Fatalf("encoded %d bytes, want %d", len(enc), want)
	}
	for _, maxLen := range []int{0, 16, 100, 9, 1} {
		got, err := DecodeSRS(enc, maxLen)
		if err != nil {
			t.Fatalf("maxLen %d: %v", maxLen, err)
		}
		keep := 16
		if maxLen > 0 && maxLen < 16 {
			keep = maxLen
		}
		for name, pair := range map[string][2]int{
			"g_alpha": {len(got.GAlpha), keep}, "g_beta": {len(got.GBeta), keep},
			"h_alpha": {len(got.HAlpha), keep}, "h_beta": {len(got.HBeta), keep},
		} {
			if pair[0] != pair[1] {
				t.Fatalf("maxLen %d: %s has %d points, want %d", maxLen, name, pair[0], pair[1])
			}
		}
		for i := 0; i < keep; i++ {
			if !got.GAlpha[i].Equal(&s.GAlpha[i]) || !got.GBeta[i].Equal(&s.GBeta[i]) ||
				!got.HAlpha[i].Equal(&s.HAlpha[i]) || !got.HBeta[i].Equal(&s.HBeta[i]) {
				t.Fatalf("maxLen %d: point %d differs", maxLen, i)
			}
		}
	}
	// A non-seeking reader (the bufio path) reads the same prefix.
	got, err := ReadSRS(struct{ *bytes.Reader }{bytes.NewReader(enc)}, 3)
	if err != nil || len(got.HBeta) != 3 || !got.HBeta[2].Equal(&s.HBeta[2]) {
		t.Fatalf("non-seeking reader: %v", err)
	}
	path := filepath.Join(t.TempDir(), "dev.srs")
	if err := os.WriteFile(path, enc, 0o600); err != nil {
		t.Fatal(err)
	}
	if got, err := ReadSRSFile(path, 4); err != nil || len(got.GBeta) != 4 {
		t.Fatalf("ReadSRSFile: %v", err)
	}
}

func TestDecodeSRSRejects(t *testing.T) {
	s, err := DevSRS([]byte("rejects"), 2)
	if err != nil {
		t.Fatal(err)
	}
	enc := encodeSRS(t, s)
	hAlphaOff := 2 * (4 + 4*G1Size)
	mut := func(f func(b []byte) []byte) []byte { return f(append([]byte(nil), enc...)) }
	cases := map[string][]byte{
		"empty":                   nil,
		"length cut":              enc[:2],
		"truncated in g_alpha":    enc[:4+G1Size+7],
		"truncated in h_beta":     enc[:len(enc)-1],
		"length over MaxSRSSize":  mut(func(b []byte) []byte { binary.BigEndian.PutUint32(b, MaxSRSSize+1); return b }),
		"length over the file":    mut(func(b []byte) []byte { binary.BigEndian.PutUint32(b[hAlphaOff:], 1000); return b }),
		"g_beta[1] bad flags":     mut(func(b []byte) []byte { b[4+4*G1Size+4+G1Size] &^= flagCompressed; return b }),
		"h_alpha[2] off subgroup": mut(func(b []byte) []byte { b[hAlphaOff+4+2*G2Size+50] ^= 0x10; return b }),
	}
	for name, b := range cases {
		if _, err := DecodeSRS(b, 0); !errors.Is(err, ErrBadSRS) {
			t.Errorf("%s: got %v, want ErrBadSRS", name, err)
		}
	}
	// maxLen skips the tail of a vector but still needs it present.
	if _, err := DecodeSRS(enc[:len(enc)-1], 1); !errors.Is(err, ErrBadSRS) {
		t.Errorf("truncated tail with maxLen 1: got %v, want ErrBadSRS", err)
	}
}

func TestSpecialize(t *testing.T) {
	s, err := DevSRS([]byte("specialize"), 8)
	if err != nil {
		t.Fatal(err)
	}
	pk, vk, err := s.Specialize(8)
	if err != nil {
		t.Fatal(err)
	}
	if pk.N != 8 || vk.N != 8 || len(pk.GAlpha) != 16 || len(pk.HAlpha) != 8 ||
		len(pk.vKey.A) != 8 || len(pk.wKey.B) != 8 || !pk.wKey.A[0].Equal(&s.GAlpha[8]) {
		t.Fatal("keys have the wrong shape")
	}
	if !vk.GAlpha.Equal(&s.GAlpha[1]) || !vk.HBeta.Equal(&s.HBeta[1]) || !vk.G.Equal(&s.GAlpha[0]) {
		t.Fatal("verifier key does not hold g, h and the first powers")
	}
	for _, tc := range []struct {
		n    int
		want error
	}{{0, ErrProofCount}, {1, ErrProofCount}, {6, ErrProofCount}, {16, ErrBadSRS}} {
		if _, _, err := s.Specialize(tc.n); !errors.Is(err, tc.want) {
			t.Errorf("n = %d: got %v, want %v", tc.n, err, tc.want)
		}
	}
	bad := *s
	bad.GBeta = append([]bls12381.G1Affine{s.GAlpha[1]}, s.GBeta[1:]...)
	if _, _, err := bad.Specialize(4); !errors.Is(err, ErrBadSRS) {
		t.Errorf("different generators: got %v, want ErrBadSRS", err)
	}
}
