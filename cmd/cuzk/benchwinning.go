package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/signal"
	"runtime"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/cuzk-project/cuzk/circuits"
	"github.com/cuzk-project/cuzk/circuits/synthetic"
	"github.com/cuzk-project/cuzk/config"
	"github.com/cuzk-project/cuzk/device/cpu"
	"github.com/cuzk-project/cuzk/engine"
	"github.com/cuzk-project/cuzk/filecoin"
	"github.com/cuzk-project/cuzk/filecoin/gen"
	"github.com/cuzk-project/cuzk/filecoin/post"
	"github.com/cuzk-project/cuzk/groth16"
	"github.com/cuzk-project/cuzk/memory"
	"github.com/cuzk-project/cuzk/server"
	"github.com/cuzk-project/cuzk/timeline"
)

// winningOptions are the flags of `cuzk bench winning`; the PoRep flow
// takes the shared bench flags (--constraints, --partitions, -j, …).
type winningOptions struct {
	count       int           // WinningPoSt requests
	interval    time.Duration // between two submissions
	warmup      time.Duration // longest wait for the first PoRep Run
	constraints int           // synthetic WinningPoSt rows
	inputs      int           // its public inputs, ONE excluded
	real        bool          // 2 KiB PoRep and WinningPoSt made by filecoin/gen
	headroomMiB int64         // CRITICAL headroom; 0: two WinningPoSt units, -1: none
	lane        bool          // a CRITICAL handle per device (engine.Config.CriticalDevices)
	priority    string        // of the WinningPoSt requests; "" the kind's default
}

// winning32GiBRows and winning32GiBInputs are the 32 GiB WinningPoSt
// circuit's rows and public inputs (ONE excluded): its synthetic stand-in's
// default shape.
const (
	winning32GiBRows   = 370_590
	winning32GiBInputs = 132
)

const benchWinningLong = `bench winning measures how long WinningPoSt requests take while PoRep partitions keep
the engine busy. -j PoRep jobs are kept in flight (synthetic PoRep-shaped jobs of --partitions ×
--constraints rows, or with --real the generated 2 KiB PoRep C2 request of filecoin/gen); once a
PoRep unit holds the device, --count WinningPoSt requests are submitted --interval apart, at their
kind's default priority (CRITICAL): synthetic ones of --winning-constraints rows and
--winning-inputs inputs (default: the 32 GiB WinningPoSt's 370,590 rows and 132 inputs), or with
--real a generated 2 KiB WinningPoSt as Curio's client sends it.

It reports the WinningPoSt latency (p50, p99, max) and where it went, from the engine's timeline:
waiting (synthesis queue, device queue, device lock) against its own work (synthesis, Prepare,
Run, Finish, and the rest: planning with vanilla verification, batch verification, hand-offs).
In-process only; synthetic jobs use development parameters (generated once, cached under
--params-dir); --real reads the real file names in --params-dir (default: the Filecoin
parameter cache), e.g. made by cuzk setup.

  cuzk bench winning --constraints 65536 --partitions 4 -j 2 --winning-constraints 8192 --count 20
  cuzk bench winning --device cuda --constraints 16777216 --partitions 10 -j 2 --count 40 --interval 3s`

func newBenchWinningCmd(o *benchOptions) *cobra.Command {
	w := &winningOptions{}
	cmd := &cobra.Command{
		Use:   "winning",
		Short: "WinningPoSt latency while PoRep partitions flow",
		Long:  benchWinningLong,
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			o.count = w.count // the shared validation wants one
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			return runBenchWinning(ctx, cmd.OutOrStdout(), o, w)
		},
	}
	f := cmd.Flags()
	f.IntVar(&w.count, "count", 20, "WinningPoSt requests to submit")
	f.DurationVar(&w.interval, "interval", 2*time.Second, "time between two WinningPoSt submissions")
	f.DurationVar(&w.warmup, "warmup", 5*time.Minute, "longest wait for the first PoRep unit to reach the device before the first WinningPoSt")
	f.IntVar(&w.constraints, "winning-constraints", winning32GiBRows, "rows of the synthetic WinningPoSt (default: the 32 GiB circuit's)")
	f.IntVar(&w.inputs, "winning-inputs", winning32GiBInputs, "public inputs of the synthetic WinningPoSt, ONE excluded")
	f.BoolVar(&w.real, "real", false, "prove generated 2 KiB PoRep and WinningPoSt requests (parameters under their real names in --params-dir)")
	f.Int64Var(&w.headroomMiB, "critical-headroom", 0, "MiB of the budget held for CRITICAL units (0: two WinningPoSt reservations, -1: none)")
	f.BoolVar(&w.lane, "critical-lane", false, "give each device a second handle on which WinningPoSt Runs take no device lock")
	f.StringVar(&w.priority, "winning-priority", "", "priority of the WinningPoSt requests: low, normal, high, critical (default: the kind's, CRITICAL), for comparison")
	return cmd
}

