package aggregate

import (
	"context"
	"testing"
)

// BenchmarkAggregate128 aggregates 128 proofs (a Filecoin-sized batch).
func BenchmarkAggregate128(b *testing.B) {
	f := getFixture(b)
	pk, _, err := f.srs.Specialize(128)
	if err != nil {
		b.Fatal(err)
	}
	proofs, _ := f.batch(128)
	b.ResetTimer()
	for b.Loop() {
		if _, err := Aggregate(context.Background(), pk, testInclude, proofs); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(128*b.N)/b.Elapsed().Seconds(), "proofs/s")
}

// BenchmarkVerify128 verifies an aggregate of 128 proofs, decoding included.
func BenchmarkVerify128(b *testing.B) {
	f := getFixture(b)
	pk, vk, err := f.srs.Specialize(128)
	if err != nil {
		b.Fatal(err)
	}
	proofs, inputs := f.batch(128)
	agg, err := Aggregate(context.Background(), pk, testInclude, proofs)
	if err != nil {
		b.Fatal(err)
	}
	enc, err := agg.MarshalBinary()
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		p, err := DecodeProof(enc)
		if err != nil {
			b.Fatal(err)
		}
		if err := Verify(vk, &f.vk, inputs, p, testInclude, nil); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(128*b.N)/b.Elapsed().Seconds(), "proofs/s")
	b.ReportMetric(float64(len(enc)), "aggregate-bytes")
}
