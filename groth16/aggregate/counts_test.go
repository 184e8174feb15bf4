package aggregate

import (
	"context"
	"errors"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-project/cuzk/groth16"
)

func TestSize(t *testing.T) {
	for _, tc := range []struct{ n, want int }{{2, 5236}, {4, 8212}, {128, 23092}, {8192, 2260 + 2976*13}} {
		if got := Size(tc.n); got != tc.want {
			t.Errorf("Size(%d) = %d, want %d", tc.n, got, tc.want)
		}
	}
}

// Counts that do not fit are errors naming what is wrong, before any
// arithmetic.
func TestCountErrors(t *testing.T) {
	f := getFixture(t)
	pk4, vk4, err := f.srs.Specialize(4)
	if err != nil {
		t.Fatal(err)
	}
	proofs, inputs := f.batch(4)
	agg, err := Aggregate(context.Background(), pk4, nil, proofs)
	if err != nil {
		t.Fatal(err)
	}
	_, vk8, _ := f.srs.Specialize(8)
	three := append(append([][]fr.Element(nil), inputs[:3]...), inputs[3][:len(inputs[3])-1])
	badShape := *agg
	badShape.ZAB = badShape.ZAB[:1]
	cases := []struct {
		name string
		err  error
		want error
	}{
		{"aggregate 3 proofs", agg3(pk4, proofs[:3]), ErrProofCount},
		{"aggregate 8 proofs with a 4-key", agg3(pk4, append(proofs, proofs...)), ErrProofCount},
		{"verify with an 8-key", Verify(vk8, &f.vk, inputs, agg, nil, nil), ErrProofCount},
		{"verify with 3 input vectors", Verify(vk4, &f.vk, inputs[:3], agg, nil, nil), ErrProofCount},
		{"verify with a short input vector", Verify(vk4, &f.vk, three, agg, nil, nil), groth16.ErrInputCount},
		{"verify a proof with too few rounds", Verify(vk4, &f.vk, inputs, &badShape, nil, nil), ErrMalformed},
	}
	for _, tc := range cases {
		if !errors.Is(tc.err, tc.want) {
			t.Errorf("%s: got %v, want %v", tc.name, tc.err, tc.want)
		}
	}
	if err := Verify(vk4, &f.vk, inputs, agg, nil, nil); err != nil {
		t.Fatalf("the untouched aggregate: %v", err)
	}
}

func agg3(pk *ProverKey, proofs []groth16.Proof) error {
	_, err := Aggregate(context.Background(), pk, nil, proofs)
	return err
}

func TestAggregateCancelled(t *testing.T) {
	f := getFixture(t)
	pk, _, err := f.srs.Specialize(4)
	if err != nil {
		t.Fatal(err)
	}
	proofs, _ := f.batch(4)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Aggregate(ctx, pk, nil, proofs); !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v, want context.Canceled", err)
	}
}
