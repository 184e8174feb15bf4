package cuda

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/cuzk-project/cuzk/circuits"
	"github.com/cuzk-project/cuzk/circuits/synthetic"
	"github.com/cuzk-project/cuzk/engine"
	"github.com/cuzk-project/cuzk/groth16"
	"github.com/cuzk-project/cuzk/memory"
	"github.com/cuzk-project/cuzk/timeline"
)

// TestEngineTwoWorkers proves concurrent multi-partition synthetic jobs
// through an in-process engine on the GPU with two workers sharing its
// lock, wired as `cuzk bench --device cuda` wires it (circuits' planner and
// development parameters), and checks every partition proof on its own
// against the verifying key, and that both workers ran kernels.
func TestEngineTwoWorkers(t *testing.T) {
	proveTwoWorkers(t, gpu(t))
}

// proveTwoWorkers runs the test body on dev, which the engine sees as its
// device 0.
func proveTwoWorkers(t *testing.T, dev groth16.Device) {
	jobs, partitions, rows := 2, 4, 1<<12
	if testing.Short() {
		jobs, partitions, rows = 2, 3, 1<<10
	}
	cfg := synthetic.Default(rows)
	cfg.Seed = 5
	params := circuits.NewDevParams("") // in memory: a fresh setup, not the user's cache
	reg := circuits.New()
	rec := timeline.NewRecorder(0)
	e, err := engine.New(engine.Config{
		Devices:          []groth16.Device{dev},
		WorkersPerDevice: 2,
		Planner:          reg,
		Params:           params,
		Recorder:         rec,
	})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	// The parameters are set up before the jobs, so that they start
	// together and queue their partitions at once for the two workers.
	req, plan, pvk := preloadSynthetic(t, ctx, e, params, reg, cfg, partitions)
	results := make([]engine.Result, jobs)
	errs := make([]error, jobs)
	var wg sync.WaitGroup
	for i := range jobs {
		wg.Go(func() {
			r := req
			r.RequestID = fmt.Sprintf("two-workers-%d", i)
			results[i], errs[i] = e.Prove(ctx, r)
		})
	}
	wg.Wait()
	for i, r := range results {
		if errs[i] != nil {
			t.Fatalf("job %d: %v", i, errs[i])
		}
		verifyResult(t, r, plan, pvk)
	}

	// Each partition ran its kernels once on device 0, and both workers
	// took a share: a lost second worker fails here, not only in the
	// utilization figures.
	kernels := map[string]int{}
	byWorker := map[int]int{}
	for _, ev := range rec.Events() {
		if ev.Kind != timeline.KernelStart {
			continue
		}
		if ev.Device != 0 {
			t.Errorf("kernel of %s/%d on device %d, want 0", ev.Job, ev.Partition, ev.Device)
		}
		kernels[ev.Job]++
		byWorker[ev.Worker]++
	}
	for _, r := range results {
		if kernels[r.JobID] != partitions {
			t.Errorf("job %s: %d kernel intervals, want %d", r.JobID, kernels[r.JobID], partitions)
		}
	}
	if len(byWorker) != 2 || byWorker[0] == 0 || byWorker[1] == 0 {
		t.Errorf("kernel intervals per worker %v, want both workers 0 and 1", byWorker)
	}
	t.Logf("%d jobs × %d partitions of %d rows; kernel intervals per worker %v", jobs, partitions, rows, byWorker)
}

// stagingRecorder passes a CUDA device through to an engine and records,
// for every unit, the budget in use when Prepare starts and when Run
// starts, the pinned memory the Prepared reports, the share of a kept
// staging its Prepare took (and closed), and whether the assignment still
// has its aux at Run.
type stagingRecorder struct {
	*Device
	budget *memory.Budget

	mu    sync.Mutex
	units map[groth16.Prepared]*stagedUnit
	done  []*stagedUnit
}

type stagedUnit struct {
	a                   *groth16.Assignment
	atPrepare, atRun    uint64
	inputs, aux, staged int
	taken               uint64   // a kept staging's share, closed by Prepare
	phases              []string // the Prepare's (groth16.PrepareReport)
	witness             bool     // the witness run (witnessPrepared)
}

func (s *stagingRecorder) Prepare(ctx context.Context, a *groth16.Assignment, p *groth16.Params) (groth16.Prepared, error) {
	u := &stagedUnit{a: a, atPrepare: s.budget.Used(), inputs: len(a.Input)}
	// One worker, and proveStaged waits for the last staging to be back
	// (keptOnly): nothing else changes the kept shares during Prepare.
	kept := s.pool.sharedBytes()
	w, err := s.Device.Prepare(ctx, a, p)
	if err != nil {
		return nil, err
	}
	u.taken = kept - s.pool.sharedBytes()
	rep := s.Profile().OfPrepare(w)
	for _, ph := range rep.Phases {
		u.phases = append(u.phases, ph.Name)
	}
	_, u.witness = w.(*witnessPrepared)
	u.staged = int(rep.StagedBytes)
	s.mu.Lock()
	s.units[w] = u
	s.mu.Unlock()
	return w, nil
}

