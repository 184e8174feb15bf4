package timeline

import (
	"fmt"
	"math"
	"strings"
	"testing"
	"time"
)

const ms = time.Millisecond

// kernel returns a KERNEL_START/END pair on device 0.
func kernel(job string, partition, worker int, start, end time.Duration) []Event {
	return []Event{
		{At: start, Kind: KernelStart, Job: job, Partition: partition, Worker: worker, Device: 0},
		{At: end, Kind: KernelEnd, Job: job, Partition: partition, Worker: worker, Device: 0},
	}
}

func stage(startK, endK Kind, job string, partition, worker, device int, start, end time.Duration) []Event {
	return []Event{
		{At: start, Kind: startK, Job: job, Partition: partition, Worker: worker, Device: device},
		{At: end, Kind: endK, Job: job, Partition: partition, Worker: worker, Device: device},
	}
}

// simInterlock plays the engine's worker loop with fixed stage durations:
// each worker prepares a unit, waits for the device lock, runs the kernels
// under it and finishes the unit before taking the next one. Units go to the
// worker that is free first; the lock is granted in request order.
func simInterlock(workers, units, partitionsPerJob int, prep, run, finish time.Duration) []Event {
	free := make([]time.Duration, workers)
	var lockFree time.Duration
	var ev []Event
	for u := range units {
		w := 0
		for i := range free {
			if free[i] < free[w] {
				w = i
			}
		}
		job, p, t := fmt.Sprintf("job-%d", u/partitionsPerJob), u%partitionsPerJob, free[w]
		ev = append(ev, stage(PrepStart, PrepEnd, job, p, w, 0, t, t+prep)...)
		held := max(t+prep, lockFree)
		ev = append(ev, stage(LockWait, LockHeld, job, p, w, 0, t+prep, held)...)
		ev = append(ev, stage(LockHeld, LockFree, job, p, w, 0, held, held+run)[1])
		ev = append(ev, stage(KernelStart, KernelEnd, job, p, w, 0, held, held+run)...)
		ev = append(ev, stage(FinishStart, FinishEnd, job, p, w, 0, held+run, held+run+finish)...)
		lockFree = held + run
		free[w] = held + run + finish
	}
	return ev
}