func (w *winningOptions) validate(o *benchOptions) error {
	switch {
	case w.count < 1:
		return fmt.Errorf("--count %d: want at least 1", w.count)
	case w.interval <= 0:
		return fmt.Errorf("--interval %v: want a positive duration", w.interval)
	case o.addr != "":
		return errors.New("bench winning runs an in-process engine: its breakdown comes from the engine's timeline (drop --addr)")
	}
	if _, err := parsePriority(w.priority); err != nil {
		return err
	}
	if w.real {
		return nil
	}
	if w.constraints > circuits.MaxSyntheticConstraints {
		return fmt.Errorf("--winning-constraints %d: at most %d", w.constraints, circuits.MaxSyntheticConstraints)
	}
	if err := w.circuit(o.seed).Validate(); err != nil {
		return fmt.Errorf("--winning-constraints/--winning-inputs: %w", err)
	}
	return nil
}

// circuit is the synthetic WinningPoSt stand-in: another seed than the
// PoRep jobs', so that it is another circuit with its own parameters.
func (w *winningOptions) circuit(seed uint64) synthetic.Config {
	c := synthetic.Default(w.constraints)
	c.Inputs = w.inputs
	c.Seed = seed + 1
	return c
}

// winningWork is what the bench submits: one PoRep request and one
// WinningPoSt request (their ids are set per submission) and the circuits
// whose parameters are preloaded.
type winningWork struct {
	porep, winning     engine.Request
	porepID, winningID string
	porepParts         int
	describe           string
	params             engine.ParamsSource
	winningReserve     uint64
}

func newWinningWork(ctx context.Context, o *benchOptions, w *winningOptions) (*winningWork, error) {
	if !w.real {
		pc, wc := o.circuit(), w.circuit(o.seed)
		dir := o.paramsDir
		if dir == "" {
			var err error
			if dir, err = circuits.DefaultParamsDir(); err != nil {
				return nil, fmt.Errorf("%w (give --params-dir)", err)
			}
		}
		reserve, _ := circuits.SyntheticFootprint(wc)
		return &winningWork{
			porep:   engine.Request{Kind: engine.KindPoRepSealCommit, VanillaProof: circuits.SyntheticDescriptor(pc, o.partitions)},
			winning: engine.Request{Kind: engine.KindWinningPoSt, VanillaProof: circuits.SyntheticDescriptor(wc, 1)},
			porepID: circuits.SyntheticID(pc), winningID: circuits.SyntheticID(wc), porepParts: o.partitions,
			describe: fmt.Sprintf("synthetic PoRep jobs of %s, synthetic WinningPoSt of %s rows and %d inputs (development parameters)",
				o.shape(), rowsString(w.constraints), w.inputs),
			params:         circuits.NewDevParams(dir),
			winningReserve: reserve,
		}, nil
	}
	dir := o.paramsDir
	if dir == "" {
		dir = config.ParamCacheDir()
	}
	sp := filecoin.StackedDrg2KiBV1_1
	sinfo, err := sp.Info()
	if err != nil {
		return nil, err
	}
	const miner, sector = 1000, 1
	p, err := gen.GeneratePoRep(ctx, gen.PoRepOptions{Proof: sp, Seed: o.seed, Miner: miner, Sector: sector}, nil)
	if err != nil {
		return nil, fmt.Errorf("generating the PoRep: %w", err)
	}
	win, err := gen.GenerateWinningPoSt(ctx, gen.WinningOptions{Proof: post.StackedDrgWinning2KiBV1, Seed: o.seed, Miner: miner})
	if err != nil {
		return nil, fmt.Errorf("generating the WinningPoSt: %w", err)
	}
	porep, err := server.RequestFromProto(porepRequest(sinfo, miner, sector, p.Envelope.Encode()))
	if err != nil {
		return nil, err
	}
	porep.Priority = engine.PriorityUnspecified
	r := win.Request
	return &winningWork{
		porep: porep,
		winning: engine.Request{Kind: engine.KindWinningPoSt, SectorSize: r.SectorSize, RegisteredProof: r.RegisteredProof,
			VanillaProofs: r.VanillaProofs, MinerID: r.MinerID, Randomness: r.Randomness},
		porepID: sinfo.CircuitID(), winningID: win.Info.CircuitID(), porepParts: sinfo.Partitions,
		describe: fmt.Sprintf("generated %s PoRep C2 (%d partitions) and %s requests, parameters from %s",
			sinfo.Name, sinfo.Partitions, win.Info.Name, dir),
		params: &circuits.FilecoinFiles{Dir: dir},
		// The 2 KiB WinningPoSt is small; the engine measures no more.
		winningReserve: 64 << 20,
	}, nil
}

