package engine

import (
	"context"
	"encoding/json"
	"sync"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-project/cuzk/device/sim"
	"github.com/cuzk-project/cuzk/groth16"
	"github.com/cuzk-project/cuzk/memory"
	"github.com/cuzk-project/cuzk/r1cs"
)

// reusingPlanner is witnessPlanner whose witness synthesis fills the aux
// vector its context carries (r1cs.AuxOf), as the PoRep's does, and
// records, for each synthesis in turn, whether it was handed one and
// whether that was the vector an earlier synthesis filled.
type reusingPlanner struct {
	witnessPlanner
	mu     sync.Mutex
	filled map[*fr.Element]bool
	got    []string // "new", "handed", "handed a stranger"
}

func (p *reusingPlanner) Plan(ctx context.Context, req *Request) (*Plan, error) {
	plan, err := p.witnessPlanner.Plan(ctx, req)
	if err != nil {
		return nil, err
	}
	var tj testJob
	_ = json.Unmarshal(req.VanillaProof, &tj)
	for i := range plan.Partitions {
		plan.Partitions[i].Vars = 6
		plan.Partitions[i].Witness = func(ctx context.Context) (*r1cs.WitnessAssignment, error) {
			a := testAssignment(tj.Tag, i)
			v := r1cs.AuxOf(ctx)
			p.mu.Lock()
			switch {
			case cap(v) == 0:
				p.got = append(p.got, "new")
				v = make([]fr.Element, 0, len(a.Aux))
			case p.filled[&v[:1][0]]:
				p.got = append(p.got, "handed")
			default:
				p.got = append(p.got, "handed a stranger")
			}
			v = append(v, a.Aux...)
			p.filled[&v[0]] = true
			p.mu.Unlock()
			return &r1cs.WitnessAssignment{Input: a.Input, Aux: v, Constraints: len(a.A)}, nil
		}
	}
	return plan, nil
}

// TestAuxReused: one partition after another on a device that stages the
// witness, the next synthesis fills the aux vector the last one's Prepare
// left dead, the budget counting it meanwhile (the unit reserves the rest
// of its witness beside it); where the next unit does not fit even so, the
// vector is let go before it waits and the synthesis makes its own (or it
// takes the vector, where the last unit retired first). Never is a vector
// handed that no synthesis filled.
// Every proof completes, the budget is never exceeded, and it holds
// nothing once the engine is closed.
func TestAuxReused(t *testing.T) {
	const (
		witnessReserve = 300
		dense          = 6 * 32 // 2 inputs, 4 aux
		aux            = 4 * 32
	)
	old := auxMin
	auxMin = 1
	defer func() { auxMin = old }()
	for _, tc := range []struct {
		name   string
		budget uint64
		want   []string
	}{
		{"room beside the vector", witnessReserve + aux, []string{"new", "handed", "handed"}},
		{"no room beside the last unit", witnessReserve, nil}, // new, or handed where the last unit retired first
	} {
		t.Run(tc.name, func(t *testing.T) {
			dev := &stagingDevice{Device: sim.New(sim.Config{}), evaluates: true, staged: 50}
			planner := &reusingPlanner{witnessPlanner: witnessPlanner{witnessReserve: witnessReserve, witnessDense: dense},
				filled: map[*fr.Element]bool{}}
			env := newTestEnv(t, sim.Config{}, func(c *Config) {
				c.Devices = []groth16.Device{dev}
				c.Planner = planner
				c.WitnessSynthesis = true
				c.Budget = memory.New(tc.budget)
				c.WorkersPerDevice = 1
				c.SynthesisWorkers = 1
				c.FinishInline = true // a unit retires before the next one prepares
			})
			dev.budget = env.budget
			id := env.submit(t, "reused", KindPoRepSealCommit, PriorityNormal, testJob{Tag: 7, Parts: 3, Reserve: 500})
			if r := env.await(t, id); r.Status != StatusCompleted {
				t.Fatalf("job %v: %s", r.Status, r.Error)
			}
			planner.mu.Lock()
			got := append([]string(nil), planner.got...)
			planner.mu.Unlock()
			want := tc.want
			if want == nil {
				want = []string{"new", "new or handed", "new or handed"}
			}
			if len(got) != len(want) {
				t.Fatalf("syntheses %v, want %v", got, want)
			}
			for i := range got {
				if got[i] != want[i] && !(want[i] == "new or handed" && (got[i] == "new" || got[i] == "handed")) {
					t.Fatalf("syntheses %v, want %v", got, want)
				}
			}
			handed := 0
			for _, g := range got {
				if g == "handed" {
					handed++
				}
			}
			waitFor(t, "the last unit to retire", func() bool { return env.e.inflight.Load() == 0 })
			st := env.e.Status()
			if st.AuxReused != uint64(handed) || (tc.want != nil && st.AuxKept != aux) {
				t.Errorf("Status: %d vectors reused, %d bytes kept; want %d, and %d where the last stays kept", st.AuxReused, st.AuxKept, handed, aux)
			}
			if env.budget.Peak() > tc.budget {
				t.Errorf("peak %d over the budget %d", env.budget.Peak(), tc.budget)
			}
			waitFor(t, "the units to retire", func() bool { return env.e.inflight.Load() == 0 })
			if err := env.e.Close(); err != nil {
				t.Fatal(err)
			}
			if u := env.budget.Used(); u != 0 {
				t.Errorf("the budget holds %d bytes after Close", u)
			}
		})
	}
}
