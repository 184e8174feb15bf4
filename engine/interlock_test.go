package engine

import (
	"fmt"
	"testing"
	"time"

	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-project/cuzk/device/sim"
	"github.com/cuzk-project/cuzk/groth16"
	"github.com/cuzk-project/cuzk/memory"
	"github.com/cuzk-project/cuzk/timeline"
)

// TestInterlock proves 20 units on a sim device with Prepare 300 ms, Run
// 500 ms and Finish 300 ms and measures kernel utilization from the
// recorded KERNEL_START/END intervals (timeline.Analyze: union of kernel
// intervals ÷ the device's wall span).
//
// The expected figures follow from the schedule (wall = first pickup to
// last FINISH_END):
//
//   - 1 worker that prepares, runs and finishes in turn: 20 × 1100 ms of
//     wall for 20 × 500 ms of kernels, 45.5 %.
//   - 2 workers (the engine's default), Finish off the worker loop: the
//     device never waits after the first Prepare, 10 000 / (300 + 10 000 +
//     300) = 94.3 %.
//   - 2 workers finishing inline (the Rust Phase 8 interlock): a 100 ms gap
//     every second unit, 10 000 / 11 500 = 87.0 %.
//   - 1 worker, Finish off the loop: 500 / 800 per unit, 61.3 %.
//
// Under -short the time unit is a quarter; the ratios are the same.
func TestInterlock(t *testing.T) {
	scale := time.Millisecond
	if testing.Short() {
		scale = time.Millisecond / 4
	}
	tests := []struct {
		name     string
		workers  int
		inline   bool
		min, max float64
	}{
		{"1 worker", 1, true, 0.42, 0.47},
		{"2 workers", 2, false, 0.90, 0.95},
		{"2 workers, finish inline", 2, true, 0.80, 0.90},
		{"1 worker, finish off the loop", 1, false, 0.56, 0.64},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel() // sleeps, mostly: the runs hardly compete
			dcfg := sim.Config{Prepare: 300 * scale, Run: 500 * scale, Finish: 300 * scale}
			env := newTestEnv(t, dcfg, func(c *Config) {
				c.WorkersPerDevice = tc.workers
				c.FinishInline = tc.inline
				c.Budget = memory.New(1 << 40)
				c.Assemble = cheapAssemble
			})
			ids := []string{
				env.submit(t, "a", KindPoRepSealCommit, 0, testJob{Tag: 1, Parts: 10}),
				env.submit(t, "b", KindPoRepSealCommit, 0, testJob{Tag: 2, Parts: 10}),
			}
			for _, id := range ids {
				if r := env.await(t, id); r.Status != StatusCompleted {
					t.Fatalf("%s: %v %s", id, r.Status, r.Error)
				}
			}
			rep := timeline.Analyze(env.rec.Events())
			if len(rep.Devices) != 1 {
				t.Fatalf("%d devices in the report", len(rep.Devices))
			}
			d := rep.Devices[0]
			if d.Kernels != 20 {
				t.Fatalf("%d kernel intervals, want 20", d.Kernels)
			}
			if env.dev.MaxConcurrentRuns() != 1 {
				t.Fatalf("%d Runs overlapped: the device lock failed", env.dev.MaxConcurrentRuns())
			}
			t.Logf("kernel utilization %.1f %% (lock %.1f %%), wall %v, gaps p50 %v max %v",
				100*d.KernelUtil, 100*d.LockUtil, d.Wall, d.GapP50, d.GapMax)
			if d.KernelUtil < tc.min || d.KernelUtil > tc.max {
				t.Fatalf("kernel utilization %s, want in [%.0f %%, %.0f %%]",
					fmt.Sprintf("%.1f %%", 100*d.KernelUtil), 100*tc.min, 100*tc.max)
			}
		})
	}
}

// cheapAssemble is r = s = 0 assembly with a handful of additions: the
// interlock test measures scheduling, and under -race on a loaded machine
// the scalar multiplications of groth16.Assemble would dominate Finish.
// verifySim accepts its proofs (A = α + A_sum).
func cheapAssemble(vk *groth16.VerifyingKey, sums *groth16.Sums, _, _ fr.Element) (groth16.Proof, error) {
	var p groth16.Proof
	var a, c bls12381.G1Jac
	a.FromAffine(&vk.AlphaG1)
	a.AddAssign(&sums.A)
	p.A.FromJacobian(&a)
	var b bls12381.G2Jac
	b.FromAffine(&vk.BetaG2)
	b.AddAssign(&sums.B2)
	p.B.FromJacobian(&b)
	c.Set(&sums.H)
	c.AddAssign(&sums.L)
	p.C.FromJacobian(&c)
	return p, nil
}