func cat(parts ...[]Event) []Event {
	var out []Event
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

func TestAnalyzeDevice(t *testing.T) {
	// 1 worker: kernel [0,500] every 1100 ms, the unit's finish fills the
	// rest of the period, so the wall is 10 × 1100 ms.
	var periodic []Event
	for i := range 10 {
		t0 := time.Duration(i) * 1100 * ms
		periodic = append(periodic, kernel("a", i, 0, t0, t0+500*ms)...)
		periodic = append(periodic, stage(FinishStart, FinishEnd, "a", i, 0, 0, t0+500*ms, t0+1100*ms)...)
	}
	var kernelsOnly []Event
	for i := range 10 {
		t0 := time.Duration(i) * 1100 * ms
		kernelsOnly = append(kernelsOnly, kernel("a", i, 0, t0, t0+500*ms)...)
	}

	for _, tc := range []struct {
		name       string
		events     []Event
		kernelUtil float64
		lockUtil   float64
		wall       time.Duration
		gaps       GapHistogram
		stalls     int
		stallTime  time.Duration
		gapMax     time.Duration
	}{
		{
			name: "1 worker, kernel 500 ms every 1100 ms", events: periodic,
			kernelUtil: 500.0 / 1100, wall: 11000 * ms,
			gaps: GapHistogram{Long: 9}, gapMax: 600 * ms,
		},
		{
			name: "kernels only: the wall ends at the last kernel", events: kernelsOnly,
			kernelUtil: 5000.0 / 10400, wall: 10400 * ms,
			gaps: GapHistogram{Long: 9}, gapMax: 600 * ms,
		},
		{
			name: "two workers overlap: union, not sum",
			events: cat(
				kernel("a", 0, 0, 0, 500*ms),
				kernel("b", 0, 1, 400*ms, 900*ms),
				kernel("c", 0, 0, 1000*ms, 1500*ms)),
			kernelUtil: 1400.0 / 1500, wall: 1500 * ms,
			gaps: GapHistogram{Medium: 1}, gapMax: 100 * ms,
			stalls: 1, stallTime: 100 * ms, // b (which reached 900 ms) → c
		},
		{
			name: "bucket bounds: 10, 50, 500, 501 ms",
			events: cat(
				kernel("a", 0, 0, 0, 100*ms),
				kernel("a", 1, 0, 110*ms, 200*ms),
				kernel("a", 2, 0, 250*ms, 300*ms),
				kernel("a", 3, 0, 800*ms, 900*ms),
				kernel("a", 4, 0, 1401*ms, 1500*ms)),
			kernelUtil: 439.0 / 1500, wall: 1500 * ms,
			gaps: GapHistogram{Short: 1, Medium: 2, Long: 1}, gapMax: 501 * ms,
		},
		{
			name: "lock held longer than the kernel: job time is not device time",
			events: cat(
				stage(LockHeld, LockFree, "a", 0, 0, 0, 0, 1000*ms),
				kernel("a", 0, 0, 100*ms, 600*ms)),
			kernelUtil: 0.5, lockUtil: 1, wall: 1000 * ms,
		},
		{
			name: "touching kernels of different jobs merge: no gap, no stall",
			events: cat(
				kernel("a", 0, 0, 0, 500*ms),
				kernel("b", 0, 1, 500*ms, 1000*ms)),
			kernelUtil: 1, wall: 1000 * ms,
		},
		{
			name:       "cross-job stalls counted per gap",
			events:     cat(kernel("a", 0, 0, 0, 100*ms), kernel("a", 1, 0, 200*ms, 300*ms), kernel("b", 0, 0, 1000*ms, 1100*ms), kernel("c", 0, 0, 1120*ms, 1200*ms)),
			kernelUtil: 380.0 / 1200, wall: 1200 * ms,
			gaps: GapHistogram{Short: 1, Medium: 1, Long: 1}, gapMax: 700 * ms,
			stalls: 2, stallTime: 720 * ms,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rep := Analyze(tc.events)
			if len(rep.Devices) != 1 {
				t.Fatalf("%d devices, want 1", len(rep.Devices))
			}
			d := rep.Devices[0]
			if d.Wall != tc.wall {
				t.Errorf("wall = %v, want %v", d.Wall, tc.wall)
			}
			if math.Abs(d.KernelUtil-tc.kernelUtil) > 1e-9 {
				t.Errorf("kernel utilization = %.4f, want %.4f", d.KernelUtil, tc.kernelUtil)
			}
			if math.Abs(d.LockUtil-tc.lockUtil) > 1e-9 {
				t.Errorf("lock utilization = %.4f, want %.4f", d.LockUtil, tc.lockUtil)
			}
			if d.Gaps != tc.gaps {
				t.Errorf("gap histogram = %+v, want %+v", d.Gaps, tc.gaps)
			}
			if d.GapMax != tc.gapMax {
				t.Errorf("largest gap = %v, want %v", d.GapMax, tc.gapMax)
			}
			if len(d.Stalls) != tc.stalls || d.StallTime != tc.stallTime {
				t.Errorf("stalls = %d (%v), want %d (%v)", len(d.Stalls), d.StallTime, tc.stalls, tc.stallTime)
			}
			if len(rep.Unpaired) != 0 {
				t.Errorf("unpaired events: %v", rep.Unpaired)
			}
		})
	}
}

