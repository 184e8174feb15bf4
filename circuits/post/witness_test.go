package post

import (
	"context"
	"errors"
	"testing"

	"github.com/cuzk-project/cuzk/circuits/internal/circuittest"
	hmerkle "github.com/cuzk-project/cuzk/hash/merkle"
)

// The concurrent witness of whole partitions, padded ones included,
// against the prover assignment.
func TestWitness(t *testing.T) {
	tests := []struct {
		name    string
		cfg     Config
		sectors int
	}{
		{"fixture-8-4-2", fixture(hmerkle.Shape{Base: 8, Sub: 4, Top: 2}, 5), 5},
		{"window-2KiB-padded", WindowConfig(1<<6, hmerkle.Shape{Base: 8}), 1},
		{"winning-2KiB", WinningConfig(1<<6, hmerkle.Shape{Base: 8}), 66},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := newInstance(t, tc.cfg, tc.sectors, 3).part
			circuittest.Witness(t, p, p.Witness)
			circuittest.WitnessReused(t, p, p.WitnessInto)
		})
	}
}

func TestWitnessErrors(t *testing.T) {
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	p := newInstance(t, fixture(hmerkle.Shape{Base: 8}, 3), 3, 1).part
	p.Ctx = cancelled
	if _, err := p.Witness(2); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled: %v, want context.Canceled", err)
	}
	p.Ctx = nil
	p.Sectors[1].Challenges = p.Sectors[1].Challenges[:1]
	if _, err := p.Witness(2); !errors.Is(err, ErrShape) {
		t.Fatalf("short sector: %v, want ErrShape", err)
	}
}
