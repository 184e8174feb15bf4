package cuda

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/cuzk-project/cuzk/circuits"
	"github.com/cuzk-project/cuzk/circuits/synthetic"
	"github.com/cuzk-project/cuzk/engine"
	"github.com/cuzk-project/cuzk/groth16"
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
	// Set up the parameters before the jobs, so that they start together
	// and queue their partitions at once for the two workers.
	if _, _, err := e.Preload(ctx, circuits.SyntheticID(cfg)); err != nil {
		t.Fatalf("parameters: %v", err)
	}

	req := engine.Request{Kind: engine.KindPoRepSealCommit, VanillaProof: circuits.SyntheticDescriptor(cfg, partitions)}
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

	p, release, err := params.Acquire(ctx, circuits.SyntheticID(cfg))
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	pvk, err := groth16.PrepareVerifyingKey(&p.VK)
	if err != nil {
		t.Fatal(err)
	}
	plan, err := reg.Plan(ctx, &req)
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range results {
		if errs[i] != nil {
			t.Fatalf("job %d: %v", i, errs[i])
		}
		if r.Status != engine.StatusCompleted {
			t.Fatalf("job %s: %v: %s", r.JobID, r.Status, r.Error)
		}
		if len(r.Proof) != partitions*groth16.ProofSize {
			t.Fatalf("job %s: %d proof bytes, want %d", r.JobID, len(r.Proof), partitions*groth16.ProofSize)
		}
		proofs, err := groth16.DecodeProofs(r.Proof)
		if err != nil {
			t.Fatalf("job %s: %v", r.JobID, err)
		}
		for k := range proofs {
			if err := groth16.Verify(pvk, &proofs[k], plan.PublicInputs[k]); err != nil {
				t.Errorf("job %s partition %d: proof does not verify: %v", r.JobID, k, err)
			}
		}
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
