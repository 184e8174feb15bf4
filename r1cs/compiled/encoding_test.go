package compiled_test

import (
	"bytes"
	"encoding/hex"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-project/cuzk/r1cs"
	"github.com/cuzk-project/cuzk/r1cs/compiled"
)

var updateGolden = flag.Bool("update", false, "rewrite testdata/small.r1cs and testdata/small.digest")

// smallCircuit is the golden file's circuit: fixed, with inputs, raw
// combinations and coefficients beyond ±1, and small (2 KB encoded).
func smallCircuit() r1cs.Circuit {
	return &randCircuit{Seed: 42, Inputs: 3, Rows: 24, Raw: true}
}

func encoded(t testing.TB, s *compiled.System) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := compiled.Write(&buf, s); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// equalSystems compares every field, element by element.
func equalSystems(t *testing.T, got, want *compiled.System) {
	t.Helper()
	if got.NumInputs != want.NumInputs || got.NumAux != want.NumAux || got.NumConstraints != want.NumConstraints {
		t.Fatalf("sizes %d/%d/%d, want %d/%d/%d", got.NumInputs, got.NumAux, got.NumConstraints, want.NumInputs, want.NumAux, want.NumConstraints)
	}
	if got.Digest != want.Digest {
		t.Fatalf("digest %x, want %x", got.Digest, want.Digest)
	}
	if len(got.Coeffs) != len(want.Coeffs) {
		t.Fatalf("%d coefficients, want %d", len(got.Coeffs), len(want.Coeffs))
	}
	for i := range got.Coeffs {
		if got.Coeffs[i] != want.Coeffs[i] {
			t.Fatalf("coefficient %d differs", i)
		}
	}
	gm, wm := got.Matrices(), want.Matrices()
	for i := range gm {
		if !equalInts(gm[i].RowPtr, wm[i].RowPtr) || !equalInts(gm[i].Col, wm[i].Col) || !equalInts(gm[i].Coeff, wm[i].Coeff) {
			t.Fatalf("matrix %c differs", 'A'+i)
		}
	}
	equalBitmap(t, "a_aux", got.ADensityAux, want.ADensityAux)
	equalBitmap(t, "b_input", got.BDensityInput, want.BDensityInput)
	equalBitmap(t, "b_aux", got.BDensityAux, want.BDensityAux)
}

func equalInts[T uint16 | uint32](a, b []T) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestRoundTrip(t *testing.T) {
	for _, tc := range equalCases() {
		if !tc.short && testing.Short() {
			continue
		}
		t.Run(tc.name, func(t *testing.T) {
			s := compile(t, tc.c, tc.hint)
			b := encoded(t, s)
			got, err := compiled.Read(bytes.NewReader(b))
			if err != nil {
				t.Fatal(err)
			}
			equalSystems(t, got, s)
			path := filepath.Join(t.TempDir(), "s.r1cs")
			if err := os.WriteFile(path, b, 0o644); err != nil {
				t.Fatal(err)
			}
			opened, err := compiled.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer opened.Close()
			equalSystems(t, opened, s)
			// The mapped system evaluates like the compiled one, and writes
			// the same bytes.
			checkAgainstProver(t, opened, witnessOf(t, tc.c, tc.hint), proverOf(t, tc.c, tc.hint))
			if again := encoded(t, opened); !bytes.Equal(again, b) {
				t.Fatal("re-encoding the opened system changes the bytes")
			}
			// Its pages given back (a device holds the matrices), it reads
			// them from the file again: the same system, the same values.
			opened.DropPages()
			equalSystems(t, opened, s)
			checkAgainstProver(t, opened, witnessOf(t, tc.c, tc.hint), proverOf(t, tc.c, tc.hint))
			s.DropPages() // a compiled one: nothing to drop
			equalSystems(t, s, opened)
		})
	}
}