func parsePriority(s string) (engine.Priority, error) {
	switch strings.ToLower(s) {
	case "":
		return engine.PriorityUnspecified, nil
	case "low":
		return engine.PriorityLow, nil
	case "normal":
		return engine.PriorityNormal, nil
	case "high":
		return engine.PriorityHigh, nil
	case "critical":
		return engine.PriorityCritical, nil
	}
	return 0, fmt.Errorf("--winning-priority %q: want low, normal, high or critical", s)
}

func rowsString(n int) string {
	if l := math.Log2(float64(n)); l == math.Trunc(l) {
		return fmt.Sprintf("2^%d", int(l))
	}
	return fmt.Sprint(n)
}

// newWinningEngine is the in-process engine of the bench: o's device,
// workers and budget, a CRITICAL headroom and, with --critical-lane, a
// second handle per device (on a GPU its lane: cuda.Lane).
func newWinningEngine(o *benchOptions, w *winningOptions, work *winningWork, rec *timeline.Recorder) (*engine.Engine, string, error) {
	devices := []groth16.Device{cpu.New(0)}
	var lanes []groth16.Device
	name := fmt.Sprintf("CPU device (%d cores)", runtime.NumCPU())
	if w.lane {
		lanes = []groth16.Device{cpu.New(0)}
	}
	if o.device == "cuda" {
		var err error
		if devices, err = cudaDevices(nil, cudaOptions{workers: o.workers}); err != nil {
			return nil, "", err
		}
		name = devices[0].Profile().Name
		if w.lane {
			if lanes, err = criticalLanes(devices); err != nil {
				return nil, "", err
			}
		}
	}
	headroom := w.headroomMiB << 20
	if w.headroomMiB == 0 {
		headroom = int64(2 * work.winningReserve)
	}
	e, err := engine.New(engine.Config{
		Devices:          devices,
		CriticalDevices:  lanes,
		WorkersPerDevice: o.workers,
		SynthesisWorkers: o.synthWorkers,
		Budget:           memory.New(uint64(o.budgetGiB * (1 << 30))),
		CriticalHeadroom: headroom,
		Planner:          circuits.New(),
		Params:           work.params,
		Recorder:         rec,
	})
	return e, name, err
}

