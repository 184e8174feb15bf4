package aggregate

import (
	"context"
	"errors"
	"testing"

	"github.com/cuzk-project/cuzk/filecoin"
)

// FuzzVerifySeals: aggregate bytes from outside never panic VerifySeals;
// anything but the one valid aggregate is ErrInvalid.
func FuzzVerifySeals(f *testing.F) {
	sim, seals, proofs := testBatch(f, filecoin.StackedDrg2KiBV1_1, 3)
	srs := devSRS(f, 4)
	agg, err := AggregateSeals(context.Background(), srs, seals, proofs)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(agg)
	f.Add(agg[:len(agg)-1])
	f.Add([]byte{})
	f.Add(make([]byte, len(agg)))
	f.Fuzz(func(t *testing.T, b []byte) {
		err := VerifySeals(srs, &sim.vk, seals, b, nil)
		if err != nil && !errors.Is(err, ErrInvalid) {
			t.Fatalf("err = %v, want nil or ErrInvalid", err)
		}
		if err == nil && string(b) != string(agg) {
			t.Fatalf("a different aggregate of %d bytes verifies", len(b))
		}
	})
}
