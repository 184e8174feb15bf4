package groth16

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fp"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-project/cuzk/r1cs"
)

// smallParams is a setup shared by the encoding tests.
var smallParams = sync.OnceValues(func() (*Params, error) {
	c := randCircuit{Seed: 7, Inputs: 5, Rows: 60}
	return Setup(&c, []byte("small"))
})

func mustSmall(t testing.TB) (*Params, []byte) {
	t.Helper()
	p, err := smallParams()
	if err != nil {
		t.Fatal(err)
	}
	b, err := p.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	return p, b
}

// vectorLayout locates each vector of a .params image: offset of its first
// point, its count and point size.
type vecLoc struct{ off, n, size int }

func paramsLayout(t testing.TB, b []byte) map[string]vecLoc {
	t.Helper()
	out := map[string]vecLoc{
		"alpha_g1": {0, 1, G1Size}, "beta_g1": {96, 1, G1Size}, "beta_g2": {192, 1, G2Size},
		"gamma_g2": {384, 1, G2Size}, "delta_g1": {576, 1, G1Size}, "delta_g2": {672, 1, G2Size},
	}
	off := vkFixedSize
	for _, v := range []struct {
		name string
		size int
	}{{"ic", G1Size}, {"h", G1Size}, {"l", G1Size}, {"a", G1Size}, {"b_g1", G1Size}, {"b_g2", G2Size}} {
		n := int(binary.BigEndian.Uint32(b[off:]))
		out[v.name] = vecLoc{off + 4, n, v.size}
		off += 4 + n*v.size
	}
	if off != len(b) {
		t.Fatalf("layout: %d bytes parsed, file has %d", off, len(b))
	}
	return out
}

func TestGeneratorEncodings(t *testing.T) {
	// The zcash encodings of the generators (blstrs src/g1.rs, src/g2.rs).
	const g1Hex = "97f1d3a73197d7942695638c4fa9ac0fc3688c4f9774b905a14e3a3f171bac586c55e83ff97a1aeffb3af00adb22c6bb"
	const g2Hex = "93e02b6052719f607dacd3a088274f65596bd0d09920b61ab5da61bbdc7f5049334cf11213945d57e5ac7d055d042b7e024aa2b2f08f0a91260805272dc51051c6e47ad4fa403b02b4510b647ae3d1770bac0326a805bbefd48056c8c121bdb8"
	_, _, g1, g2 := bls12381.Generators()
	b1 := g1.Bytes()
	b2 := g2.Bytes()
	if got := hex.EncodeToString(b1[:]); got != g1Hex {
		t.Errorf("G1 generator compressed = %s, want %s", got, g1Hex)
	}
	if got := hex.EncodeToString(b2[:]); got != g2Hex {
		t.Errorf("G2 generator compressed = %s, want %s", got, g2Hex)
	}
	// Our compressed decoders read them back.
	var q1 bls12381.G1Affine
	var q2 bls12381.G2Affine
	if err := decodeCompressedG1(&q1, b1[:]); err != nil || !q1.Equal(&g1) {
		t.Errorf("decode G1 generator: %v", err)
	}
	if err := decodeCompressedG2(&q2, b2[:]); err != nil || !q2.Equal(&g2) {
		t.Errorf("decode G2 generator: %v", err)
	}
	// Uncompressed: x ‖ y (G1), x.c1 ‖ x.c0 ‖ y.c1 ‖ y.c0 (G2), no flags.
	var u1 [G1Size]byte
	var u2 [G2Size]byte
	EncodeG1(u1[:], &g1)
	EncodeG2(u2[:], &g2)
	if !bytes.Equal(u1[:48], append([]byte{b1[0] &^ flagMask}, b1[1:]...)) {
		t.Error("G1 uncompressed x differs from the compressed x")
	}
	if !bytes.Equal(u2[:96], append([]byte{b2[0] &^ flagMask}, b2[1:]...)) {
		t.Error("G2 uncompressed x.c1 ‖ x.c0 differs from the compressed x")
	}
	if p, err := DecodeG1(u1[:]); err != nil || !p.Equal(&g1) {
		t.Errorf("DecodeG1(generator): %v", err)
	}
	if p, err := DecodeG2(u2[:]); err != nil || !p.Equal(&g2) {
		t.Errorf("DecodeG2(generator): %v", err)
	}
}

