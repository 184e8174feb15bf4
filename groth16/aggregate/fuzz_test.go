package aggregate

import (
	"encoding/binary"
	"errors"
	"testing"
)

// FuzzDecodeSRS: any input is a clean error or an SRS; never a panic.
func FuzzDecodeSRS(f *testing.F) {
	s, err := DevSRS([]byte("fuzz"), 2)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(encodeSRS(f, s), 0)
	f.Add(encodeSRS(f, s), 2)
	f.Add([]byte{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, 0)
	f.Add(binary.BigEndian.AppendUint32(nil, MaxSRSSize), 1)
	f.Fuzz(func(t *testing.T, b []byte, maxLen int) {
		got, err := DecodeSRS(b, maxLen)
		if err != nil {
			if !errors.Is(err, ErrBadSRS) {
				t.Fatalf("error %v does not wrap ErrBadSRS", err)
			}
			return
		}
		if got == nil {
			t.Fatal("nil SRS without an error")
		}
	})
}

// FuzzDecodeProof: any input is a clean error or an aggregate that
// re-encodes to the same bytes.
func FuzzDecodeProof(f *testing.F) {
	fx, err := newFixture(2, 2)
	if err != nil {
		f.Fatal(err)
	}
	pk, _, err := fx.srs.Specialize(2)
	if err != nil {
		f.Fatal(err)
	}
	agg, err := Aggregate(f.Context(), pk, nil, fx.proofs)
	if err != nil {
		f.Fatal(err)
	}
	enc, err := agg.MarshalBinary()
	if err != nil {
		f.Fatal(err)
	}
	f.Add(enc)
	f.Add(enc[:len(enc)-1])
	f.Add(make([]byte, Size(2)))
	f.Add(make([]byte, 1496))
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := DecodeProof(b)
		if err != nil {
			if !errors.Is(err, ErrMalformed) {
				t.Fatalf("error %v does not wrap ErrMalformed", err)
			}
			return
		}
		again, err := p.MarshalBinary()
		if err != nil {
			t.Fatalf("decoded aggregate does not encode: %v", err)
		}
		if string(again) != string(b) {
			t.Fatal("decode/encode is not the identity")
		}
	})
}
