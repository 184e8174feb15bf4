package c1

import (
	"encoding/json"
	"sync"
	"testing"

	"github.com/cuzk-project/cuzk/filecoin"
)

var (
	bench32Once sync.Once
	bench32     []byte
)

// bench32GiB is the JSON of a 32 GiB-shaped C1 output (10 × 18 proofs,
// about 37 MB), built once.
func bench32GiB(b *testing.B) []byte {
	bench32Once.Do(func() { bench32 = mustMarshal(b, randomOutput(b, filecoin.StackedDrg32GiBV1_1, 32)) })
	return bench32
}

func BenchmarkDecode32GiB(b *testing.B) {
	in := bench32GiB(b)
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Decode(in); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDecodeEnvelope32GiB(b *testing.B) {
	env := (&Envelope{SectorNum: 1, Phase1Out: bench32GiB(b), SectorSize: 32 << 30}).Encode()
	b.SetBytes(int64(len(env)))
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := DecodeEnvelopeOutput(env); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkEncode32GiB(b *testing.B) {
	o, err := Decode(bench32GiB(b))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(bench32)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := o.MarshalJSON(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDecode32GiBEncodingJSON is the baseline Decode replaces:
// encoding/json into the serde mirror structs, no shape checks.
func BenchmarkDecode32GiBEncodingJSON(b *testing.B) {
	in := bench32GiB(b)
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	for b.Loop() {
		var m mOutput
		if err := json.Unmarshal(in, &m); err != nil {
			b.Fatal(err)
		}
	}
}