func TestParamsRoundTrip(t *testing.T) {
	p, b := mustSmall(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "small.params")
	if err := WriteParams(path, p); err != nil {
		t.Fatal(err)
	}
	onDisk, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(onDisk, b) {
		t.Fatal("WriteParams and MarshalBinary differ")
	}
	for _, opts := range []ReadOptions{
		{Checked: true}, {Checked: false}, {Checked: true, NoMmap: true}, {Workers: 1}, {Checked: true, Workers: 3},
	} {
		q, err := ReadParams(path, opts)
		if err != nil {
			t.Fatalf("ReadParams(%+v): %v", opts, err)
		}
		again, err := q.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(again, b) {
			t.Fatalf("ReadParams(%+v) then write: bytes differ", opts)
		}
	}

	// The .vk file is the params prefix.
	vkPath := filepath.Join(dir, "small.vk")
	if err := WriteVerifyingKey(vkPath, &p.VK); err != nil {
		t.Fatal(err)
	}
	vkb, err := os.ReadFile(vkPath)
	if err != nil {
		t.Fatal(err)
	}
	if len(vkb) != VerifyingKeySize(len(p.VK.IC)) || !bytes.Equal(vkb, b[:len(vkb)]) {
		t.Fatalf(".vk (%d bytes) is not the params prefix", len(vkb))
	}
	vk, err := ReadVerifyingKey(vkPath)
	if err != nil {
		t.Fatal(err)
	}
	vk2, err := vk.MarshalBinary()
	if err != nil || !bytes.Equal(vk2, vkb) {
		t.Fatalf("vk round trip differs (%v)", err)
	}
	vk3, err := ReadVerifyingKeyFromParams(path)
	if err != nil {
		t.Fatal(err)
	}
	if vk4, _ := vk3.MarshalBinary(); !bytes.Equal(vk4, vkb) {
		t.Fatal("ReadVerifyingKeyFromParams differs from the .vk")
	}
}

func TestSetupDeterministic(t *testing.T) {
	c := randCircuit{Seed: 3, Inputs: 2, Rows: 20}
	enc := func(seed string) []byte {
		p, err := Setup(&c, []byte(seed))
		if err != nil {
			t.Fatal(err)
		}
		b, _ := p.MarshalBinary()
		return b
	}
	a, b, d := enc("x"), enc("x"), enc("y")
	if !bytes.Equal(a, b) {
		t.Error("same seed, different params")
	}
	if bytes.Equal(a, d) {
		t.Error("different seeds, same params")
	}
}

// unusedAux allocates an aux variable that no constraint mentions.
type unusedAux struct{}

func (unusedAux) Synthesize(cs r1cs.ConstraintSystem) error {
	var one r1cs.LinearCombination
	one.Add(r1cs.One)
	var v fr.Element
	v.SetOne()
	x := cs.Alloc(v)
	cs.Alloc(v) // never constrained
	var lx r1cs.LinearCombination
	lx.Add(x)
	cs.Enforce(lx, one, lx)
	return nil
}

func TestSetupRejectsUnconstrainedAux(t *testing.T) {
	_, err := Setup(unusedAux{}, []byte("s"))
	if !errors.Is(err, ErrUnconstrained) || !strings.Contains(err.Error(), "aux[1]") {
		t.Fatalf("Setup = %v, want ErrUnconstrained naming aux[1]", err)
	}
}

// nonSubgroupG1 returns a point on E(Fp) outside the prime-order subgroup.
func nonSubgroupG1() bls12381.G1Affine {
	var p bls12381.G1Affine
	var four fp.Element
	four.SetUint64(4)
	for x := uint64(1); ; x++ {
		p.X.SetUint64(x)
		var rhs fp.Element
		rhs.Square(&p.X).Mul(&rhs, &p.X).Add(&rhs, &four)
		if p.Y.Sqrt(&rhs) != nil && p.IsOnCurve() && !p.IsInSubGroup() {
			return p
		}
	}
}

// nonSubgroupG2 returns a point on the twist outside the subgroup.
func nonSubgroupG2() bls12381.G2Affine {
	_, _, _, g := bls12381.Generators()
	// b' = y² − x³ of the generator.
	b := g.Y
	b.Square(&b)
	x3 := g.X
	x3.Square(&x3).Mul(&x3, &g.X)
	b.Sub(&b, &x3)
	var p bls12381.G2Affine
	for x := uint64(1); ; x++ {
		p.X.A0.SetUint64(x)
		p.X.A1.SetUint64(1)
		rhs := p.X
		rhs.Square(&rhs).Mul(&rhs, &p.X).Add(&rhs, &b)
		if rhs.Legendre() != 1 {
			continue
		}
		p.Y.Sqrt(&rhs)
		if p.IsOnCurve() && !p.IsInSubGroup() {
			return p
		}
	}
}

