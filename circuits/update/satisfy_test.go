package update

import (
	"testing"

	"github.com/cuzk-project/cuzk/circuits/internal/circuittest"
)

func TestSatisfied(t *testing.T) {
	tests := []struct {
		name  string
		cfg   Config
		k     int
		large bool
	}{
		{"1KiB", config1KiB, 0, false},
		{"2KiB", config2KiB, 0, false},
		{"4KiB", config4KiB, 0, true},
		{"16KiB-k1", config16KiB, 1, true},
		{"32KiB-k0", config32KiB, 0, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.large && testing.Short() {
				t.Skip("run without -short")
			}
			in := newInstance(t, tc.cfg, tc.k, 1)
			circuittest.Inputs(t, circuittest.Check(t, in.part), in.publicInputs())
		})
	}
}

// TestTampered changes one value of a satisfied partition at a time: each
// must leave some row unsatisfied. Partition k and its path need two
// partitions (16 KiB, partition 1); h needs a size whose allowed h differ
// (8 MiB).
func TestTampered(t *testing.T) {
	tamper := []struct {
		name  string
		cfg   Config
		f     func(p *Partition)
		short bool
	}{
		{"comm_r_old", config2KiB, func(p *Partition) { p.CommROld.SetUint64(7) }, true},
		{"comm_d_new", config2KiB, func(p *Partition) { p.CommDNew.SetUint64(7) }, false},
		{"comm_r_new", config2KiB, func(p *Partition) { p.CommRNew.SetUint64(7) }, false},
		{"comm_c", config2KiB, func(p *Partition) { p.CommC.SetUint64(7) }, false},
		{"apex leaf", config2KiB, func(p *Partition) { p.ApexLeaves[5].SetUint64(7) }, false},
		{"leaf_r_old", config2KiB, func(p *Partition) { p.Challenges[3].LeafROld.SetUint64(7) }, true},
		{"leaf_d_new", config2KiB, func(p *Partition) { p.Challenges[9].LeafDNew.SetUint64(7) }, false},
		{"R_old sibling", config2KiB, func(p *Partition) { p.Challenges[0].PathROld[1][2].SetUint64(7) }, false},
		{"R_new sibling", config2KiB, func(p *Partition) { p.Challenges[1].PathRNew[0][6].SetUint64(7) }, true},
		{"D sibling", config2KiB, func(p *Partition) { p.Challenges[2].PathDNew[0].SetUint64(7) }, false},
		{"k", config16KiB, func(p *Partition) { p.K ^= 1 }, false},
		{"partition path", config16KiB, func(p *Partition) { p.PartitionPath[0].SetUint64(7) }, false},
		{"h", config8MiB, func(p *Partition) { p.H = p.Config.Hs()[4] }, false},
	}
	for _, tc := range tamper {
		t.Run(tc.name, func(t *testing.T) {
			if !tc.short && testing.Short() {
				t.Skip("run without -short")
			}
			in := newInstance(t, tc.cfg, tc.cfg.Partitions()-1, 2)
			tc.f(in.part)
			circuittest.Tampered(t, in.part)
		})
	}
}