func (s *stagingRecorder) Run(ctx context.Context, w groth16.Prepared) (groth16.Partial, error) {
	s.mu.Lock()
	u := s.units[w]
	delete(s.units, w)
	s.mu.Unlock()
	if u != nil {
		u.atRun, u.aux = s.budget.Used(), len(u.a.Aux)
		s.mu.Lock()
		s.done = append(s.done, u)
		s.mu.Unlock()
	}
	return s.Device.Run(ctx, w)
}

// TestEngineWitnessStaged proves synthetic jobs through an engine on the
// witness-only path (circuits' compiled systems, engine.Config
// WitnessSynthesis) on the GPU, one unit in flight at a time: every
// proof verifies; at Run the assignment's aux is gone and the unit's
// reservation is down from WitnessReserve to its inputs and what the
// Prepared reports (StagedBytes); the second unit stages into the first's
// kept witness staging, whose share its Prepare closes; the budget ends
// empty.
func TestEngineWitnessStaged(t *testing.T) {
	done, plan, _ := proveStaged(t, gpu(t), 8, "witness-staged")
	reserve := plan.Partitions[0].WitnessReserve
	for i, u := range done {
		if !u.witness {
			t.Fatalf("unit %d did not take the witness run", i)
		}
		held := uint64(u.inputs*32 + u.staged)
		if u.aux != 0 || u.atPrepare < reserve || u.atPrepare-u.atRun != reserve-held+u.taken {
			t.Errorf("unit %d: %d aux at Run; reserved %d at Prepare, %d at Run, want a drop of %d (WitnessReserve %d less %d held, plus the kept staging's share %d)",
				i, u.aux, u.atPrepare, u.atRun, reserve-held+u.taken, reserve, held, u.taken)
		}
		t.Logf("unit %d: WitnessReserve %d, held after Prepare %d (staging and B split bound), kept share taken %d", i, reserve, held, u.taken)
	}
	if done[0].taken != 0 || done[1].taken == 0 {
		t.Errorf("kept witness staging shares taken %d, %d: want none by the first unit, the first's by the second", done[0].taken, done[1].taken)
	}
}

