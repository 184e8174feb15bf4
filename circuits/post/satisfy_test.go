package post

import (
	"testing"

	"github.com/cuzk-project/cuzk/circuits/internal/circuittest"
	hmerkle "github.com/cuzk-project/cuzk/hash/merkle"
)

func TestSatisfied(t *testing.T) {
	tests := []struct {
		name    string
		cfg     Config
		sectors int // given; the rest repeat the last
	}{
		{"fixture-8-0-0", fixture(hmerkle.Shape{Base: 8}, 3), 3},
		{"fixture-8-4-0-padded", fixture(hmerkle.Shape{Base: 8, Sub: 4}, 3), 2},
		{"fixture-8-4-2", fixture(hmerkle.Shape{Base: 8, Sub: 4, Top: 2}, 3), 3},
		{"window-2KiB", WindowConfig(1<<6, hmerkle.Shape{Base: 8}), 2},
		{"window-2KiB-one-sector", WindowConfig(1<<6, hmerkle.Shape{Base: 8}), 1},
		{"winning-2KiB", WinningConfig(1<<6, hmerkle.Shape{Base: 8}), 66},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in := newInstance(t, tc.cfg, tc.sectors, 1)
			got := circuittest.Prove(t, in.part)
			circuittest.Inputs(t, got, in.publicInputs())
		})
	}
}

// TestTampered changes one value of a satisfied partition at a time: each
// must leave some row unsatisfied.
func TestTampered(t *testing.T) {
	tamper := []struct {
		name string
		f    func(p *Partition)
	}{
		{"comm_r", func(p *Partition) { p.Sectors[1].CommR.SetUint64(7) }},
		{"comm_c", func(p *Partition) { p.Sectors[0].CommC.SetUint64(7) }},
		{"comm_r_last", func(p *Partition) { p.Sectors[2].CommRLast.SetUint64(7) }},
		{"leaf", func(p *Partition) { p.Sectors[0].Challenges[4].Leaf.SetUint64(7) }},
		{"sibling", func(p *Partition) { p.Sectors[1].Challenges[2].Path[1].Siblings[3].SetUint64(7) }},
		{"path index", func(p *Partition) { p.Sectors[2].Challenges[0].Path[0].Index ^= 1 }},
	}
	for _, tc := range tamper {
		t.Run(tc.name, func(t *testing.T) {
			in := newInstance(t, fixture(hmerkle.Shape{Base: 8, Sub: 4}, 3), 3, 2)
			tc.f(in.part)
			circuittest.Tampered(t, in.part)
		})
	}
}
