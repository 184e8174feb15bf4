package update

import (
	"context"
	"errors"
	"testing"

	"github.com/cuzk-project/cuzk/circuits/internal/circuittest"
)

// The concurrent witness of whole partitions against the prover
// assignment.
func TestWitness(t *testing.T) {
	tests := []struct {
		name  string
		cfg   Config
		k     int
		large bool
	}{
		{"1KiB", config1KiB, 0, false},
		{"2KiB", config2KiB, 0, false},
		{"16KiB-k1", config16KiB, 1, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.large && testing.Short() {
				t.Skip("run without -short")
			}
			p := newInstance(t, tc.cfg, tc.k, 2).part
			circuittest.Witness(t, p, p.Witness)
			circuittest.WitnessReused(t, p, p.WitnessInto)
		})
	}
}

func TestWitnessErrors(t *testing.T) {
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	p := newInstance(t, config2KiB, 0, 1).part
	p.Ctx = cancelled
	if _, err := p.Witness(2); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled: %v, want context.Canceled", err)
	}
	p.Ctx = nil
	p.Challenges = p.Challenges[:1]
	if _, err := p.Witness(2); !errors.Is(err, ErrShape) {
		t.Fatalf("missing challenge: %v, want ErrShape", err)
	}
}