func fpModulusBytes() []byte {
	return fp.Modulus().FillBytes(make([]byte, 48))
}

type mutation func(pt []byte, size int)

var (
	mutIdentity = func(pt []byte, size int) {
		clear(pt[:size])
		pt[0] = flagInfinity
	}
	mutOffCurve    = func(pt []byte, size int) { pt[size-1] ^= 1 }
	mutNonCanon    = func(pt []byte, size int) { copy(pt[:48], fpModulusBytes()) } // x = p
	mutCompressed  = func(pt []byte, size int) { pt[0] |= flagCompressed }
	mutNonSubgroup = func(pt []byte, size int) {
		if size == G1Size {
			q := nonSubgroupG1()
			EncodeG1(pt, &q)
		} else {
			q := nonSubgroupG2()
			EncodeG2(pt, &q)
		}
	}
)

// badPoint is one point of a .params image spoiled: the decoders reject it
// (naming the vector and, for a vector, the index) or accept it.
type badPoint struct {
	vector    string
	index     int
	mut       mutation
	checked   bool
	wantErr   error // nil: must decode
	wantIndex bool
}

var badPoints = []badPoint{
	{"h", 3, mutIdentity, false, ErrPointAtInfinity, true},
	{"l", 2, mutIdentity, true, ErrPointAtInfinity, true},
	{"a", 0, mutIdentity, false, ErrPointAtInfinity, true},
	{"b_g1", 1, mutIdentity, false, ErrPointAtInfinity, true},
	{"b_g2", 1, mutIdentity, true, ErrPointAtInfinity, true},
	{"ic", 2, mutIdentity, false, ErrPointAtInfinity, true},
	{"alpha_g1", 0, mutIdentity, true, nil, false}, // VerifyingKey::read accepts it
	{"l", 5, mutOffCurve, false, ErrNotOnCurve, true},
	{"h", 0, mutOffCurve, true, ErrNotOnCurve, true},
	{"b_g2", 0, mutOffCurve, false, ErrNotOnCurve, true},
	{"delta_g2", 0, mutOffCurve, false, ErrNotOnCurve, false},
	{"beta_g1", 0, mutOffCurve, false, ErrNotOnCurve, false},
	{"a", 4, mutNonCanon, false, ErrNonCanonical, true},
	{"b_g2", 2, mutNonCanon, true, ErrNonCanonical, true},
	{"ic", 0, mutNonCanon, false, ErrNonCanonical, true},
	{"gamma_g2", 0, mutNonCanon, false, ErrNonCanonical, false},
	{"h", 1, mutCompressed, false, ErrBadPointEncoding, true},
	{"a", 3, mutNonSubgroup, true, ErrNotInSubgroup, true},
	{"a", 3, mutNonSubgroup, false, nil, false}, // unchecked: subgroup not verified
	{"b_g2", 1, mutNonSubgroup, true, ErrNotInSubgroup, true},
	{"b_g2", 1, mutNonSubgroup, false, nil, false},
	{"l", 1, mutNonSubgroup, true, ErrNotInSubgroup, true},
	{"ic", 1, mutNonSubgroup, false, ErrNotInSubgroup, true}, // the VK is always checked
	{"delta_g1", 0, mutNonSubgroup, false, ErrNotInSubgroup, false},
	{"beta_g2", 0, mutNonSubgroup, false, ErrNotInSubgroup, false},
}

// checkBadPointErr checks a decoder's outcome on tc's image.
func checkBadPointErr(t *testing.T, tc badPoint, err error) {
	t.Helper()
	if tc.wantErr == nil {
		if err != nil {
			t.Fatalf("decode: %v, want success", err)
		}
		return
	}
	if !errors.Is(err, tc.wantErr) {
		t.Fatalf("decode: %v, want %v", err, tc.wantErr)
	}
	want := "params: " + tc.vector
	if tc.wantIndex {
		want += "[" + strconv.Itoa(tc.index) + "]"
	}
	if !strings.Contains(err.Error(), want) {
		t.Fatalf("error %q does not name %q", err, want)
	}
	var pe *PointError
	if !errors.As(err, &pe) || pe.Vector != tc.vector {
		t.Fatalf("error %v is not a PointError for %s", err, tc.vector)
	}
}

