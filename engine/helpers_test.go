package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-project/cuzk/device/sim"
	"github.com/cuzk-project/cuzk/groth16"
	"github.com/cuzk-project/cuzk/memory"
	"github.com/cuzk-project/cuzk/timeline"
)

// Unit sizes charged to the budget by test plans.
const (
	testReserve    = 100
	testReserveABC = 60
)

// testJob describes a test job; it travels as the request's vanilla proof.
type testJob struct {
	Tag       uint64 `json:"tag"` // unit inputs are tag*1000 + partition
	Parts     int    `json:"parts"`
	SynthMS   int    `json:"synth_ms"`
	FailSynth int    `json:"fail_synth"` // 1 + the partition whose synthesis fails, 0 none
	BadInput  bool   `json:"bad_input"`  // that failure is the request's fault (ErrInvalidRequest)
	Gate      string `json:"gate"`       // name of a gate partition 0 waits on
	PlanGate  string `json:"plan_gate"`  // name of a gate Plan waits on
	FailPlan  bool   `json:"fail_plan"`  // Plan rejects the request
	Panic     string `json:"panic"`      // "plan", "synth" or "verify": that step panics
	Circuit   string `json:"circuit"`    // circuit id ("" is "test")
	Reserve   uint64 `json:"reserve"`    // unit reservation (0 is testReserve)
}

// testPlanner plans testJobs. Gates block synthesis of partition 0 until
// opened.
type testPlanner struct {
	calls atomic.Int32
	mu    sync.Mutex
	gates map[string]chan struct{}
	// onSynth, when set, runs at every synthesis start.
	onSynth func()
}

func (p *testPlanner) gate(name string) chan struct{} {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.gates == nil {
		p.gates = map[string]chan struct{}{}
	}
	g, ok := p.gates[name]
	if !ok {
		g = make(chan struct{})
		p.gates[name] = g
	}
	return g
}

func (p *testPlanner) Plan(ctx context.Context, req *Request) (*Plan, error) {
	p.calls.Add(1)
	var tj testJob
	if err := json.Unmarshal(req.VanillaProof, &tj); err != nil {
		return nil, fmt.Errorf("%w: test job: %v", ErrInvalidRequest, err)
	}
	if tj.PlanGate != "" {
		<-p.gate(tj.PlanGate)
	}
	if tj.Panic == "plan" {
		panic("test planner panics")
	}
	if tj.FailPlan {
		return nil, fmt.Errorf("%w: test job says fail_plan", ErrInvalidRequest)
	}
	if tj.Parts <= 0 {
		return nil, fmt.Errorf("%w: no partitions", ErrInvalidRequest)
	}
	plan := &Plan{CircuitID: "test"}
	if tj.Circuit != "" {
		plan.CircuitID = tj.Circuit
	}
	reserve, abc := uint64(testReserve), uint64(testReserveABC)
	if tj.Reserve != 0 {
		reserve, abc = tj.Reserve, tj.Reserve/2
	}
	for i := 0; i < tj.Parts; i++ {
		plan.Partitions = append(plan.Partitions, Partition{
			Footprint: Footprint{Reserve: reserve, ReserveABC: abc},
			Synthesize: func(ctx context.Context) (*groth16.Assignment, error) {
				if p.onSynth != nil {
					p.onSynth()
				}
				if i == 0 && tj.Gate != "" {
					select {
					case <-p.gate(tj.Gate):
					case <-ctx.Done():
						return nil, ctx.Err()
					}
				}
				if tj.SynthMS > 0 {
					time.Sleep(time.Duration(tj.SynthMS) * time.Millisecond)
				}
				if tj.Panic == "synth" && i == 1 {
					panic("test synthesizer panics")
				}
				if i+1 == tj.FailSynth {
					if tj.BadInput {
						return nil, fmt.Errorf("%w: injected: a path does not reach its root", ErrInvalidRequest)
					}
					return nil, errors.New("injected synthesis failure")
				}
				return testAssignment(tj.Tag, i), nil
			},
		})
	}
	plan.Verify = func(vk *groth16.VerifyingKey, proofs []groth16.Proof, inputs [][]fr.Element) error {
		if tj.Panic == "verify" {
			panic("test verifier panics")
		}
		return verifySim(vk, tj, proofs, inputs)
	}
	return plan, nil
}

func testAssignment(tag uint64, part int) *groth16.Assignment {
	a := &groth16.Assignment{
		A: make([]fr.Element, 8), B: make([]fr.Element, 8), C: make([]fr.Element, 8),
		Input: make([]fr.Element, 2), Aux: make([]fr.Element, 4),
	}
	a.Input[0].SetOne()
	a.Input[1].SetUint64(tag*1000 + uint64(part))
	return a
}