// proveStaged proves two one-partition synthetic jobs (seed) through an
// engine with one worker and one synthesis worker and witness-only
// synthesis on d, each unit recorded (stagingRecorder; the second stages
// into the first's pinned buffers): every proof verifies, and after the
// jobs the budget holds only the shares of the stagings d keeps
// (groth16.RunReport.KeepStaging), and nothing once they are evicted. It returns the
// units, the plan and the parameters (the engine stays open until the
// test ends).
func proveStaged(t *testing.T, d *Device, seed uint64, tag string) ([]*stagedUnit, *engine.Plan, *groth16.Params) {
	t.Helper()
	cfg := synthetic.Default(1 << 12)
	cfg.Seed = seed
	params := circuits.NewDevParams("")
	reg := circuits.New()
	reg.SetSystems(circuits.NewSystems(t.TempDir()))
	budget := memory.New(16 << 30)
	dev := &stagingRecorder{Device: d, budget: budget, units: map[groth16.Prepared]*stagedUnit{}}
	e, err := engine.New(engine.Config{
		Devices:          []groth16.Device{dev},
		WorkersPerDevice: 1,
		SynthesisWorkers: 1,
		WitnessSynthesis: true,
		Budget:           budget,
		CriticalHeadroom: -1, // the budget must come back empty
		Planner:          reg,
		Params:           params,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	req, plan, pvk := preloadSynthetic(t, ctx, e, params, reg, cfg, 1)
	for job := range 2 {
		r := req
		r.RequestID = fmt.Sprintf("%s-%d", tag, job)
		res, err := e.Prove(ctx, r)
		if err != nil {
			t.Fatal(err)
		}
		verifyResult(t, res, plan, pvk)
		keptOnly(t, budget, d)
	}
	p, release, err := params.Acquire(ctx, circuits.SyntheticID(cfg))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(release)
	dev.mu.Lock()
	done := dev.done
	dev.mu.Unlock()
	if len(done) != 2 {
		t.Fatalf("%d units recorded, want 2", len(done))
	}
	d.EvictKept()
	if used := budget.Used(); used != 0 {
		t.Errorf("the budget holds %d bytes with the kept stagings evicted", used)
	}
	return done, plan, p
}

// keptOnly waits (10 s at most) for the budget to hold only the shares of
// the stagings d keeps: a job's units end after its result, and a
// staging goes back to the pool on a goroutine of its own.
func keptOnly(t *testing.T, budget *memory.Budget, d *Device) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for budget.Used() != d.pool.sharedBytes() && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	if used, kept := budget.Used(), d.pool.sharedBytes(); used != kept {
		t.Errorf("the budget holds %d bytes after the job, the kept stagings' shares %d", used, kept)
	}
}

// preloadSynthetic makes cfg's parameters resident in e and returns a
// request of partitions synthetic partitions, its plan, and the
// parameters' prepared verifying key.
func preloadSynthetic(t *testing.T, ctx context.Context, e *engine.Engine, params *circuits.DevParams, reg *circuits.Registry,
	cfg synthetic.Config, partitions int) (engine.Request, *engine.Plan, *groth16.PreparedVerifyingKey) {
	t.Helper()
	id := circuits.SyntheticID(cfg)
	if _, _, err := e.Preload(ctx, id); err != nil {
		t.Fatalf("parameters: %v", err)
	}
	p, release, err := params.Acquire(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(release)
	pvk, err := groth16.PrepareVerifyingKey(&p.VK)
	if err != nil {
		t.Fatal(err)
	}
	req := engine.Request{Kind: engine.KindPoRepSealCommit, VanillaProof: circuits.SyntheticDescriptor(cfg, partitions)}
	plan, err := reg.Plan(ctx, &req)
	if err != nil {
		t.Fatal(err)
	}
	return req, plan, pvk
}

// verifyResult checks that r completed with one proof per partition of
// plan, every one valid.
func verifyResult(t *testing.T, r engine.Result, plan *engine.Plan, pvk *groth16.PreparedVerifyingKey) {
	t.Helper()
	if r.Status != engine.StatusCompleted {
		t.Fatalf("job %s: %v: %s", r.JobID, r.Status, r.Error)
	}
	proofs, err := groth16.DecodeProofs(r.Proof)
	if err != nil || len(proofs) != len(plan.Partitions) {
		t.Fatalf("job %s: %d proofs (%d bytes), want %d: %v", r.JobID, len(proofs), len(r.Proof), len(plan.Partitions), err)
	}
	for k := range proofs {
		if err := groth16.Verify(pvk, &proofs[k], plan.PublicInputs[k]); err != nil {
			t.Errorf("job %s partition %d: proof does not verify: %v", r.JobID, k, err)
		}
	}
}

// TestEngineWitnessLimited: under an explicit memory limit whose plan
// streams every query and B_G2, witness-only units take the classic path
// with a and b evaluated into the pinned staging (EvaluatesIntoWorkspace):
// the engine reserves no a, b and c, drops the aux after Prepare and keeps
// only the staging reserved, and the proofs verify; after the first unit's
// Run its a, b staging is kept with its share of the budget, and the
// second unit's Prepare takes it (closing the share) rather than page-lock
// one anew; the budget comes back empty once the kept staging is evicted.
func TestEngineWitnessLimited(t *testing.T) {
	d := limited(t, 8, func(min, all uint64) uint64 { return min })
	d.MemoryLimit = 1 << 40 // explicit: EvaluatesWitness is false; the plan is testLimit's
	done, plan, p := proveStaged(t, d, 9, "witness-limited")
	reserved := *plan
	reserved.Partitions = append([]engine.Partition(nil), plan.Partitions...)
	engine.DeviceReserves(&reserved, true, []groth16.Device{d})
	part, planned := reserved.Partitions[0], plan.Partitions[0]
	if part.ReserveABC != 0 || part.Reserve != planned.Reserve-planned.ReserveABC-planned.ReserveWork+part.ReserveWork {
		t.Fatalf("reserve %d (abc %d, work %d); planned %d (abc %d, work %d): want no a, b, c",
			part.Reserve, part.ReserveABC, part.ReserveWork, planned.Reserve, planned.ReserveABC, planned.ReserveWork)
	}
	if pl, ok := d.Plan(p); !ok || !pl.Streams() || pl.BG2StreamBytes == 0 {
		t.Errorf("plan %+v (resident %v): want every query and B_G2 streamed", pl, ok)
	}
	for i, u := range done {
		// all but the inputs and the staging, and the share of the kept
		// staging the Prepare took
		drop := part.Reserve - uint64(u.inputs*32+u.staged) + u.taken
		if u.witness || u.aux != 0 || u.atPrepare-u.atRun != drop {
			t.Errorf("unit %d: witness run %v, %d aux at Run; reserved %d at Prepare, %d at Run, want the classic path and a drop of %d",
				i, u.witness, u.aux, u.atPrepare, u.atRun, drop)
		}
	}
	// a, b: 64 bytes a row, in a buffer the pool may have had larger
	if ab := uint64(64 * part.Rows); part.Rows == 0 || done[0].taken != 0 || done[1].taken < ab {
		t.Errorf("shares taken by the two Prepares: %d, %d; want none, then the first's a, b staging (%d bytes)",
			done[0].taken, done[1].taken, ab)
	}
	for i, want := range []bool{false, true} {
		if got := slices.Contains(done[i].phases, "kept"); got != want {
			t.Errorf("unit %d: prepare phases %v: a kept staging %v, want %v", i, done[i].phases, got, want)
		}
	}
	t.Logf("the second Prepare took a kept staging of %d bytes; prepare phases %v, %v", done[1].taken, done[0].phases, done[1].phases)
}