func runBenchWinning(ctx context.Context, out io.Writer, o *benchOptions, w *winningOptions) error {
	if err := o.validate(); err != nil {
		return err
	}
	if err := w.validate(o); err != nil {
		return err
	}
	work, err := newWinningWork(ctx, o, w)
	if err != nil {
		return err
	}
	work.winning.Priority, _ = parsePriority(w.priority)
	rec := timeline.NewRecorder(0)
	e, devName, err := newWinningEngine(o, w, work, rec)
	if err != nil {
		return err
	}
	defer e.Close()
	lane := ""
	if w.lane {
		lane = ", a CRITICAL lane per device"
	}
	prio := "CRITICAL (the kind's default)"
	if p := work.winning.Priority; p != engine.PriorityUnspecified {
		prio = p.String()
	}
	fmt.Fprintf(out, "cuzk bench winning: in-process engine, %s, %d device workers + 1 CRITICAL%s, %d PoRep jobs in flight; %s; WinningPoSt priority %s\n",
		devName, o.workers, lane, o.concurrency, work.describe, prio)
	fmt.Fprintf(out, "load average at start: %s\n", loadAverage())
	for _, id := range []string{work.porepID, work.winningID} {
		t0 := time.Now()
		if _, _, err := e.Preload(ctx, id); err != nil {
			return fmt.Errorf("parameters %s: %w", id, err)
		}
		fmt.Fprintf(out, "params %s: resident in %v\n", id, time.Since(t0).Round(time.Millisecond))
	}

	res, err := driveWinning(ctx, e, rec, o, w, work)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "load average at end: %s\n", loadAverage())
	events := rec.Events()
	if o.timelineCSV != "" {
		if err := writeTimelineCSV(o.timelineCSV, events); err != nil {
			return err
		}
		fmt.Fprintf(out, "timeline: %d events in %s\n", len(events), o.timelineCSV)
	}
	samples := winningBreakdown(events, res.latency)
	printWinning(out, res, samples, work.porepParts)
	all := map[string]bool{}
	for id := range res.latency {
		all[id] = true
	}
	for _, id := range res.porepIDs {
		all[id] = true
	}
	if err := writeUtilization(out, events, all); err != nil {
		fmt.Fprintln(out, "utilization:", err)
	}
	if res.failed > 0 {
		return fmt.Errorf("%d WinningPoSt requests failed (first: %v)", res.failed, res.firstErr)
	}
	return nil
}

// winningRun is what driveWinning saw.
type winningRun struct {
	wall          time.Duration
	latency       map[string]time.Duration // WinningPoSt job id → submit to result
	failed        int
	firstErr      error
	porepIDs      []string // PoRep jobs proved while the WinningPoSts ran
	porepProved   int
	porepFailures int
}

// driveWinning keeps o.concurrency PoRep jobs in flight, waits for a PoRep
// unit to hold the device, then submits w.count WinningPoSt requests
// w.interval apart (each on its own goroutine, so a slow one does not
// delay the next) and stops the PoRep flow once they are all answered.
func driveWinning(ctx context.Context, e *engine.Engine, rec *timeline.Recorder, o *benchOptions, w *winningOptions, work *winningWork) (winningRun, error) {
	d := &winningDriver{e: e, work: work, stamp: time.Now().UnixNano()}
	d.run.latency = map[string]time.Duration{}
	flowCtx, stopFlow := context.WithCancel(ctx)
	defer stopFlow()
	var flow sync.WaitGroup
	for g := 0; g < o.concurrency; g++ {
		flow.Go(func() { d.porepFlow(flowCtx, g) })
	}
	if !waitForPoRepRun(flowCtx, rec, w.warmup) {
		if err := ctx.Err(); err != nil {
			return d.run, err
		}
		return d.run, fmt.Errorf("no PoRep unit reached the device within --warmup %v", w.warmup)
	}
	start := time.Now()
	var wins sync.WaitGroup
	for k := 0; k < w.count; k++ {
		if wait := time.Until(start.Add(time.Duration(k) * w.interval)); wait > 0 {
			select {
			case <-time.After(wait):
			case <-ctx.Done():
			}
		}
		if ctx.Err() != nil {
			break
		}
		wins.Go(func() { d.winning(ctx, k) })
	}
	wins.Wait()
	d.run.wall = time.Since(start)
	stopFlow()
	flow.Wait()
	return d.run, ctx.Err()
}

// winningDriver is one driveWinning run: the engine, the requests, and the
// results its goroutines record under mu.
type winningDriver struct {
	e     *engine.Engine
	work  *winningWork
	stamp int64

	mu  sync.Mutex
	run winningRun
}

// porepFlow proves PoRep jobs one after another until ctx ends; a job cut
// short by the end is not counted.
func (d *winningDriver) porepFlow(ctx context.Context, g int) {
	for i := 0; ctx.Err() == nil; i++ {
		req := d.work.porep
		req.RequestID = fmt.Sprintf("bench-porep-%d-%d-%d", d.stamp, g, i)
		r, err := d.e.Prove(ctx, req)
		if ctx.Err() != nil {
			return
		}
		d.mu.Lock()
		if err == nil && r.Status == engine.StatusCompleted {
			d.run.porepProved++
			d.run.porepIDs = append(d.run.porepIDs, req.RequestID)
		} else {
			d.run.porepFailures++
		}
		d.mu.Unlock()
		if err != nil {
			return
		}
	}
}

