package engine

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/cuzk-project/cuzk/device/sim"
	"github.com/cuzk-project/cuzk/groth16"
	"github.com/cuzk-project/cuzk/timeline"
)

// phasedDevice is a sim device whose Partials time two phases.
type phasedDevice struct{ *sim.Device }

type phasedPartial struct{ groth16.Partial }

func (d phasedDevice) Profile() groth16.Profile {
	p := d.Device.Profile()
	p.Ran = func(groth16.Partial) groth16.RunReport {
		return groth16.RunReport{Phases: []timeline.Phase{{Name: "run", D: time.Millisecond}, {Name: "h2d", D: 2 * time.Millisecond}}}
	}
	return p
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
// device and circuit in the status, one run each per partition.
func TestKernelPhasesSummed(t *testing.T) {
	var env *testEnv
	env = newTestEnv(t, sim.Config{}, func(c *Config) {
		c.Devices = []groth16.Device{phasedDevice{c.Devices[0].(*sim.Device)}}
		params := testParams()
		params["other"] = params["test"]
		c.Params = params
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
	// A job of another circuit on the same device: its phases apart.
	env.submit(t, "c", KindSnapDealsUpdate, PriorityUnspecified, testJob{Tag: 3, Parts: 1, Circuit: "other"})
	if r := env.await(t, "c"); r.Status != StatusCompleted {
		t.Fatalf("job c: %v %s", r.Status, r.Error)
	}
	want := []PhaseTotal{
		{Circuit: "other", Name: "h2d", Total: 2 * time.Millisecond, Runs: 1},
		{Circuit: "other", Name: "run", Total: time.Millisecond, Runs: 1},
		{Circuit: "test", Name: "h2d", Total: 2 * parts * 2 * time.Millisecond, Runs: 2 * parts},
		{Circuit: "test", Name: "run", Total: 2 * parts * time.Millisecond, Runs: 2 * parts}}
	if got := env.e.Status().Devices[0].Phases; !slices.Equal(got, want) {
		t.Fatalf("phases %v, want %v", got, want)
	}
}

// prepDevice is a sim device whose Prepareds time two phases.
type prepDevice struct{ *sim.Device }

type prepPrepared struct{ groth16.Prepared }

func (d prepDevice) Profile() groth16.Profile {
	p := d.Device.Profile()
	p.Prepared = func(groth16.Prepared) groth16.PrepareReport {
		return groth16.PrepareReport{Phases: []timeline.Phase{{Name: "alloc", D: 3 * time.Millisecond}, {Name: "split", D: time.Millisecond}}}
	}
	return p
}

func (d prepDevice) Prepare(ctx context.Context, a *groth16.Assignment, p *groth16.Params) (groth16.Prepared, error) {
	w, err := d.Device.Prepare(ctx, a, p)
	if err != nil {
		return nil, err
	}
	return prepPrepared{w}, nil
}

func (d prepDevice) Run(ctx context.Context, w groth16.Prepared) (groth16.Partial, error) {
	return d.Device.Run(ctx, w.(prepPrepared).Prepared)
}

// TestPreparePhasesSummed: the phases a device's Prepares time are summed
// per device in the status, apart from the Runs' kernel phases.
func TestPreparePhasesSummed(t *testing.T) {
	env := newTestEnv(t, sim.Config{}, func(c *Config) {
		c.Devices = []groth16.Device{prepDevice{c.Devices[0].(*sim.Device)}}
	})
	const parts = 2
	env.submit(t, "p", KindPoRepSealCommit, PriorityUnspecified, testJob{Tag: 1, Parts: parts})
	if r := env.await(t, "p"); r.Status != StatusCompleted {
		t.Fatalf("job: %v %s", r.Status, r.Error)
	}
	st := env.e.Status().Devices[0]
	want := []PhaseTotal{{Circuit: "test", Name: "alloc", Total: parts * 3 * time.Millisecond, Runs: parts},
		{Circuit: "test", Name: "split", Total: parts * time.Millisecond, Runs: parts}}
	if !slices.Equal(st.PreparePhases, want) || len(st.Phases) != 0 {
		t.Fatalf("prepare phases %v (kernel phases %v), want %v and none", st.PreparePhases, st.Phases, want)
	}
}
