package main

import (
	"testing"

	"github.com/cuzk-project/cuzk/device/cpu"
	"github.com/cuzk-project/cuzk/device/sim"
	"github.com/cuzk-project/cuzk/engine"
	"github.com/cuzk-project/cuzk/groth16"
)

// capableDevice implements every optional device interface the engine's
// reservations read (HostWorkspace, WitnessEvaluator, WitnessShapes,
// WorkspaceEvaluator, KeptEvictor, groth16.Discarder); it evaluates
// witnesses of up to 100 rows and keeps 4096 bytes.
type capableDevice struct {
	*sim.Device
	witness, into bool
}

func (capableDevice) EvictKept() uint64 { return 4096 }
func (capableDevice) KeptBytes() uint64 { return 4096 }

// Discard records what it was given in the value's first element.
func (capableDevice) Discard(x any) {
	if p, ok := x.(*[1]string); ok {
		p[0] = "discarded"
	}
}

func (d capableDevice) EvaluatesWitnessOf(rows, _ int) bool { return d.witness && rows <= 100 }

func (capableDevice) HostWorkspace(rows, vars int) uint64 { return uint64(7*rows + 11*vars) }
func (d capableDevice) EvaluatesWitness() bool            { return d.witness }
func (d capableDevice) EvaluatesIntoWorkspace() bool      { return d.into }

// TestNamedDeviceForwards: the daemon's name wrapper passes on what the
// wrapped device says to the engine's reservations; without them, the
// CPU device's workspace and no witness evaluation. (The 32 GiB PoRep under
// a memory limit reserved a, b, c for every partition once, because the
// wrapper hid EvaluatesIntoWorkspace.)
func TestNamedDeviceForwards(t *testing.T) {
	for _, tc := range []struct {
		name          string
		dev           namedDevice
		work, kept    uint64
		witness, into bool
	}{
		{"capable, both", namedDevice{Device: capableDevice{sim.New(sim.Config{}), true, true}}, 7*100 + 11*10, 4096, true, true},
		{"capable, neither", namedDevice{Device: capableDevice{sim.New(sim.Config{}), false, false}}, 7*100 + 11*10, 4096, false, false},
		{"plain", namedDevice{Device: sim.New(sim.Config{})}, cpu.HostWorkspaceOf(100), 0, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var d any = tc.dev
			if got := d.(engine.HostWorkspace).HostWorkspace(100, 10); got != tc.work {
				t.Errorf("HostWorkspace %d, want %d", got, tc.work)
			}
			if got := d.(engine.WitnessEvaluator).EvaluatesWitness(); got != tc.witness {
				t.Errorf("EvaluatesWitness %v, want %v", got, tc.witness)
			}
			if got := d.(engine.WorkspaceEvaluator).EvaluatesIntoWorkspace(); got != tc.into {
				t.Errorf("EvaluatesIntoWorkspace %v, want %v", got, tc.into)
			}
			if k := d.(engine.KeptEvictor); k.EvictKept() != tc.kept || k.KeptBytes() != tc.kept {
				t.Errorf("EvictKept %d, KeptBytes %d, want %d", k.EvictKept(), k.KeptBytes(), tc.kept)
			}
			var x [1]string
			d.(groth16.Discarder).Discard(&x)
			if got := x[0] == "discarded"; got != (tc.kept != 0) {
				t.Errorf("Discard reached the wrapped device: %v, want %v", got, tc.kept != 0)
			}
			shapes := d.(engine.WitnessShapes)
			if got := shapes.EvaluatesWitnessOf(100, 10); got != tc.witness {
				t.Errorf("EvaluatesWitnessOf(100 rows) %v, want %v", got, tc.witness)
			}
			if _, plain := tc.dev.Device.(*sim.Device); !plain && shapes.EvaluatesWitnessOf(101, 10) {
				t.Error("EvaluatesWitnessOf(101 rows): the wrapped device says no")
			}
		})
	}
}
