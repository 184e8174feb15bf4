package engine

import (
	"testing"

	"github.com/cuzk-project/cuzk/device/sim"
	"github.com/cuzk-project/cuzk/groth16"
)

// workspaceDevice is a sim device that reports its own host workspace.
type workspaceDevice struct {
	*sim.Device
	perRow, perVar uint64
}

func (d workspaceDevice) HostWorkspace(rows, vars int) uint64 {
	return d.perRow*uint64(rows) + d.perVar*uint64(vars)
}

// TestDeviceReserves: where every device reports its host workspace, a
// partition's ReserveWork is replaced by the largest of theirs; otherwise
// (a device without one, a partition without ReserveWork) the plan's
// reservations stay as the planner made them.
func TestDeviceReserves(t *testing.T) {
	small := workspaceDevice{sim.New(sim.Config{}), 64, 111}
	big := workspaceDevice{sim.New(sim.Config{}), 100, 111}
	plain := sim.New(sim.Config{})
	const abc, witness, work, rows, vars = 3000, 320, 16384, 1000, 10
	part := func(work uint64) Partition {
		return Partition{Reserve: abc + witness + work, ReserveABC: abc, ReserveWork: work, Rows: rows, Vars: vars}
	}
	for _, tc := range []struct {
		name      string
		devices   []groth16.Device
		part      Partition
		wantWork  uint64
		unchanged bool
	}{
		{"one device", []groth16.Device{small}, part(work), 64*rows + 111*vars, false},
		{"the largest of two", []groth16.Device{small, big}, part(work), 100*rows + 111*vars, false},
		{"a device without", []groth16.Device{small, plain}, part(work), work, true},
		{"nil skipped", []groth16.Device{nil, small}, part(work), 64*rows + 111*vars, false},
		{"no ReserveWork", []groth16.Device{small}, part(0), 0, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := &Plan{Partitions: []Partition{tc.part}}
			DeviceReserves(p, false, tc.devices)
			got := p.Partitions[0]
			if tc.unchanged {
				if got.Reserve != tc.part.Reserve || got.ReserveWork != tc.part.ReserveWork {
					t.Fatalf("reserve %d work %d, want them unchanged (%d, %d)", got.Reserve, got.ReserveWork, tc.part.Reserve, tc.part.ReserveWork)
				}
				return
			}
			if got.ReserveWork != tc.wantWork || got.Reserve != abc+witness+tc.wantWork || got.ReserveABC != abc {
				t.Fatalf("reserve %d (abc %d) work %d, want %d with work %d", got.Reserve, got.ReserveABC, got.ReserveWork,
					abc+witness+tc.wantWork, tc.wantWork)
			}
		})
	}
}