// TestDigestStable compiles twice: same digest, same bytes.
func TestDigestStable(t *testing.T) {
	c := &gadgetCircuit{Data: []byte("stable"), X: 3}
	s1, s2 := compile(t, c, r1cs.Shape{}), compile(t, c, r1cs.Shape{Constraints: 1 << 16, Aux: 1 << 16})
	if s1.Digest != s2.Digest {
		t.Fatalf("digests %x and %x", s1.Digest, s2.Digest)
	}
	if !bytes.Equal(encoded(t, s1), encoded(t, s2)) {
		t.Fatal("same digest, different bytes")
	}
	other := compile(t, &gadgetCircuit{Data: []byte("stablE"), X: 3}, r1cs.Shape{})
	if other.Digest != s1.Digest {
		t.Fatal("the witness changed the constraints' digest") // the data are values, not structure
	}
}

// TestGolden pins the layout: a change of encoding changes these bytes and
// this digest (then bump the version and run with -update).
func TestGolden(t *testing.T) {
	s := compile(t, smallCircuit(), r1cs.Shape{})
	b := encoded(t, s)
	digestHex := hex.EncodeToString(s.Digest[:])
	if *updateGolden {
		if err := os.WriteFile("testdata/small.r1cs", b, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile("testdata/small.digest", []byte(digestHex+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile("testdata/small.digest")
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.TrimSpace(string(want)); got != digestHex {
		t.Errorf("digest %s, golden %s", digestHex, got)
	}
	golden, err := os.ReadFile("testdata/small.r1cs")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(b, golden) {
		t.Fatalf("encoding (%d bytes) differs from testdata/small.r1cs (%d bytes)", len(b), len(golden))
	}
	if hex.EncodeToString(golden[compiled.DigestOffset:compiled.DigestOffset+32]) != digestHex {
		t.Fatal("golden header's digest is not the digest")
	}
}

// TestFlippedByte flips each byte of the golden encoding in turn: every
// flip must be refused, a flip outside the digest field for its digest.
func TestFlippedByte(t *testing.T) {
	golden, err := os.ReadFile("testdata/small.r1cs")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := compiled.Read(bytes.NewReader(golden)); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "flipped.r1cs")
	for i := range golden {
		b := bytes.Clone(golden)
		b[i] ^= 0x10
		_, err := compiled.Read(bytes.NewReader(b))
		if err == nil {
			t.Fatalf("byte %d flipped: accepted", i)
		}
		inHeaderCounts := i < compiled.DigestOffset // a flipped count or magic fails before the digest is computed
		if !inHeaderCounts && !errors.Is(err, compiled.ErrDigestMismatch) {
			t.Fatalf("byte %d flipped: %v, want a digest mismatch", i, err)
		}
		if i == compiled.HeaderSize+40 { // one check through the mapped path
			if err := os.WriteFile(path, b, 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := compiled.Open(path)
			if !errors.Is(err, compiled.ErrDigestMismatch) || !strings.Contains(err.Error(), "digest mismatch") {
				t.Fatalf("Open of a flipped file: %v", err)
			}
			t.Log(err)
		}
	}
}

// TestDecodeInvariants re-digests encodings that are structurally wrong, so
// that only the structural checks can refuse them.
func TestDecodeInvariants(t *testing.T) {
	golden, err := os.ReadFile("testdata/small.r1cs")
	if err != nil {
		t.Fatal(err)
	}
	s, err := compiled.Read(bytes.NewReader(golden))
	if err != nil {
		t.Fatal(err)
	}
	l := compiled.SectionsOf(s)
	put32 := func(b []byte, off int, v uint32) {
		b[off], b[off+1], b[off+2], b[off+3] = byte(v), byte(v>>8), byte(v>>16), byte(v>>24)
	}
	// A row of A with two entries or more.
	r := 0
	for r < s.NumConstraints && s.A.RowPtr[r+1]-s.A.RowPtr[r] < 2 {
		r++
	}
	if r == s.NumConstraints {
		t.Fatal("no row of A has two entries; pick another circuit")
	}
	k := int(s.A.RowPtr[r])
	var zero [32]byte
	tests := []struct {
		name string
		f    func(b []byte)
	}{
		{"column out of range", func(b []byte) { put32(b, l.Col[0], uint32(s.NumColumns())) }},
		{"columns not increasing", func(b []byte) { put32(b, l.Col[0]+4*(k+1), s.A.Col[k]) }},
		{"coefficient index out of range", func(b []byte) { b[l.Coeff[0]], b[l.Coeff[0]+1] = 0xff, 0xff }},
		{"row pointer decreasing", func(b []byte) { put32(b, l.RowPtr[1]+4, 1<<20) }},
		{"last row pointer", func(b []byte) { put32(b, l.RowPtr[2]+4*s.NumConstraints, 0) }},
		{"coefficient 0 not one", func(b []byte) { b[l.Coeffs] = 2 }},
		{"coefficient zero", func(b []byte) { copy(b[l.Coeffs+2*compiled.CoeffBytes:], zero[:]) }},
		{"coefficient repeated", func(b []byte) {
			copy(b[l.Coeffs+2*compiled.CoeffBytes:], b[l.Coeffs:l.Coeffs+compiled.CoeffBytes])
		}},
		{"coefficient not canonical", func(b []byte) {
			for i := range 32 {
				b[l.Coeffs+2*compiled.CoeffBytes+i] = 0xff
			}
		}},
		{"density bit past the count", func(b []byte) { b[l.Density[1]+7] = 0x80 }},
		{"entry without density bit", func(b []byte) {
			for i := range l.DensitySize[2] {
				b[l.Density[2]+i] = 0
			}
		}},
		{"padding", func(b []byte) { b[len(b)-1] = 1 }},
		{"reserved header", func(b []byte) { b[80] = 1 }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := bytes.Clone(golden)
			tc.f(b)
			d := compiled.DigestOf(b)
			copy(b[compiled.DigestOffset:], d[:])
			_, err := compiled.Read(bytes.NewReader(b))
			if !errors.Is(err, compiled.ErrMalformed) {
				t.Fatalf("error %v, want compiled.ErrMalformed", err)
			}
			t.Log(err)
		})
	}
}

func TestReadHeaderErrors(t *testing.T) {
	golden, err := os.ReadFile("testdata/small.r1cs")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		b    []byte
		want error
	}{
		{"empty", nil, compiled.ErrMalformed},
		{"short header", golden[:100], compiled.ErrMalformed},
		{"truncated", golden[:len(golden)-1], compiled.ErrMalformed},
		{"trailing byte", append(bytes.Clone(golden), 0), compiled.ErrMalformed},
		{"magic", append([]byte("CUZKR1CT"), golden[8:]...), compiled.ErrMalformed},
		{"version", func() []byte { b := bytes.Clone(golden); b[8] = 2; return b }(), compiled.ErrVersion},
		{"huge counts", func() []byte {
			b := bytes.Clone(golden)
			for i := 16; i < 72; i++ {
				b[i] = 0xff
			}
			return b
		}(), compiled.ErrMalformed},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := compiled.Read(bytes.NewReader(tc.b))
			if tc.name == "trailing byte" {
				// Read stops at the announced size; the mapped path sees the whole file.
				if err != nil {
					t.Fatalf("Read: %v", err)
				}
				_, err = compiled.Decode(tc.b)
			}
			if !errors.Is(err, tc.want) {
				t.Fatalf("error %v, want %v", err, tc.want)
			}
		})
	}
}

// TestWriteRefusesModified: a system changed after Compile no longer
// matches its digest.
func TestWriteRefusesModified(t *testing.T) {
	s := compile(t, smallCircuit(), r1cs.Shape{})
	s.Coeffs = append([]fr.Element(nil), s.Coeffs...)
	s.Coeffs[len(s.Coeffs)-1].SetUint64(12345)
	var buf bytes.Buffer
	if err := compiled.Write(&buf, s); !errors.Is(err, compiled.ErrDigestMismatch) {
		t.Fatalf("error %v, want compiled.ErrDigestMismatch", err)
	}
}