// spoil returns good with tc's point spoiled.
func spoil(t *testing.T, good []byte, lay map[string]vecLoc, tc badPoint) []byte {
	t.Helper()
	loc, ok := lay[tc.vector]
	if !ok || tc.index >= loc.n {
		t.Fatalf("%s has %d points; index %d", tc.vector, loc.n, tc.index)
	}
	b := bytes.Clone(good)
	at := loc.off + tc.index*loc.size
	tc.mut(b[at:], loc.size)
	return b
}

func badPointName(tc badPoint) string {
	return tc.vector + "/" + map[bool]string{true: "checked", false: "unchecked"}[tc.checked]
}

func TestParamsRejectsBadPoints(t *testing.T) {
	_, good := mustSmall(t)
	lay := paramsLayout(t, good)
	for _, tc := range badPoints {
		t.Run(badPointName(tc), func(t *testing.T) {
			_, err := DecodeParams(spoil(t, good, lay, tc), ReadOptions{Checked: tc.checked})
			checkBadPointErr(t, tc, err)
		})
	}
}

// malformed is a .params image with a structural defect and what the
// error mentions ("" : anything).
type malformed struct {
	name string
	b    []byte
	want string
}

func malformedImages(good []byte, lay map[string]vecLoc) []malformed {
	setLen := func(b []byte, vec string, n uint32) []byte {
		binary.BigEndian.PutUint32(b[lay[vec].off-4:], n)
		return b
	}
	return []malformed{
		{"empty", nil, "truncated at alpha_g1"},
		{"fixed points cut", good[:500], "truncated at gamma_g2"},
		{"no ic length", good[:vkFixedSize+2], "truncated at ic length"},
		{"cut inside l", good[:lay["l"].off+50], "|l|"},
		{"cut before b_g2 length", good[:lay["b_g2"].off-4], "truncated at b_g2 length"},
		{"cut inside b_g2", good[:len(good)-1], "|b_g2|"},
		{"trailing byte", append(bytes.Clone(good), 0), "1 trailing bytes"},
		{"huge h length", setLen(bytes.Clone(good), "h", 0xffffffff), "|h| = 4294967295"},
		{"l length one too many", setLen(bytes.Clone(good), "l", uint32(lay["l"].n+1)), ""},
		{"l length one too few", setLen(bytes.Clone(good), "l", uint32(lay["l"].n-1)), ""},
		{"b_g1 ≠ b_g2", setLen(append(bytes.Clone(good[:lay["b_g2"].off]), good[lay["b_g2"].off+G2Size:]...), "b_g2", uint32(lay["b_g2"].n-1)), "|b_g1|"},
	}
}

