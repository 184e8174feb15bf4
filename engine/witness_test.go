package engine

import (
	"context"
	"testing"

	"github.com/cuzk-project/cuzk/device/sim"
	"github.com/cuzk-project/cuzk/groth16"
	"github.com/cuzk-project/cuzk/r1cs"
	"github.com/cuzk-project/cuzk/r1cs/compiled"
)

// evaluating is a sim device that claims to evaluate witnesses itself.
type evaluating struct{ *sim.Device }

func (d evaluating) Profile() groth16.Profile {
	p := d.Device.Profile()
	p.EvaluatesWitness = func(int, int) bool { return true }
	return p
}

// TestWitnessReservations: a partition takes its WitnessReserve only on the
// witness-only path to devices that all evaluate a, b and c themselves.
func TestWitnessReservations(t *testing.T) {
	system := func(context.Context) (*compiled.System, error) { return nil, nil }
	witness := func(context.Context) (*r1cs.WitnessAssignment, error) { return nil, nil }
	cpuLike := sim.New(sim.Config{})
	for _, tc := range []struct {
		name      string
		on        bool
		devices   []groth16.Device
		system    bool
		witness   bool
		wantWhole bool // Reserve stays
	}{
		{"witness path, evaluating device", true, []groth16.Device{evaluating{cpuLike}}, true, true, false},
		{"synthesis off", false, []groth16.Device{evaluating{cpuLike}}, true, true, true},
		{"device evaluates on the host", true, []groth16.Device{cpuLike}, true, true, true},
		{"one device of two on the host", true, []groth16.Device{evaluating{cpuLike}, cpuLike}, true, true, true},
		{"no compiled system", true, []groth16.Device{evaluating{cpuLike}}, false, true, true},
		{"no witness synthesizer", true, []groth16.Device{evaluating{cpuLike}}, true, false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := &Engine{cfg: Config{Devices: tc.devices, WitnessSynthesis: tc.on}}
			p := &Plan{Partitions: []Partition{{Footprint: Footprint{Reserve: 100, ReserveABC: 60, WitnessReserve: 10}}}}
			if tc.system {
				p.System = system
			}
			if tc.witness {
				p.Partitions[0].Witness = witness
			}
			e.deviceReservations(p)
			got := p.Partitions[0]
			if tc.wantWhole && (got.Reserve != 100 || got.ReserveABC != 60) {
				t.Fatalf("reserve %d (abc %d), want 100 (60)", got.Reserve, got.ReserveABC)
			}
			if !tc.wantWhole && (got.Reserve != 10 || got.ReserveABC != 0) {
				t.Fatalf("reserve %d (abc %d), want 10 (0)", got.Reserve, got.ReserveABC)
			}
		})
	}
}
