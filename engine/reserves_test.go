package engine

import (
	"context"
	"testing"

	"github.com/cuzk-project/cuzk/device/sim"
	"github.com/cuzk-project/cuzk/groth16"
	"github.com/cuzk-project/cuzk/r1cs"
	"github.com/cuzk-project/cuzk/r1cs/compiled"
)

// workspaceDevice is a sim device that reports its own host workspace.
type workspaceDevice struct {
	*sim.Device
	perRow, perVar uint64
}

func (d workspaceDevice) Profile() groth16.Profile {
	p := d.Device.Profile()
	p.HostWorkspace = func(rows, vars int) uint64 { return d.perRow*uint64(rows) + d.perVar*uint64(vars) }
	return p
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
		return Partition{Footprint: Footprint{Reserve: abc + witness + work, ReserveABC: abc, ReserveWork: work, Rows: rows, Vars: vars}}
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

// intoWorkspaceDevice is a workspace device that evaluates a witness-only
// assignment's a and b into its workspace (EvaluatesIntoWorkspace).
type intoWorkspaceDevice struct {
	workspaceDevice
	into bool
}

func (d intoWorkspaceDevice) Profile() groth16.Profile {
	p := d.workspaceDevice.Profile()
	p.EvaluatesIntoWorkspace = d.into
	return p
}

// TestDeviceReservesIntoWorkspace: with witness-only synthesis on, a
// partition on the witness path reserves no a, b and c where every device
// evaluates them into its workspace; a device that does not, witness
// synthesis off, or a partition without a witness keeps them.
func TestDeviceReservesIntoWorkspace(t *testing.T) {
	ws := workspaceDevice{sim.New(sim.Config{}), 64, 111}
	into := intoWorkspaceDevice{ws, true}
	notInto := intoWorkspaceDevice{ws, false}
	const abc, witness, work, rows, vars = 3000, 320, 16384, 1000, 10
	hw := uint64(64*rows + 111*vars)
	withWitness := func() Partition {
		return Partition{Footprint: Footprint{Reserve: abc + witness + work, ReserveABC: abc, ReserveWork: work, Rows: rows, Vars: vars,
			WitnessDense: witness}, Witness: func(context.Context) (*r1cs.WitnessAssignment, error) { return nil, nil }}
	}
	for _, tc := range []struct {
		name        string
		devices     []groth16.Device
		witness     bool
		noWitness   bool
		wantReserve uint64
		wantABC     uint64
	}{
		{"into the workspace", []groth16.Device{into}, true, false, witness + hw, 0},
		{"two devices, one not", []groth16.Device{into, notInto}, true, false, abc + witness + hw, abc},
		{"a device without the interface", []groth16.Device{into, ws}, true, false, abc + witness + hw, abc},
		{"witness synthesis off", []groth16.Device{into}, false, false, abc + witness + hw, abc},
		{"a partition without a witness", []groth16.Device{into}, true, true, abc + witness + hw, abc},
	} {
		t.Run(tc.name, func(t *testing.T) {
			part := withWitness()
			if tc.noWitness {
				part.Witness = nil
			}
			p := &Plan{Partitions: []Partition{part}, System: func(context.Context) (*compiled.System, error) { return nil, nil }}
			DeviceReserves(p, tc.witness, tc.devices)
			got := p.Partitions[0]
			if got.Reserve != tc.wantReserve || got.ReserveABC != tc.wantABC {
				t.Fatalf("reserve %d (abc %d), want %d (abc %d)", got.Reserve, got.ReserveABC, tc.wantReserve, tc.wantABC)
			}
			// into the workspace: after Prepare only the inputs and the staging stay reserved
			staged := uint64(700)
			want := got.WitnessDense - 32
			if tc.wantABC == 0 {
				want = got.Reserve - 32 - staged
			}
			if r := got.stagedRelease(32, staged); r != want {
				t.Errorf("released after Prepare %d, want %d", r, want)
			}
		})
	}
}

// shapedDevice evaluates witness-only partitions itself up to maxRows
// rows (EvaluatesWitness by size), and into its workspace beyond.
type shapedDevice struct {
	intoWorkspaceDevice
	maxRows int
}

func (d shapedDevice) Profile() groth16.Profile {
	p := d.intoWorkspaceDevice.Profile()
	p.EvaluatesWitness = func(rows, _ int) bool { return rows <= d.maxRows }
	return p
}

// TestDeviceReservesShapes: a device that decides by size gets the witness
// reservation for the partitions it evaluates itself and the workspace
// reservation (no a, b, c) for the others; a partition of unknown shape
// keeps the witness reservation.
func TestDeviceReservesShapes(t *testing.T) {
	dev := shapedDevice{intoWorkspaceDevice{workspaceDevice{sim.New(sim.Config{}), 64, 111}, true}, 500}
	const abc, witness, work, vars, wr = 3000, 320, 16384, 10, 700
	for _, tc := range []struct {
		name        string
		rows        int
		wantReserve uint64
	}{
		{"small: the device's evaluation", 400, wr},
		{"large: the classic path into the workspace", 1000, witness + 64*1000 + 111*vars},
		{"unknown shape", 0, wr},
	} {
		t.Run(tc.name, func(t *testing.T) {
			part := Partition{Footprint: Footprint{Reserve: abc + witness + work, ReserveABC: abc, ReserveWork: work, Rows: tc.rows, Vars: vars,
				WitnessReserve: wr, WitnessDense: witness},
				Witness: func(context.Context) (*r1cs.WitnessAssignment, error) { return nil, nil }}
			p := &Plan{Partitions: []Partition{part}, System: func(context.Context) (*compiled.System, error) { return nil, nil }}
			DeviceReserves(p, true, []groth16.Device{dev})
			if got := p.Partitions[0]; got.Reserve != tc.wantReserve || got.ReserveABC != 0 || !got.stagedReserved {
				t.Fatalf("reserve %d (abc %d, staged %v), want %d", got.Reserve, got.ReserveABC, got.stagedReserved, tc.wantReserve)
			}
		})
	}
}
