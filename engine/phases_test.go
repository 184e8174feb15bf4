package engine

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/cuzk-project/cuzk/device/sim"
	"github.com/cuzk-project/cuzk/groth16"
)

// phasedDevice is a sim device whose Partials time two phases.
type phasedDevice struct{ *sim.Device }

type phasedPartial struct{ groth16.Partial }

func (phasedPartial) KernelPhases() []Phase {
	return []Phase{{Name: "run", D: time.Millisecond}, {Name: "h2d", D: 2 * time.Millisecond}}
}

func (d phasedDevice) Run(ctx context.Context, w groth16.Prepared) (groth16.Partial, error) {
	p, err := d.Device.Run(ctx, w)
	if err != nil {
		return nil, err
	}
	return phasedPartial{p}, nil
}

func (d phasedDevice) Finish(ctx context.Context, p groth16.Partial) (*groth16.Sums, error) {
	return d.Device.Finish(ctx, p.(phasedPartial).Partial)
}

// TestKernelPhasesSummed: the phases a device's Runs time are summed per
// device in the status, one run each per partition.
func TestKernelPhasesSummed(t *testing.T) {
	var env *testEnv
	env = newTestEnv(t, sim.Config{}, func(c *Config) {
		c.Devices = []groth16.Device{phasedDevice{c.Devices[0].(*sim.Device)}}
	})
	if got := env.e.Status().Devices[0].Phases; len(got) != 0 {
		t.Fatalf("phases before any run: %v", got)
	}
	const parts = 3
	for i, id := range []string{"a", "b"} {
		env.submit(t, id, KindPoRepSealCommit, PriorityUnspecified, testJob{Tag: uint64(i + 1), Parts: parts})
		if r := env.await(t, id); r.Status != StatusCompleted {
			t.Fatalf("job %s: %v %s", id, r.Status, r.Error)
		}
	}
	want := []PhaseTotal{{Name: "h2d", Total: 2 * parts * 2 * time.Millisecond, Runs: 2 * parts},
		{Name: "run", Total: 2 * parts * time.Millisecond, Runs: 2 * parts}}
	if got := env.e.Status().Devices[0].Phases; !slices.Equal(got, want) {
		t.Fatalf("phases %v, want %v", got, want)
	}
}