// winning proves the k-th WinningPoSt and records its latency or failure.
func (d *winningDriver) winning(ctx context.Context, k int) {
	req := d.work.winning
	req.RequestID = fmt.Sprintf("bench-winning-%d-%d", d.stamp, k)
	t0 := time.Now()
	r, err := d.e.Prove(ctx, req)
	lat := time.Since(t0)
	if err == nil && r.Status != engine.StatusCompleted {
		err = fmt.Errorf("%s: %v: %s", req.RequestID, r.Status, r.Error)
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if err != nil {
		d.run.failed++
		if d.run.firstErr == nil {
			d.run.firstErr = err
		}
		return
	}
	d.run.latency[req.RequestID] = lat
}

// waitForPoRepRun waits until some unit holds a device lock (only PoRep
// jobs run yet) or limit passes.
func waitForPoRepRun(ctx context.Context, rec *timeline.Recorder, limit time.Duration) bool {
	deadline := time.Now().Add(limit)
	for time.Now().Before(deadline) && ctx.Err() == nil {
		for _, ev := range rec.Events() {
			if ev.Kind == timeline.LockHeld {
				return true
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	return false
}

// winningSample is one WinningPoSt's latency split by stage. Waiting is
// SynthQueue + DevQueue + LockWait; Rest is what the stages do not cover
// (planning with vanilla verification before JOB_SUBMIT, batch
// verification after Finish, hand-offs between stages).
type winningSample struct {
	Job                               string
	Latency                           time.Duration
	SynthQueue, Synth, DevQueue, Prep time.Duration
	LockWait, Run, Finish, Rest       time.Duration
	// Behind counts the other units' Runs that overlapped its lock wait:
	// at most 1 when the lock goes to it next.
	Behind int
}

func (s winningSample) waiting() time.Duration { return s.SynthQueue + s.DevQueue + s.LockWait }

// winningBreakdown splits each job's latency (client side, by job id) by
// the stages its timeline events mark. A job whose events are missing (the
// recorder overwrote them) is left out.
func winningBreakdown(events []timeline.Event, latency map[string]time.Duration) []winningSample {
	type marks map[timeline.Kind]time.Duration
	byJob := map[string]marks{}
	for _, ev := range events {
		if _, ok := latency[ev.Job]; !ok {
			continue
		}
		m := byJob[ev.Job]
		if m == nil {
			m = marks{}
			byJob[ev.Job] = m
		}
		if _, seen := m[ev.Kind]; !seen { // one unit per job: the first of each kind
			m[ev.Kind] = ev.At
		}
	}
	ivs, _ := timeline.Pair(events)
	var kernels []timeline.Interval
	for _, iv := range ivs {
		if iv.Stage == timeline.StageKernel {
			kernels = append(kernels, iv)
		}
	}
	var out []winningSample
	for id, lat := range latency {
		m := byJob[id]
		need := []timeline.Kind{timeline.JobSubmit, timeline.SynthStart, timeline.SynthEnd, timeline.DevQueue,
			timeline.DevPickup, timeline.PrepStart, timeline.PrepEnd, timeline.KernelStart, timeline.KernelEnd,
			timeline.FinishStart, timeline.FinishEnd, timeline.JobDone}
		complete := m != nil
		for _, k := range need {
			if _, ok := m[k]; !ok {
				complete = false
			}
		}
		if !complete {
			continue
		}
		span := func(a, b timeline.Kind) time.Duration { return max(m[b]-m[a], 0) }
		s := winningSample{Job: id, Latency: lat,
			SynthQueue: span(timeline.JobSubmit, timeline.SynthStart),
			Synth:      span(timeline.SynthStart, timeline.SynthEnd),
			DevQueue:   span(timeline.DevQueue, timeline.DevPickup),
			Prep:       span(timeline.PrepStart, timeline.PrepEnd),
			Run:        span(timeline.KernelStart, timeline.KernelEnd),
			Finish:     span(timeline.FinishStart, timeline.FinishEnd),
		}
		_, waited := m[timeline.LockWait]
		if _, held := m[timeline.LockHeld]; waited && held {
			s.LockWait = span(timeline.LockWait, timeline.LockHeld)
			s.Run = span(timeline.LockHeld, timeline.LockFree) // host time under the lock
			for _, k := range kernels {
				if k.Job != id && k.Start < m[timeline.LockHeld] && k.End > m[timeline.LockWait] {
					s.Behind++
				}
			}
		}
		s.Rest = max(lat-s.SynthQueue-s.Synth-s.DevQueue-s.Prep-s.LockWait-s.Run-s.Finish, 0)
		out = append(out, s)
	}
	slices.SortFunc(out, func(a, b winningSample) int { return strings.Compare(a.Job, b.Job) })
	return out
}

// quantile is the p-quantile (nearest rank) of d, which it sorts.
func quantile(d []time.Duration, p float64) time.Duration {
	if len(d) == 0 {
		return 0
	}
	slices.Sort(d)
	k := int(math.Ceil(p*float64(len(d)))) - 1
	return d[min(max(k, 0), len(d)-1)]
}

func printWinning(w io.Writer, run winningRun, samples []winningSample, porepParts int) {
	fmt.Fprintf(w, "wall %v: %d WinningPoSt proved and verified, %d failed; PoRep over the run: %d jobs (%d partitions) proved, %d failed\n",
		run.wall.Round(time.Millisecond), len(run.latency), run.failed, run.porepProved, run.porepProved*porepParts, run.porepFailures)
	if len(samples) == 0 {
		return
	}
	col := func(f func(winningSample) time.Duration) (p50, p99, mx time.Duration) {
		d := make([]time.Duration, len(samples))
		for i, s := range samples {
			d[i] = f(s)
		}
		return quantile(d, 0.50), quantile(d, 0.99), quantile(d, 1)
	}
	ms := func(d time.Duration) string { return fmt.Sprintf("%.0f ms", float64(d)/float64(time.Millisecond)) }
	fmt.Fprintf(w, "WinningPoSt latency over %d (each row its own quantiles; p99 of fewer than 100 is the max):\n", len(samples))
	fmt.Fprintf(w, "  %-30s %9s %9s %9s\n", "", "p50", "p99", "max")
	rows := []struct {
		name string
		f    func(winningSample) time.Duration
	}{
		{"latency", func(s winningSample) time.Duration { return s.Latency }},
		{"waiting (the three below)", winningSample.waiting},
		{"  synthesis queue + admission", func(s winningSample) time.Duration { return s.SynthQueue }},
		{"  device queue", func(s winningSample) time.Duration { return s.DevQueue }},
		{"  device lock", func(s winningSample) time.Duration { return s.LockWait }},
		{"synthesis", func(s winningSample) time.Duration { return s.Synth }},
		{"prepare", func(s winningSample) time.Duration { return s.Prep }},
		{"run", func(s winningSample) time.Duration { return s.Run }},
		{"finish", func(s winningSample) time.Duration { return s.Finish }},
		{"rest (plan, verify, hand-offs)", func(s winningSample) time.Duration { return s.Rest }},
	}
	for _, r := range rows {
		p50, p99, mx := col(r.f)
		fmt.Fprintf(w, "  %-30s %9s %9s %9s\n", r.name, ms(p50), ms(p99), ms(mx))
	}
	hist := map[int]int{}
	most := 0
	for _, s := range samples {
		hist[s.Behind]++
		most = max(most, s.Behind)
	}
	var parts []string
	for n := 0; n <= most; n++ {
		if hist[n] > 0 {
			parts = append(parts, fmt.Sprintf("%d × %d", hist[n], n))
		}
	}
	fmt.Fprintf(w, "other units' Runs overlapping a WinningPoSt's lock wait (WinningPoSts × Runs): %s\n", strings.Join(parts, ", "))
}

func writeTimelineCSV(path string, events []timeline.Event) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := timeline.WriteCSV(f, events); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// loadAverage is /proc/loadavg's first three figures ("unknown" elsewhere):
// the bench shares its machine, and the load says how much.
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], " ")
}
