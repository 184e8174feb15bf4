package engine

import (
	"context"
	"encoding/json"
	"sync"
	"testing"

	"github.com/cuzk-project/cuzk/device/sim"
	"github.com/cuzk-project/cuzk/groth16"
	"github.com/cuzk-project/cuzk/memory"
	"github.com/cuzk-project/cuzk/r1cs"
	"github.com/cuzk-project/cuzk/r1cs/compiled"
)

// stagingDevice is a sim device that stages witnesses as the CUDA device
// does: it reports its Prepared's StagedBytes. At every Run it records whether
// the assignment still has its aux and inputs, and the budget in use.
type stagingDevice struct {
	*sim.Device
	evaluates bool   // EvaluatesWitness
	staged    uint64 // StagedBytes; 0: the Prepared reports no staging
	budget    *memory.Budget

	mu   sync.Mutex
	runs []stagedRun
}

type stagedRun struct {
	aux, inputs int
	used        uint64
}

type stagedPrepared struct {
	groth16.Prepared
	a *groth16.Assignment
}

type stagingPrepared struct {
	stagedPrepared
	staged uint64
}

func (d *stagingDevice) Profile() groth16.Profile {
	p := d.Device.Profile()
	if d.evaluates {
		p.EvaluatesWitness = func(int, int) bool { return true }
	}
	p.Prepared = func(x groth16.Prepared) groth16.PrepareReport {
		if s, ok := x.(*stagingPrepared); ok {
			return groth16.PrepareReport{Staged: true, StagedBytes: s.staged}
		}
		return groth16.PrepareReport{}
	}
	return p
}

func (d *stagingDevice) Prepare(ctx context.Context, a *groth16.Assignment, p *groth16.Params) (groth16.Prepared, error) {
	w, err := d.Device.Prepare(ctx, a, p)
	if err != nil {
		return nil, err
	}
	if d.staged == 0 {
		return &stagedPrepared{w, a}, nil
	}
	return &stagingPrepared{stagedPrepared{w, a}, d.staged}, nil
}

func (d *stagingDevice) Run(ctx context.Context, w groth16.Prepared) (groth16.Partial, error) {
	var sp *stagedPrepared
	switch w := w.(type) {
	case *stagedPrepared:
		sp = w
	case *stagingPrepared:
		sp = &w.stagedPrepared
	}
	d.mu.Lock()
	d.runs = append(d.runs, stagedRun{aux: len(sp.a.Aux), inputs: len(sp.a.Input), used: d.budget.Used()})
	d.mu.Unlock()
	return d.Device.Run(ctx, sp.Prepared)
}

// witnessPlanner is testPlanner's plan with the witness-only path: a
// compiled system of testAssignment's shape and its witness.
type witnessPlanner struct {
	testPlanner
	witnessReserve, witnessDense uint64
}

func (p *witnessPlanner) Plan(ctx context.Context, req *Request) (*Plan, error) {
	plan, err := p.testPlanner.Plan(ctx, req)
	if err != nil {
		return nil, err
	}
	var tj testJob
	_ = json.Unmarshal(req.VanillaProof, &tj) // Plan parsed it
	shape := testAssignment(0, 0)
	sys := &compiled.System{NumInputs: len(shape.Input), NumAux: len(shape.Aux), NumConstraints: len(shape.A)}
	plan.System = func(context.Context) (*compiled.System, error) { return sys, nil }
	for i := range plan.Partitions {
		part := &plan.Partitions[i]
		part.WitnessReserve, part.WitnessDense = p.witnessReserve, p.witnessDense
		part.Witness = func(context.Context) (*r1cs.WitnessAssignment, error) {
			a := testAssignment(tj.Tag, i)
			return &r1cs.WitnessAssignment{Input: a.Input, Aux: a.Aux, Constraints: len(a.A)}, nil
		}
	}
	return plan, nil
}

// TestStagedWitnessReleased: after Prepare on a device that staged its own
// copy of a witness-only assignment, the engine has dropped the aux (the
// inputs stay) and given back the dense witness and, on WitnessReserve,
// what the staging does not hold; without a staging nothing changes. The
// proofs are the partitions' and the budget ends empty.
func TestStagedWitnessReleased(t *testing.T) {
	const (
		reserve        = 500 // Reserve (testPlanner: ReserveABC half of it)
		witnessReserve = 300
		dense          = 6 * 32 // 2 inputs, 4 aux
		inputs         = 2 * 32
		staged         = 50
	)
	for _, tc := range []struct {
		name      string
		evaluates bool // the device evaluates a, b, c: WitnessReserve is taken
		staged    uint64
		wantAux   int
		wantUsed  uint64 // the budget in use at Run
	}{
		{"WitnessReserve, staged", true, staged, 0, inputs + staged},
		{"WitnessReserve, not staged", true, 0, 4, witnessReserve},
		{"Reserve, staged", false, staged, 0, reserve - (dense - inputs)},
		{"Reserve, not staged", false, 0, 4, reserve},
		{"WitnessReserve, staging beyond it", true, witnessReserve, 0, witnessReserve},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dev := &stagingDevice{Device: sim.New(sim.Config{}), evaluates: tc.evaluates, staged: tc.staged}
			planner := &witnessPlanner{witnessReserve: witnessReserve, witnessDense: dense}
			env := newTestEnv(t, sim.Config{}, func(c *Config) {
				c.Devices = []groth16.Device{dev}
				c.Planner = planner
				c.WitnessSynthesis = true
			})
			dev.budget = env.budget
			id := env.submit(t, "staged", KindPoRepSealCommit, PriorityNormal, testJob{Tag: 7, Parts: 1, Reserve: reserve})
			if r := env.await(t, id); r.Status != StatusCompleted {
				t.Fatalf("job %v: %s", r.Status, r.Error)
			}
			dev.mu.Lock()
			runs := dev.runs
			dev.mu.Unlock()
			if len(runs) != 1 {
				t.Fatalf("%d runs, want 1", len(runs))
			}
			if r := runs[0]; r.aux != tc.wantAux || r.inputs != 2 || r.used != tc.wantUsed {
				t.Errorf("at Run: %d aux, %d inputs, %d bytes reserved; want %d, 2, %d", r.aux, r.inputs, r.used,
					tc.wantAux, tc.wantUsed)
			}
			waitFor(t, "the budget to empty", func() bool { return env.budget.Used() == 0 })
		})
	}
}