func TestAnalyzeInterlock(t *testing.T) {
	// The engine's acceptance numbers: Prepare 300, Run 500, Finish 300 ms,
	// 20 units of 10-partition jobs.
	for _, tc := range []struct {
		workers  int
		min, max float64
	}{
		{1, 0.45, 0.46}, // 500 / 1100
		{2, 0.85, 1},
		{3, 0.85, 1},
	} {
		t.Run(fmt.Sprintf("%d workers", tc.workers), func(t *testing.T) {
			rep := Analyze(simInterlock(tc.workers, 20, 10, 300*ms, 500*ms, 300*ms))
			d := rep.Devices[0]
			if d.KernelUtil < tc.min || d.KernelUtil > tc.max {
				t.Fatalf("kernel utilization %.3f, want in [%.2f, %.2f]", d.KernelUtil, tc.min, tc.max)
			}
			if d.Workers != tc.workers || d.Kernels != 20 || d.Locks != 20 {
				t.Fatalf("workers %d kernels %d locks %d", d.Workers, d.Kernels, d.Locks)
			}
			if d.LockUtil != d.KernelUtil {
				t.Fatalf("lock %.3f ≠ kernel %.3f though the simulated lock brackets exactly the kernels", d.LockUtil, d.KernelUtil)
			}
			if len(rep.Unpaired) != 0 {
				t.Fatalf("unpaired events: %v", rep.Unpaired)
			}
		})
	}
}

func TestAnalyzeTopGapsAndNeighbours(t *testing.T) {
	ev := cat(
		kernel("a", 0, 0, 0, 100*ms),
		kernel("a", 1, 0, 150*ms, 200*ms),  // gap 50
		kernel("b", 0, 0, 900*ms, 1000*ms), // gap 700, cross-job
		stage(PrepStart, PrepEnd, "b", 0, 0, 0, 300*ms, 850*ms),
		kernel("b", 1, 0, 1200*ms, 1300*ms), // gap 200
	)
	d := Analyze(ev).Devices[0]
	want := []time.Duration{700 * ms, 200 * ms, 50 * ms}
	if len(d.TopGaps) != len(want) {
		t.Fatalf("%d top gaps, want %d", len(d.TopGaps), len(want))
	}
	for i, g := range d.TopGaps {
		if g.Len() != want[i] {
			t.Fatalf("top gap %d = %v, want %v", i, g.Len(), want[i])
		}
	}
	g := d.TopGaps[0]
	if g.Before.Job != "a" || g.Before.Partition != 1 || g.After.Job != "b" || g.After.Partition != 0 || !g.CrossJob {
		t.Fatalf("largest gap bounded by %+v and %+v", g.Before, g.After)
	}
	if len(g.During) != 2 || g.During[0].Kind != PrepStart || g.During[1].Kind != PrepEnd {
		t.Fatalf("events during the largest gap: %v", g.During)
	}
	if d.GapP50 != 200*ms || d.GapP99 != 700*ms {
		t.Fatalf("p50 %v p99 %v", d.GapP50, d.GapP99)
	}
}

