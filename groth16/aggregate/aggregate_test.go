package aggregate

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"
)

// detRand is a deterministic io.Reader for the verifier's weights.
type detRand struct{ r *rand.Rand }

func newDetRand(seed uint64) *detRand { return &detRand{rand.New(rand.NewPCG(seed, 7))} }

func (d *detRand) Read(b []byte) (int, error) {
	for i := range b {
		b[i] = byte(d.r.Uint32())
	}
	return len(b), nil
}

var testInclude = []byte("sha256 of the aggregated sectors' comm_r and seeds")

func TestAggregateVerify(t *testing.T) {
	f := getFixture(t)
	for _, n := range []int{2, 4, 8, 16, 64} {
		t.Run(fmt.Sprintf("n%d", n), func(t *testing.T) {
			pk, vk, err := f.srs.Specialize(n)
			if err != nil {
				t.Fatal(err)
			}
			proofs, inputs := f.batch(n)
			agg, err := Aggregate(context.Background(), pk, testInclude, proofs)
			if err != nil {
				t.Fatalf("Aggregate: %v", err)
			}
			if err := Verify(vk, &f.vk, inputs, agg, testInclude, newDetRand(1)); err != nil {
				t.Fatalf("Verify: %v", err)
			}
			b, err := agg.MarshalBinary()
			if err != nil {
				t.Fatal(err)
			}
			if len(b) != Size(n) {
				t.Fatalf("encoded %d bytes, Size says %d", len(b), Size(n))
			}
			dec, err := DecodeProof(b)
			if err != nil {
				t.Fatalf("DecodeProof: %v", err)
			}
			if err := Verify(vk, &f.vk, inputs, dec, testInclude, nil); err != nil {
				t.Fatalf("Verify(decoded): %v", err)
			}
			inputs[n-1][0].SetUint64(12345)
			if err := Verify(vk, &f.vk, inputs, dec, testInclude, nil); !errors.Is(err, ErrInvalid) {
				t.Fatalf("changed input: got %v, want ErrInvalid", err)
			}
		})
	}
}

// The largest aggregate Filecoin allows (8192 proofs); about a minute and
// a half on two cores, so not under -short.
func TestAggregate8192(t *testing.T) {
	if testing.Short() {
		t.Skip("8192 proofs: run without -short")
	}
	f := getFixture(t)
	const n = 8192
	srs, err := DevSRS([]byte("aggregate tests, 8192"), n)
	if err != nil {
		t.Fatal(err)
	}
	pk, vk, err := srs.Specialize(n)
	if err != nil {
		t.Fatal(err)
	}
	proofs, inputs := f.batch(n)
	agg, err := Aggregate(context.Background(), pk, testInclude, proofs)
	if err != nil {
		t.Fatal(err)
	}
	b, err := agg.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	if len(b) != 2260+2976*13 {
		t.Fatalf("%d bytes", len(b))
	}
	dec, err := DecodeProof(b)
	if err != nil {
		t.Fatal(err)
	}
	if err := Verify(vk, &f.vk, inputs, dec, testInclude, nil); err != nil {
		t.Fatalf("Verify: %v", err)
	}
	inputs[4321][2].SetUint64(9)
	if err := Verify(vk, &f.vk, inputs, dec, testInclude, nil); !errors.Is(err, ErrInvalid) {
		t.Fatalf("changed input: got %v, want ErrInvalid", err)
	}
}

// A ProverKey is only read: concurrent aggregations under one key agree
// (run with -race).
func TestAggregateConcurrent(t *testing.T) {
	f := getFixture(t)
	pk, _, err := f.srs.Specialize(4)
	if err != nil {
		t.Fatal(err)
	}
	proofs, _ := f.batch(4)
	out := make([][]byte, 3)
	errs := make([]error, 3)
	done := make(chan int)
	for i := range out {
		go func() {
			defer func() { done <- i }()
			agg, err := Aggregate(context.Background(), pk, testInclude, proofs)
			if err != nil {
				errs[i] = err
				return
			}
			out[i], errs[i] = agg.MarshalBinary()
		}()
	}
	for range out {
		<-done
	}
	for i := range out {
		if errs[i] != nil {
			t.Fatal(errs[i])
		}
		if string(out[i]) != string(out[0]) {
			t.Fatalf("aggregation %d differs", i)
		}
	}
}
