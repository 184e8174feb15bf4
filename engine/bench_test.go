package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/cuzk-project/cuzk/device/sim"
	"github.com/cuzk-project/cuzk/groth16"
	"github.com/cuzk-project/cuzk/memory"
	"github.com/cuzk-project/cuzk/timeline"
)

// BenchmarkDeviceHandover measures the engine's overhead on a saturated
// device: the time from one unit's KERNEL_END to the next unit's
// KERNEL_START, with the sim device (Prepare 1 ms, Run 2 ms, Finish 1 ms),
// 2 workers and every unit queued up front. One b.N is one unit. Assembly
// is cheapAssemble: the curve arithmetic is the prover's cost, not the
// engine's, and runs off the lock path anyway.
func BenchmarkDeviceHandover(b *testing.B) {
	const parts = 10
	dev := sim.New(sim.Config{Prepare: time.Millisecond, Run: 2 * time.Millisecond, Finish: time.Millisecond})
	rec := timeline.NewRecorder(1 << 20)
	e, err := New(Config{
		Devices:  []groth16.Device{dev},
		Budget:   memory.New(1 << 40),
		Planner:  &testPlanner{},
		Params:   testParams(),
		Recorder: rec,
		Rand:     zeroReader{},
		Assemble: cheapAssemble,
	})
	if err != nil {
		b.Fatal(err)
	}
	defer e.Close()
	jobs := (b.N + parts - 1) / parts
	b.ResetTimer()
	var ids []string
	for i := 0; i < jobs; i++ {
		v, _ := json.Marshal(testJob{Tag: uint64(i + 1), Parts: parts})
		id, _, err := e.Submit(context.Background(), Request{Kind: KindPoRepSealCommit, VanillaProof: v})
		if err != nil {
			b.Fatal(err)
		}
		ids = append(ids, id)
	}
	for _, id := range ids {
		r, err := e.Await(context.Background(), id, 0)
		if err != nil || r.Status != StatusCompleted {
			b.Fatalf("%s: %v %v %s", id, err, r.Status, r.Error)
		}
	}
	b.StopTimer()

	var starts, ends []time.Duration
	for _, ev := range rec.Events() {
		switch ev.Kind {
		case timeline.KernelStart:
			starts = append(starts, ev.At)
		case timeline.KernelEnd:
			ends = append(ends, ev.At)
		}
	}
	slices.Sort(starts)
	slices.Sort(ends)
	if len(starts) != len(ends) || len(starts) < 2 {
		b.Fatalf("%d kernel starts, %d ends", len(starts), len(ends))
	}
	// Runs never overlap (one lock), so the i-th end precedes the
	// (i+1)-th start.
	gaps := make([]time.Duration, 0, len(starts)-1)
	for i := 0; i+1 < len(starts); i++ {
		gaps = append(gaps, starts[i+1]-ends[i])
	}
	slices.Sort(gaps)
	q := func(p float64) time.Duration { return gaps[int(p*float64(len(gaps)-1))] }
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
	b.ReportMetric(ms(q(0.50)), "gap-p50-ms")
	b.ReportMetric(ms(q(0.99)), "gap-p99-ms")
	b.ReportMetric(ms(gaps[len(gaps)-1]), "gap-max-ms")
	rep := timeline.Analyze(rec.Events())
	b.ReportMetric(100*rep.Devices[0].KernelUtil, "kernel-util-%")
	if testing.Verbose() {
		fmt.Printf("units %d, gaps p50 %v p99 %v max %v\n", len(starts), q(0.5), q(0.99), gaps[len(gaps)-1])
	}
}