func TestPair(t *testing.T) {
	ev := []Event{
		{At: 0, Kind: DevQueue, Job: "a", Partition: 0, Worker: -1, Device: -1},
		{At: 1, Kind: DevQueue, Job: "a", Partition: 1, Worker: -1, Device: -1},
		{At: 5, Kind: DevPickup, Job: "a", Partition: 1, Worker: 2, Device: 0},
		{At: 7, Kind: DevPickup, Job: "a", Partition: 0, Worker: 1, Device: 0},
		// Same key twice: first in, first out.
		{At: 10, Kind: SynthStart, Job: "a", Partition: 3, Worker: 0, Device: -1},
		{At: 11, Kind: SynthStart, Job: "a", Partition: 3, Worker: 0, Device: -1},
		{At: 12, Kind: SynthEnd, Job: "a", Partition: 3, Worker: 0, Device: -1},
		{At: 20, Kind: SynthEnd, Job: "a", Partition: 3, Worker: 0, Device: -1},
		// Different worker: no pairing.
		{At: 30, Kind: PrepStart, Job: "a", Partition: 4, Worker: 0, Device: 0},
		{At: 31, Kind: PrepEnd, Job: "a", Partition: 4, Worker: 1, Device: 0},
		// Recorded out of order (device clock): sorted before pairing.
		{At: 45, Kind: KernelEnd, Job: "a", Partition: 5, Worker: 0, Device: 0},
		{At: 40, Kind: KernelStart, Job: "a", Partition: 5, Worker: 0, Device: 0},
		{At: 50, Kind: JobSubmit, Job: "a", Partition: -1, Worker: -1, Device: -1},
		{At: 60, Kind: JobDone, Job: "a", Partition: -1, Worker: -1, Device: -1},
	}
	ivs, unpaired := Pair(ev)
	want := []Interval{
		{Stage: StageQueue, Job: "a", Partition: 0, Worker: 1, Device: 0, Start: 0, End: 7},
		{Stage: StageQueue, Job: "a", Partition: 1, Worker: 2, Device: 0, Start: 1, End: 5},
		{Stage: StageSynth, Job: "a", Partition: 3, Worker: 0, Device: -1, Start: 10, End: 12},
		{Stage: StageSynth, Job: "a", Partition: 3, Worker: 0, Device: -1, Start: 11, End: 20},
		{Stage: StageKernel, Job: "a", Partition: 5, Worker: 0, Device: 0, Start: 40, End: 45},
		{Stage: StageJob, Job: "a", Partition: -1, Worker: -1, Device: -1, Start: 50, End: 60},
	}
	if fmt.Sprint(ivs) != fmt.Sprint(want) {
		t.Fatalf("intervals\n got %v\nwant %v", ivs, want)
	}
	if len(unpaired) != 2 || unpaired[0].Kind != PrepStart || unpaired[1].Kind != PrepEnd {
		t.Fatalf("unpaired = %v, want the PREP_START/END of different workers", unpaired)
	}
}

func TestAnalyzeStagesAndText(t *testing.T) {
	ev := simInterlock(2, 20, 10, 300*ms, 500*ms, 300*ms)
	ev = append(ev, Event{At: 5, Kind: KernelEnd, Job: "ghost", Partition: 0, Worker: 0, Device: 1})
	rep := Analyze(ev)
	totals := make(map[Stage]StageTotal)
	for _, s := range rep.Stages {
		totals[s.Stage] = s
	}
	for _, tc := range []struct {
		s     Stage
		total time.Duration
	}{
		{StagePrep, 20 * 300 * ms}, {StageKernel, 20 * 500 * ms}, {StageFinish, 20 * 300 * ms}, {StageLock, 20 * 500 * ms},
	} {
		got := totals[tc.s]
		if got.Count != 20 || got.Total != tc.total || got.Max != tc.total/20 || got.Mean != tc.total/20 {
			t.Errorf("stage %v: %+v, want 20 intervals totalling %v", tc.s, got, tc.total)
		}
	}
	if len(rep.Devices) != 2 || len(rep.Unpaired) != 1 {
		t.Fatalf("%d devices, %d unpaired; want 2 and 1", len(rep.Devices), len(rep.Unpaired))
	}
	var b strings.Builder
	if err := rep.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{"device 0", "kernel (device clock)", "lock held", "< 50 ms", "largest gaps", "cross-job stalls", "1 unpaired", "stages"} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
	if testing.Verbose() {
		t.Log("\n" + out)
	}
}

func TestAnalyzeEmpty(t *testing.T) {
	rep := Analyze(nil)
	if rep.Events != 0 || len(rep.Devices) != 0 || len(rep.Stages) != 0 {
		t.Fatalf("empty analysis: %+v", rep)
	}
	var b strings.Builder
	if err := rep.WriteText(&b); err != nil || !strings.Contains(b.String(), "no device events") {
		t.Fatalf("empty report %q, %v", b.String(), err)
	}
}

func BenchmarkAnalyze(b *testing.B) {
	ev := simInterlock(2, 10000, 10, 300*ms, 500*ms, 300*ms)
	b.ReportAllocs()
	for b.Loop() {
		Analyze(ev)
	}
	b.ReportMetric(float64(len(ev))*float64(b.N)/b.Elapsed().Seconds(), "events/s")
}
