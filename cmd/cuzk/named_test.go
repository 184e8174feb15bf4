package main

import (
	"context"
	"testing"

	"github.com/cuzk-project/cuzk/device/cpu"
	"github.com/cuzk-project/cuzk/device/sim"
	"github.com/cuzk-project/cuzk/engine"
	"github.com/cuzk-project/cuzk/groth16"
	"github.com/cuzk-project/cuzk/r1cs"
	"github.com/cuzk-project/cuzk/r1cs/compiled"
)

// capableDevice sets every field of the profile the engine's reservations
// read; it evaluates witnesses of up to 100 rows (when witness is set) and
// keeps 4096 bytes.
type capableDevice struct {
	*sim.Device
	witness, into bool
}

func (d capableDevice) Profile() groth16.Profile {
	p := d.Device.Profile()
	p.HostWorkspace = func(rows, vars int) uint64 { return uint64(7*rows + 11*vars) }
	p.EvaluatesWitness = func(rows, _ int) bool { return d.witness && rows <= 100 }
	p.EvaluatesIntoWorkspace = d.into
	p.KeptBytes = func() uint64 { return 4096 }
	p.EvictKept = func() uint64 { return 4096 }
	p.Discard = func(x any) { // records it was called in the value's first element
		if s, ok := x.(*[1]string); ok {
			s[0] = "discarded"
		}
	}
	return p
}

// TestNamedDeviceForwards: the daemon's name wrapper shows its name and
// passes on the rest of the wrapped device's profile: the engine reserves
// for the wrapped device what it reserves for the bare one, and Discard
// and the kept stagings reach it. (The 32 GiB PoRep under a memory limit
// reserved a, b, c for every partition once, because a wrapper hid that
// the device evaluates a and b into its workspace.)
func TestNamedDeviceForwards(t *testing.T) {
	for _, tc := range []struct {
		name string
		dev  groth16.Device
		kept uint64
	}{
		{"capable, both", capableDevice{sim.New(sim.Config{}), true, true}, 4096},
		{"capable, neither", capableDevice{sim.New(sim.Config{}), false, false}, 4096},
		{"cpu", cpu.New(1), 0},
		{"plain", sim.New(sim.Config{}), 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			named := namedDevice{tc.dev, "dev " + tc.name}
			p := named.Profile()
			if p.Name != "dev "+tc.name {
				t.Errorf("name %q", p.Name)
			}
			for _, rows := range []int{0, 100, 101} {
				got, want := reservesFor(named, rows), reservesFor(tc.dev, rows)
				if got != want {
					t.Errorf("%d rows: reserves %+v through the wrapper, %+v bare", rows, got, want)
				}
			}
			if (p.EvictKept == nil) != (tc.kept == 0) || p.EvictKept != nil && (p.EvictKept() != tc.kept || p.KeptBytes() != tc.kept) {
				t.Errorf("kept stagings not passed on (want %d bytes)", tc.kept)
			}
			var x [1]string
			groth16.Discard(named, &x)
			if got := x[0] == "discarded"; got != (tc.kept != 0) {
				t.Errorf("Discard reached the wrapped device: %v, want %v", got, tc.kept != 0)
			}
		})
	}
}

// reserves is what DeviceReserves leaves of a partition.
type reserves struct{ reserve, abc, work uint64 }

// reservesFor is DeviceReserves with witness-only synthesis of one
// partition of rows constraints over 10 variables, for dev.
func reservesFor(dev groth16.Device, rows int) reserves {
	part := engine.Partition{Footprint: engine.Footprint{Reserve: 3000 + 320 + 16384, ReserveABC: 3000, ReserveWork: 16384,
		Rows: rows, Vars: 10, WitnessReserve: 700, WitnessDense: 320},
		Witness: func(context.Context) (*r1cs.WitnessAssignment, error) { return nil, nil }}
	p := &engine.Plan{Partitions: []engine.Partition{part}, System: func(context.Context) (*compiled.System, error) { return nil, nil }}
	engine.DeviceReserves(p, true, []groth16.Device{dev})
	got := p.Partitions[0]
	return reserves{got.Reserve, got.ReserveABC, got.ReserveWork}
}
