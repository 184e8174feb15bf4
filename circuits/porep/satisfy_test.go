package porep

import (
	"testing"

	"github.com/cuzk-project/cuzk/circuits/internal/circuittest"
	hmerkle "github.com/cuzk-project/cuzk/hash/merkle"
)

func TestSatisfied(t *testing.T) {
	tests := []struct {
		name  string
		cfg   Config
		large bool
	}{
		{"fixture-8-4-2", fixture(hmerkle.Shape{Base: 8, Sub: 4, Top: 2}, 6), false},
		{"2KiB", config2KiB, false},
		{"8MiB", config8MiB, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.large && testing.Short() {
				t.Skip("large sector: run without -short")
			}
			in := newInstance(t, tc.cfg, 1)
			got := circuittest.Prove(t, in.part)
			want := publicInputs(in.part.ReplicaID, in.part.CommD, in.part.CommR, in.challenges,
				func(c uint64, out *[DRGParents + ExpanderParents]uint32) {
					for i := range in.challenges {
						if in.challenges[i] == c {
							*out = in.parents[i]
						}
					}
				})
			circuittest.Inputs(t, got, want)
		})
	}
}

// TestTampered changes one value of a satisfied partition at a time: each
// must leave some row unsatisfied.
func TestTampered(t *testing.T) {
	tamper := []struct {
		name  string
		f     func(p *Partition)
		short bool // run under -short (each case synthesizes a 2 KiB partition)
	}{
		{"DRG label row", func(p *Partition) { p.Challenges[0].DRG[3].Rows[1].SetUint64(7) }, true},
		{"expander label row", func(p *Partition) { p.Challenges[1].Exp[7].Rows[0].SetUint64(7) }, true},
		{"data leaf", func(p *Partition) { p.Challenges[0].DataLeaf.SetUint64(7) }, false},
		{"comm_d sibling", func(p *Partition) { p.Challenges[1].CommDPath[2].Siblings[0].SetUint64(7) }, false},
		{"comm_r_last path index", func(p *Partition) { p.Challenges[0].CommRLastPath[0].Index ^= 1 }, false},
		{"comm_c sibling", func(p *Partition) { p.Challenges[1].CommCPath[1].Siblings[6].SetUint64(7) }, false},
		{"challenge node", func(p *Partition) { p.Challenges[0].Node ^= 1 }, false},
		{"comm_c", func(p *Partition) { p.CommC.SetUint64(7) }, false},
		{"comm_r", func(p *Partition) { p.CommR.SetUint64(7) }, true},
		{"replica id", func(p *Partition) { p.ReplicaID.SetUint64(7) }, false},
	}
	for _, tc := range tamper {
		t.Run(tc.name, func(t *testing.T) {
			if !tc.short && testing.Short() {
				t.Skip("run without -short")
			}
			in := newInstance(t, config2KiB, 2)
			tc.f(in.part)
			circuittest.Tampered(t, in.part)
		})
	}
}