// isUnit tells whether a belongs to partition part of the job tagged tag.
func isUnit(a *groth16.Assignment, tag uint64, part int) bool {
	if a == nil || len(a.Input) < 2 {
		return false
	}
	var v fr.Element
	v.SetUint64(tag*1000 + uint64(part))
	return a.Input[1].Equal(&v)
}

// verifySim checks the proof of a job proved on the sim device with r = s =
// 0 (zeroReader): then A = α + A_sum exactly, so each proof must come from
// its own partition's sums, in partition order.
func verifySim(vk *groth16.VerifyingKey, tj testJob, proofs []groth16.Proof, inputs [][]fr.Element) error {
	if len(proofs) != tj.Parts || len(inputs) != tj.Parts {
		return fmt.Errorf("%d proofs and %d input sets for %d partitions", len(proofs), len(inputs), tj.Parts)
	}
	for i := range proofs {
		a := testAssignment(tj.Tag, i)
		if len(inputs[i]) != 1 || !inputs[i][0].Equal(&a.Input[1]) {
			return fmt.Errorf("partition %d: wrong public inputs", i)
		}
		sums := sim.SumsFor(sim.Seed(a))
		var want bls12381.G1Jac
		want.FromAffine(&vk.AlphaG1)
		want.AddAssign(&sums.A)
		var got bls12381.G1Jac
		got.FromAffine(&proofs[i].A)
		if !got.Equal(&want) {
			return fmt.Errorf("partition %d: proof A is not from this partition's sums", i)
		}
	}
	return nil
}

// zeroReader makes DrawRS return r = s = 0, so sim proofs are checkable.
type zeroReader struct{}

func (zeroReader) Read(b []byte) (int, error) {
	clear(b)
	return len(b), nil
}

func testParams() MapParams {
	_, _, g1, g2 := bls12381.Generators()
	vk := groth16.VerifyingKey{AlphaG1: g1, BetaG1: g1, BetaG2: g2, GammaG2: g2, DeltaG1: g1, DeltaG2: g2,
		IC: []bls12381.G1Affine{g1, g1}}
	return MapParams{"test": &groth16.Params{VK: vk}}
}

type testEnv struct {
	e       *Engine
	planner *testPlanner
	dev     *sim.Device
	rec     *timeline.Recorder
	budget  *memory.Budget
}

// newTestEnv starts an engine on one sim device; mod adjusts the config.
func newTestEnv(t *testing.T, dcfg sim.Config, mod func(*Config)) *testEnv {
	t.Helper()
	env := &testEnv{planner: &testPlanner{}, dev: sim.New(dcfg), rec: timeline.NewRecorder(1 << 16), budget: memory.New(10 * testReserve)}
	cfg := Config{
		Devices:          []groth16.Device{env.dev},
		SynthesisWorkers: 2,
		Budget:           env.budget,
		Planner:          env.planner,
		Params:           testParams(),
		Recorder:         env.rec,
		Rand:             zeroReader{},
	}
	if mod != nil {
		mod(&cfg)
	}
	e, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	env.e = e
	env.budget = e.Budget() // mod may have replaced it
	t.Cleanup(func() { e.Close() })
	return env
}

func (env *testEnv) submit(t *testing.T, id string, kind ProofKind, prio Priority, tj testJob) string {
	t.Helper()
	b, _ := json.Marshal(tj)
	jid, _, err := env.e.Submit(context.Background(), Request{RequestID: id, Kind: kind, Priority: prio, VanillaProof: b})
	if err != nil {
		t.Fatalf("submit %s: %v", id, err)
	}
	return jid
}

func (env *testEnv) await(t *testing.T, id string) Result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	r, err := env.e.Await(ctx, id, 0)
	if err != nil {
		t.Fatalf("await %s: %v", id, err)
	}
	return r
}

// events returns the recorded events of kind k, in time order.
func (env *testEnv) events(k timeline.Kind) []timeline.Event {
	var out []timeline.Event
	for _, e := range timeline.SortByTime(env.rec.Events()) {
		if e.Kind == k {
			out = append(out, e)
		}
	}
	return out
}

// count counts the recorded events of kind k for job.
func (env *testEnv) count(k timeline.Kind, job string) int {
	n := 0
	for _, e := range env.events(k) {
		if e.Job == job {
			n++
		}
	}
	return n
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(time.Millisecond)
	}
}
