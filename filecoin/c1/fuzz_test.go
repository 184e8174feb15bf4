package c1

import (
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/cuzk-project/cuzk/filecoin"
	"github.com/cuzk-project/cuzk/hash"
)

// FuzzDecode feeds arbitrary bytes to Decode and what it accepts to
// Verify: neither panics, every rejection wraps ErrBadVanillaProof, and an
// accepted output encodes and decodes to the same bytes again. The seeds
// are a verifying 2 KiB C1 and a random-valued one.
func FuzzDecode(f *testing.F) {
	valid := mustMarshal(f, seal(f, filecoin.StackedDrg2KiBV1_1, rand.New(rand.NewPCG(1, 1))).output(f, hash.Domain{1}))
	f.Add(valid)
	good := mustMarshal(f, randomOutput(f, filecoin.StackedDrg2KiBV1_1, 1))
	f.Add(good)
	f.Add(good[:len(good)/3])
	f.Add([]byte(`{"registered_proof":"StackedDrg2KiBV1_1","vanilla_proofs":{"StackedDrg2KiBV1":[[]]}}`))
	f.Add([]byte(`{"a":[{"b":-1.5e+3},"\u00e9\ud83d\ude00",true,false,null]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		o, err := Decode(b)
		if err != nil {
			if !errors.Is(err, ErrBadVanillaProof) {
				t.Fatalf("%v does not wrap ErrBadVanillaProof", err)
			}
			return
		}
		enc, err := o.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		o2, err := Decode(enc)
		if err != nil {
			t.Fatalf("re-decoding an accepted output: %v", err)
		}
		enc2, _ := o2.MarshalJSON()
		if string(enc) != string(enc2) {
			t.Fatal("encoding is not stable")
		}
		if err := Verify(o); err != nil && !errors.Is(err, ErrBadVanillaProof) {
			t.Fatalf("Verify: %v does not wrap ErrBadVanillaProof", err)
		}
	})
}

// FuzzDecodeEnvelope feeds arbitrary bytes to both envelope decoders.
func FuzzDecodeEnvelope(f *testing.F) {
	c1 := mustMarshal(f, randomOutput(f, filecoin.StackedDrg2KiBV1_1, 2))
	f.Add((&Envelope{SectorNum: 7, Phase1Out: c1, SectorSize: 2048}).Encode())
	f.Add([]byte(`{"SectorNum":-1,"Phase1Out":"e30=","SectorSize":2048}`))
	f.Add([]byte(`{"SectorNum":1,"Phase1Out":"e3\/0=","SectorSize":0}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, err := range []error{envelopeErr(DecodeEnvelope(b)), envelopeOutputErr(DecodeEnvelopeOutput(b))} {
			if err != nil && !errors.Is(err, ErrBadVanillaProof) {
				t.Fatalf("%v does not wrap ErrBadVanillaProof", err)
			}
		}
		if e, err := DecodeEnvelope(b); err == nil {
			if _, err := e.Output(); err != nil && !errors.Is(err, ErrBadVanillaProof) {
				t.Fatalf("%v does not wrap ErrBadVanillaProof", err)
			}
			if e2, err := DecodeEnvelope(e.Encode()); err != nil || e2.SectorNum != e.SectorNum || string(e2.Phase1Out) != string(e.Phase1Out) {
				t.Fatalf("envelope does not round-trip: %v", err)
			}
		}
	})
}

func envelopeErr(_ *Envelope, err error) error { return err }

func envelopeOutputErr(_ *Envelope, _ *Output, err error) error { return err }