func TestParamsRejectsMalformed(t *testing.T) {
	_, good := mustSmall(t)
	cases := malformedImages(good, paramsLayout(t, good))
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			for _, checked := range []bool{false, true} {
				_, err := DecodeParams(tc.b, ReadOptions{Checked: checked})
				if err == nil {
					t.Fatal("DecodeParams accepted a malformed file")
				}
				if tc.want != "" && !strings.Contains(err.Error(), tc.want) {
					t.Fatalf("error %q does not mention %q", err, tc.want)
				}
			}
		})
	}
	// A file on disk too.
	path := filepath.Join(t.TempDir(), "cut.params")
	if err := os.WriteFile(path, good[:len(good)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadParams(path, ReadOptions{}); !errors.Is(err, ErrMalformed) {
		t.Fatalf("ReadParams(truncated) = %v, want ErrMalformed", err)
	}
	if _, err := ReadParams(filepath.Join(t.TempDir(), "missing.params"), ReadOptions{}); err == nil {
		t.Fatal("ReadParams(missing) succeeded")
	}
}

func TestVerifyingKeyDecode(t *testing.T) {
	p, good := mustSmall(t)
	vkb := good[:VerifyingKeySize(len(p.VK.IC))]
	if _, err := DecodeVerifyingKey(vkb); err != nil {
		t.Fatal(err)
	}
	if _, err := DecodeVerifyingKey(good); err == nil || !strings.Contains(err.Error(), "trailing") {
		t.Fatalf("DecodeVerifyingKey(params) = %v, want trailing-bytes error", err)
	}
	if _, err := DecodeVerifyingKey(vkb[:len(vkb)-1]); !errors.Is(err, ErrMalformed) {
		t.Fatalf("truncated vk: %v", err)
	}
	b := bytes.Clone(vkb)
	mutIdentity(b[vkFixedSize+4+G1Size:], G1Size)
	if _, err := DecodeVerifyingKey(b); !errors.Is(err, ErrPointAtInfinity) || !strings.Contains(err.Error(), "vk: ic[1]") {
		t.Fatalf("identity in ic: %v", err)
	}
	b = bytes.Clone(vkb)
	mutNonSubgroup(b[vkFixedSize+4:], G1Size)
	if _, err := DecodeVerifyingKey(b); !errors.Is(err, ErrNotInSubgroup) || !strings.Contains(err.Error(), "vk: ic[0]") {
		t.Fatalf("non-subgroup ic: %v", err)
	}
}

func TestCheckShape(t *testing.T) {
	c := randCircuit{Seed: 11, Inputs: 4, Rows: 50, BitHeavy: true}
	p, err := Setup(&c, []byte("shape"))
	if err != nil {
		t.Fatal(err)
	}
	a, err := Synthesize(&c, r1cs.Shape{})
	if err != nil {
		t.Fatal(err)
	}
	var cnt r1cs.Counter
	if err := r1cs.Synthesize(&cnt, &c); err != nil {
		t.Fatal(err)
	}
	sa, sc := ShapeOfAssignment(a), ShapeOfCounter(&cnt)
	if sa != sc {
		t.Fatalf("shape of assignment %+v ≠ shape of counter %+v", sa, sc)
	}
	if err := p.CheckShape(sa); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		mod  func(s *Shape)
		want string
	}{
		{"inputs", func(s *Shape) { s.Inputs++ }, "|ic| = "},
		{"aux", func(s *Shape) { s.Aux += 2 }, "|l| = "},
		{"a density", func(s *Shape) { s.ADensityAuxPop-- }, "|a| = "},
		{"b input density", func(s *Shape) { s.BDensityInputPop++ }, "|b_g1| = "},
		{"b aux density", func(s *Shape) { s.BDensityAuxPop-- }, "|b_g1| = "},
		{"constraints", func(s *Shape) { s.Constraints = s.DomainSize() + 1 }, "|h| = "},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := sa
			tc.mod(&s)
			err := p.CheckShape(s)
			if !errors.Is(err, ErrParamsMismatch) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("CheckShape = %v, want ErrParamsMismatch with %q", err, tc.want)
			}
		})
	}
	// Fewer constraints within the same domain still match.
	s := sa
	s.Constraints = s.DomainSize()/2 + 1
	if err := p.CheckShape(s); err != nil {
		t.Fatalf("same domain: %v", err)
	}
}

// TestParamsParallelDecode exercises several decoding chunks per vector.
func TestParamsParallelDecode(t *testing.T) {
	c := randCircuit{Seed: 8, Inputs: 3, Rows: 3000}
	p, err := Setup(&c, []byte("parallel"))
	if err != nil {
		t.Fatal(err)
	}
	good, err := p.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	lay := paramsLayout(t, good)
	if lay["h"].n < 4000 {
		t.Fatalf("|h| = %d, want ≥ 4000 for several chunks", lay["h"].n)
	}
	for _, w := range []int{1, 2, 4} {
		q, err := DecodeParams(good, ReadOptions{Checked: true, Workers: w})
		if err != nil {
			t.Fatalf("workers=%d: %v", w, err)
		}
		if b, _ := q.MarshalBinary(); !bytes.Equal(b, good) {
			t.Fatalf("workers=%d: round trip differs", w)
		}
	}
	at := func(vec string, i int) int { return lay[vec].off + i*lay[vec].size }
	// Two bad points in different chunks: the lowest index is reported.
	b := bytes.Clone(good)
	mutOffCurve(b[at("h", 3900):], G1Size)
	mutOffCurve(b[at("h", 2500):], G1Size)
	if _, err := DecodeParams(b, ReadOptions{Workers: 4}); !errors.Is(err, ErrNotOnCurve) || !strings.Contains(err.Error(), "h[2500]") {
		t.Fatalf("two bad points: %v", err)
	}
	// A point outside the subgroup deep in a chunk is found by the batch
	// test and named by the rescan.
	b = bytes.Clone(good)
	mutNonSubgroup(b[at("h", 3333):], G1Size)
	if _, err := DecodeParams(b, ReadOptions{Checked: true, Workers: 4}); !errors.Is(err, ErrNotInSubgroup) || !strings.Contains(err.Error(), "h[3333]") {
		t.Fatalf("non-subgroup h[3333]: %v", err)
	}
	if _, err := DecodeParams(b, ReadOptions{Workers: 4}); err != nil {
		t.Fatalf("unchecked read of a non-subgroup point: %v", err)
	}
}
