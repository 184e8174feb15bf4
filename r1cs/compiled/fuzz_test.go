package compiled_test

import (
	"bytes"
	"github.com/cuzk-project/cuzk/r1cs/compiled"
	"os"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// FuzzOpen decodes arbitrary bytes (Read, the decoder Open uses on a
// mapping): it must never panic.
func FuzzOpen(f *testing.F) {
	golden, err := os.ReadFile("testdata/small.r1cs")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(golden)
	f.Add(golden[:compiled.HeaderSize])
	f.Add([]byte(compiled.Magic))
	f.Fuzz(func(t *testing.T, b []byte) {
		// As given, then with the digest recomputed: a random change almost
		// never passes the digest, and the structural checks behind it
		// must hold on their own.
		check(t, b)
		if len(b) >= compiled.HeaderSize {
			b = bytes.Clone(b)
			d := compiled.DigestOf(b)
			copy(b[compiled.DigestOffset:], d[:])
			check(t, b)
		}
	})
}

// check reads b; what it accepts must re-encode to the same bytes and
// evaluate a zero witness.
func check(t *testing.T, b []byte) {
	s, err := compiled.Read(bytes.NewReader(b))
	if err != nil {
		return
	}
	var buf bytes.Buffer
	if err := compiled.Write(&buf, s); err != nil {
		t.Fatalf("accepted, then Write: %v", err)
	}
	if !bytes.Equal(buf.Bytes(), b[:buf.Len()]) {
		t.Fatal("accepted bytes are not canonical")
	}
	if s.NumConstraints < 1<<16 && s.NumColumns() < 1<<16 {
		if err := s.Eval(zeroes(s.NumInputs), zeroes(s.NumAux), zeroes(s.NumConstraints),
			zeroes(s.NumConstraints), zeroes(s.NumConstraints)); err != nil {
			t.Fatal(err)
		}
	}
}

func zeroes(n int) []fr.Element { return make([]fr.Element, n) }
