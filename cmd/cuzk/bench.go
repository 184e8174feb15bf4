package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	pb "google.golang.org/protobuf/proto"

	"github.com/cuzk-project/cuzk/circuits"
	"github.com/cuzk-project/cuzk/circuits/synthetic"
	"github.com/cuzk-project/cuzk/client"
	"github.com/cuzk-project/cuzk/config"
	"github.com/cuzk-project/cuzk/device/cpu"
	"github.com/cuzk-project/cuzk/engine"
	"github.com/cuzk-project/cuzk/groth16"
	"github.com/cuzk-project/cuzk/memory"
	cuzkv1 "github.com/cuzk-project/cuzk/proto/cuzk/v1"
	"github.com/cuzk-project/cuzk/timeline"
)

// benchOptions are the flags of `cuzk bench` and its subcommands.
type benchOptions struct {
	addr        string // "" runs an in-process engine
	timelineURL string // remote: the daemon's /timeline, for utilization
	request     string // remote: a request file proved instead of synthetic jobs
	preloadID   string // remote, with request: the circuit id to preload
	conn        connFlags
	count       int
	concurrency int
	duration    time.Duration // stress
	stress      bool

	constraints int
	partitions  int
	seed        uint64
	kind        string

	paramsDir    string
	device       string // in-process: cpu or cuda
	workers      int
	synthWorkers int
	witness      string // in-process: auto, on, off (config synthesis.witness)
	budgetGiB    float64
	memoryLimit  sizeFlag // in-process cuda: device.memory_limit
	timelineCSV  string
}

// sizeFlag is a config.Size as a command-line flag ("16GiB", bytes).
type sizeFlag config.Size

func (s *sizeFlag) Set(v string) error {
	n, err := config.ParseSize(v)
	if err != nil {
		return err
	}
	*s = sizeFlag(n)
	return nil
}
func (s *sizeFlag) String() string { return config.Size(*s).String() }
func (s *sizeFlag) Type() string   { return "size" }

const benchLong = `bench proves synthetic jobs (N partitions of the circuits/synthetic family, sent as a
synthetic job descriptor through the same path a PoRep C2 request takes) and prints wall time,
latency p50/p95, proofs per minute and the device's kernel utilization from the timeline.

Without --addr it runs an in-process engine on the embedded default: the CPU device, 10
partitions of 2^14 rows per job, development parameters generated once and cached in the user
cache directory (NOT for production). With --addr it drives a daemon over gRPC (one started
with --dev: a daemon refuses synthetic jobs otherwise); give --timeline-url (the daemon's status
listener) to report its utilization.

  cuzk bench                                   4 jobs in process
  cuzk bench batch --count 8 -j 4 --addr unix:///run/cuzk.sock
  cuzk bench stress --duration 5m -j 4 --addr 127.0.0.1:9820`

func newBenchCmd() *cobra.Command {
	o := &benchOptions{}
	var count int
	bench := &cobra.Command{
		Use:   "bench [single|batch|stress|winning]",
		Short: "Prove synthetic multi-partition jobs and report throughput, latency and device utilization",
		Long:  benchLong,
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			o.count = count
			return runBench(cmd, o)
		},
	}
	o.register(bench)
	bench.Flags().IntVar(&count, "count", 4, "jobs to prove")
	bench.AddCommand(newBenchSingleCmd(o), newBenchBatchCmd(o), newBenchStressCmd(o), newBenchWinningCmd(o), newBenchDayCmd(o))
	return bench
}

// register binds the flags bench and its subcommands share.
func (o *benchOptions) register(bench *cobra.Command) {
	pf := bench.PersistentFlags()
	pf.StringVar(&o.addr, "addr", "", "daemon address (unix:///path or host:port); empty runs an in-process engine")
	o.conn.registerOn(pf)
	pf.StringVar(&o.timelineURL, "timeline-url", "", "with --addr: the daemon's timeline endpoint (http://host:port/timeline), for utilization")
	pf.StringVar(&o.request, "request", "", "with --addr: prove this request file (cuzk gen-vanilla … --out) --count times, each under its own request id, instead of synthetic jobs")
	pf.StringVar(&o.preloadID, "preload", "", "with --addr --request: the circuit id to preload first (e.g. porep-32g)")
	pf.IntVar(&o.constraints, "constraints", 1<<14, "rows per partition (synthetic circuit)")
	pf.IntVar(&o.partitions, "partitions", 10, "partitions per job")
	pf.Uint64Var(&o.seed, "seed", 1, "synthetic circuit seed")
	pf.StringVar(&o.kind, "kind", "porep-c2", "proof kind the jobs are submitted as: porep-c2, snap-update, window-post or winning-post (or an older alias: porep, snap, wpost, winning, …)")
	pf.IntVarP(&o.concurrency, "jobs", "j", 2, "jobs in flight at once")
	pf.StringVar(&o.paramsDir, "params-dir", "", "in-process: dev parameter cache (default: user cache dir/cuzk/params)")
	pf.StringVar(&o.device, "device", "cpu", "in-process: cpu, or cuda (every visible GPU, through libcuzk_cuda.so)")
	pf.IntVar(&o.workers, "gpu-workers", 2, "in-process: device workers sharing the device lock")
	pf.IntVar(&o.synthWorkers, "synthesis-workers", 0, "in-process: concurrent syntheses (0: number of CPUs)")
	pf.StringVar(&o.witness, "witness", "auto", "in-process: witness-only synthesis against the pre-compiled constraint system: auto (on with cuda), on, off")
	pf.Float64Var(&o.budgetGiB, "budget", 8, "in-process: memory budget in GiB")
	pf.Var(&o.memoryLimit, "memory-limit", "in-process, cuda: device memory limit per GPU (\"16GiB\"; 0: free memory less 1 GiB), as device.memory_limit")
	pf.StringVar(&o.timelineCSV, "timeline", "", "in-process: write the timeline as CSV to this file")
}

func newBenchSingleCmd(o *benchOptions) *cobra.Command {
	return &cobra.Command{
		Use: "single", Short: "Prove one job", Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			o.count, o.concurrency = 1, 1
			return runBench(cmd, o)
		},
	}
}

func newBenchBatchCmd(o *benchOptions) *cobra.Command {
	var count int
	batch := &cobra.Command{
		Use: "batch", Short: "Prove --count jobs, -j at a time", Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			o.count = count
			return runBench(cmd, o)
		},
	}
	batch.Flags().IntVar(&count, "count", 8, "jobs to prove")
	return batch
}

func newBenchStressCmd(o *benchOptions) *cobra.Command {
	stress := &cobra.Command{
		Use: "stress", Short: "Keep -j jobs in flight for --duration", Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			o.stress = true
			return runBench(cmd, o)
		},
	}
	stress.Flags().DurationVar(&o.duration, "duration", time.Minute, "how long to keep submitting")
	return stress
}

// benchTarget is where the jobs are proved: an in-process engine or a
// daemon.
type benchTarget interface {
	describe() string
	// preload makes the parameters resident before timing starts.
	preload(ctx context.Context, w io.Writer) error
	// prove proves job i and returns its job id.
	prove(ctx context.Context, i int) (string, error)
	// utilization reports the device figures for the given jobs.
	utilization(w io.Writer, jobs map[string]bool) error
	close() error
}

func runBench(cmd *cobra.Command, o *benchOptions) error {
	if err := o.validate(); err != nil {
		return err
	}
	out := cmd.OutOrStdout()
	ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	var t benchTarget
	var err error
	if o.addr == "" {
		t, err = newLocalTarget(o)
	} else {
		t, err = newRemoteTarget(o)
	}
	if err != nil {
		return err
	}
	defer t.close()
	fmt.Fprintln(out, t.describe())
	if err := t.preload(ctx, out); err != nil {
		return err
	}

	res := runJobs(ctx, o, t, progressWriter(cmd.ErrOrStderr()))
	if ctx.Err() != nil {
		fmt.Fprintln(out, "interrupted")
	}
	jobs := map[string]bool{}
	for _, r := range res.jobs {
		if r.id != "" {
			jobs[r.id] = true
		}
	}
	res.print(out, o)
	if err := t.utilization(out, jobs); err != nil {
		fmt.Fprintln(out, "utilization:", err)
	}
	if res.failed > 0 {
		return fmt.Errorf("%d of %d jobs failed (first: %v)", res.failed, len(res.jobs), res.firstErr)
	}
	if len(res.jobs) == 0 {
		return errors.New("no job was proved")
	}
	return nil
}

func (o *benchOptions) validate() error {
	switch {
	case (o.request != "" || o.preloadID != "") && o.addr == "":
		return errors.New("--request and --preload need --addr (a daemon)")
	case o.partitions < 1 || o.partitions > circuits.MaxPartitions:
		return fmt.Errorf("--partitions %d: want 1..%d", o.partitions, circuits.MaxPartitions)
	case o.concurrency < 1:
		return fmt.Errorf("-j %d: want at least 1", o.concurrency)
	case !o.stress && o.count < 1:
		return fmt.Errorf("--count %d: want at least 1", o.count)
	case o.stress && o.duration <= 0:
		return fmt.Errorf("--duration %v: want a positive duration", o.duration)
	case !(o.budgetGiB > 0) || o.budgetGiB*(1<<30) >= math.MaxUint64:
		return fmt.Errorf("--budget %v: want a positive size in GiB, below 2^34", o.budgetGiB)
	case o.workers < 1 || o.workers > 16:
		return fmt.Errorf("--gpu-workers %d: want 1..16", o.workers)
	case o.witness != "" && o.witness != "auto" && o.witness != "on" && o.witness != "off":
		return fmt.Errorf("--witness %q: want auto, on or off", o.witness)
	case o.synthWorkers < 0 || o.synthWorkers > 4096:
		return fmt.Errorf("--synthesis-workers %d: want 0 (number of CPUs) .. 4096", o.synthWorkers)
	case o.device != "cpu" && o.device != "cuda":
		return fmt.Errorf("--device %q: want cpu or cuda", o.device)
	case o.constraints > circuits.MaxSyntheticConstraints:
		// No synthetic request may ask for more: refuse before any setup.
		return fmt.Errorf("--constraints %d: at most %d", o.constraints, circuits.MaxSyntheticConstraints)
	}
	if _, err := benchKind(o.kind); err != nil {
		return err
	}
	return o.circuit().Validate()
}

func (o *benchOptions) circuit() synthetic.Config {
	c := synthetic.Default(o.constraints)
	c.Seed = o.seed
	return c
}

// benchKind is the kind --kind spells, any way engine.ParseKind reads.
func benchKind(s string) (engine.ProofKind, error) {
	k, err := engine.LookupKind(s)
	if err != nil {
		return 0, fmt.Errorf("--kind: %w", err)
	}
	return k, nil
}

func (o *benchOptions) shape() string {
	rows := fmt.Sprint(o.constraints)
	if l := math.Log2(float64(o.constraints)); l == math.Trunc(l) {
		rows = fmt.Sprintf("2^%d", int(l))
	}
	return fmt.Sprintf("%d partitions × %s rows", o.partitions, rows)
}

// localTarget is an in-process engine on the CPU device (or the GPUs).
type localTarget struct {
	o       *benchOptions
	e       *engine.Engine
	rec     *timeline.Recorder
	params  *circuits.DevParams
	kind    engine.ProofKind
	vanilla []byte
	id      string
	stamp   string

	deviceName string // "" for the CPU device
}

func newLocalTarget(o *benchOptions) (*localTarget, error) {
	dir := o.paramsDir
	if dir == "" {
		var err error
		if dir, err = circuits.DefaultParamsDir(); err != nil {
			return nil, fmt.Errorf("%w (give --params-dir)", err)
		}
	}
	kind, _ := benchKind(o.kind)
	t := &localTarget{
		o: o, rec: timeline.NewRecorder(0), params: circuits.NewDevParams(dir), kind: kind,
		vanilla: circuits.SyntheticDescriptor(o.circuit(), o.partitions),
		id:      circuits.SyntheticID(o.circuit()),
		stamp:   fmt.Sprint(time.Now().UnixNano()),
	}
	devices := []groth16.Device{cpu.New(0)}
	if o.device == "cuda" {
		var err error
		if devices, err = cudaDevices(nil, cudaOptions{memoryLimit: uint64(o.memoryLimit), workers: o.workers}); err != nil {
			return nil, err
		}
		t.deviceName = devices[0].Profile().Name
	}
	registry := circuits.New()
	budget := memory.New(uint64(o.budgetGiB * (1 << 30)))
	witness := config.Synthesis{Witness: o.witness}.WitnessOn(o.device)
	if witness {
		systems := circuits.NewSystems(filepath.Join(dir, "r1cs"))
		systems.CountIn(budget)
		registry.SetSystems(systems)
	}
	e, err := engine.New(engine.Config{
		Devices:          devices,
		WorkersPerDevice: o.workers,
		SynthesisWorkers: o.synthWorkers,
		WitnessSynthesis: witness,
		Budget:           budget,
		Planner:          registry,
		Params:           t.params,
		Recorder:         t.rec,
	})
	if err != nil {
		return nil, err
	}
	t.e = e
	return t, nil
}

func (t *localTarget) describe() string {
	dev := fmt.Sprintf("CPU device (%d cores)", runtime.NumCPU())
	if t.deviceName != "" {
		dev = t.deviceName
	}
	return fmt.Sprintf("cuzk bench: in-process engine, %s, %d device workers; jobs of %s (%s)",
		dev, t.o.workers, t.o.shape(), t.id)
}

func (t *localTarget) preload(ctx context.Context, w io.Writer) error {
	path := filepath.Join(t.params.Dir, t.id+".params")
	_, statErr := os.Stat(path)
	t0 := time.Now()
	if _, _, err := t.e.Preload(ctx, t.id); err != nil {
		return fmt.Errorf("parameters: %w", err)
	}
	how := "loaded from " + path
	if statErr != nil {
		how = "generated (development setup, not for production) and cached in " + path
	}
	fmt.Fprintf(w, "params: %s in %v\n", how, time.Since(t0).Round(time.Millisecond))
	return nil
}

func (t *localTarget) prove(ctx context.Context, i int) (string, error) {
	id := fmt.Sprintf("bench-%s-%d", t.stamp, i)
	r, err := t.e.Prove(ctx, engine.Request{RequestID: id, Kind: t.kind, VanillaProof: t.vanilla})
	if err != nil {
		return id, err
	}
	if r.Status != engine.StatusCompleted {
		return id, fmt.Errorf("job %s: %v: %s", id, r.Status, r.Error)
	}
	if len(r.Proof) != t.o.partitions*groth16.ProofSize {
		return id, fmt.Errorf("job %s: %d proof bytes, want %d", id, len(r.Proof), t.o.partitions*groth16.ProofSize)
	}
	return id, nil
}

func (t *localTarget) utilization(w io.Writer, jobs map[string]bool) error {
	events := t.rec.Events()
	if t.o.timelineCSV != "" {
		f, err := os.Create(t.o.timelineCSV)
		if err != nil {
			return err
		}
		if err := timeline.WriteCSV(f, events); err != nil {
			f.Close()
			return err
		}
		if err := f.Close(); err != nil {
			return err
		}
		fmt.Fprintf(w, "timeline: %d events in %s (cuzk timeline --from %s)\n", len(events), t.o.timelineCSV, t.o.timelineCSV)
	}
	return writeUtilization(w, events, jobs)
}

func (t *localTarget) close() error { return t.e.Close() }

// remoteTarget drives a daemon.
type remoteTarget struct {
	o       *benchOptions
	c       *client.Client
	kind    cuzkv1.ProofKind
	vanilla []byte
	request *cuzkv1.SubmitProofRequest // --request: proved instead of the synthetic descriptor
	id      string
	stamp   string

	deviceName string // "" for the CPU device
}

func newRemoteTarget(o *benchOptions) (*remoteTarget, error) {
	opts, err := o.conn.dialOptions()
	if err != nil {
		return nil, err
	}
	c, err := client.Dial(o.addr, opts...)
	if err != nil {
		return nil, err
	}
	kind, _ := benchKind(o.kind)
	t := &remoteTarget{
		o: o, c: c, kind: cuzkv1.ProofKind(kind),
		vanilla: circuits.SyntheticDescriptor(o.circuit(), o.partitions),
		id:      circuits.SyntheticID(o.circuit()),
		stamp:   fmt.Sprint(time.Now().UnixNano()),
	}
	if o.request != "" {
		r, err := readRequest(o.request)
		if err != nil {
			c.Close()
			return nil, err
		}
		t.request, t.id = r, o.preloadID
	}
	return t, nil
}

func (t *remoteTarget) describe() string {
	if t.request != nil {
		return fmt.Sprintf("cuzk bench: daemon at %s; jobs of the request %s (%v)", t.o.addr, t.o.request, t.request.ProofKind)
	}
	return fmt.Sprintf("cuzk bench: daemon at %s; jobs of %s (%s)", t.o.addr, t.o.shape(), t.id)
}

func (t *remoteTarget) preload(ctx context.Context, w io.Writer) error {
	if t.id == "" {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Minute)
	defer cancel()
	already, took, err := t.c.Preload(ctx, t.id)
	if err != nil {
		// Not fatal: the first job loads them (its latency shows it).
		fmt.Fprintf(w, "params: preload failed (%v); the first job will load them\n", err)
		return nil
	}
	if already {
		fmt.Fprintln(w, "params: already resident on the daemon")
	} else {
		fmt.Fprintf(w, "params: loaded by the daemon in %v\n", took.Round(time.Millisecond))
	}
	return nil
}

func (t *remoteTarget) prove(ctx context.Context, i int) (string, error) {
	id := fmt.Sprintf("bench-%s-%d", t.stamp, i)
	if t.request != nil {
		req := pb.Clone(t.request).(*cuzkv1.SubmitProofRequest)
		req.RequestId = id
		r, err := t.c.Prove(ctx, req)
		if err != nil {
			return id, err
		}
		if len(r.Proof) == 0 { // partition proofs, or an NI PoRep's aggregate: the daemon verified it
			return id, fmt.Errorf("job %s: no proof", id)
		}
		return id, nil
	}
	r, err := t.c.Prove(ctx, &cuzkv1.SubmitProofRequest{RequestId: id, ProofKind: t.kind, VanillaProof: t.vanilla})
	if err != nil {
		return id, err
	}
	if len(r.Proof) != t.o.partitions*groth16.ProofSize {
		return id, fmt.Errorf("job %s: %d proof bytes, want %d", id, len(r.Proof), t.o.partitions*groth16.ProofSize)
	}
	return id, nil
}

func (t *remoteTarget) utilization(w io.Writer, jobs map[string]bool) error {
	if t.o.timelineURL == "" {
		fmt.Fprintln(w, "device utilization: give --timeline-url (the daemon's status listener) or run `cuzk timeline --url …`")
		return nil
	}
	u := t.o.timelineURL
	if !strings.Contains(u, "://") {
		u = "http://" + u
	}
	if !strings.Contains(strings.TrimPrefix(u[strings.Index(u, "://")+3:], "/"), "/") {
		u = strings.TrimSuffix(u, "/") + "/timeline"
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: %s", u, resp.Status)
	}
	events, err := timeline.ReadCSV(resp.Body)
	if err != nil {
		return fmt.Errorf("GET %s: %w", u, err)
	}
	return writeUtilization(w, events, jobs)
}

func (t *remoteTarget) close() error { return t.c.Close() }

// writeUtilization analyses the events of the bench's own jobs.
func writeUtilization(w io.Writer, events []timeline.Event, jobs map[string]bool) error {
	var mine []timeline.Event
	for _, e := range events {
		if jobs[e.Job] {
			mine = append(mine, e)
		}
	}
	rep := timeline.Analyze(mine)
	if len(rep.Devices) == 0 {
		return errors.New("no device events for these jobs in the timeline")
	}
	for _, d := range rep.Devices {
		fmt.Fprintf(w, "device %d: kernel utilization %.1f %%, lock %.1f %% over %v; %d kernels, gaps <50ms %d, 50–500ms %d, >500ms %d (p50 %v, max %v)\n",
			d.Device, 100*d.KernelUtil, 100*d.LockUtil, d.Wall.Round(time.Millisecond), d.Kernels,
			d.Gaps.Short, d.Gaps.Medium, d.Gaps.Long, d.GapP50.Round(time.Microsecond), d.GapMax.Round(time.Microsecond))
	}
	for _, s := range rep.Stages {
		if s.Stage == timeline.StageSynth || s.Stage == timeline.StagePrep || s.Stage == timeline.StageKernel || s.Stage == timeline.StageFinish {
			fmt.Fprintf(w, "  %-8s %4d × mean %v (p50 %v, max %v)\n", s.Stage, s.Count,
				s.Mean.Round(time.Millisecond), s.P50.Round(time.Millisecond), s.Max.Round(time.Millisecond))
		}
	}
	return nil
}

type jobOutcome struct {
	id      string
	latency time.Duration
	err     error
}

type benchResults struct {
	wall     time.Duration
	jobs     []jobOutcome
	failed   int
	firstErr error
}

// runJobs proves jobs with at most o.concurrency in flight: o.count of
// them, or as many as start within o.duration for stress.
func runJobs(ctx context.Context, o *benchOptions, t benchTarget, progress func(done, failed, total int, el time.Duration)) benchResults {
	start := time.Now()
	var end time.Time
	if o.stress {
		end = start.Add(o.duration)
	}
	sem := make(chan struct{}, o.concurrency)
	var mu sync.Mutex
	var res benchResults
	var wg sync.WaitGroup
	total := o.count // stress: jobs started so far; read by progress under mu
	for i := 0; o.stress || i < o.count; i++ {
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
		}
		if ctx.Err() != nil || (o.stress && !time.Now().Before(end)) {
			break
		}
		if o.stress {
			mu.Lock()
			total = i + 1
			mu.Unlock()
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			t0 := time.Now()
			id, err := t.prove(ctx, i)
			mu.Lock()
			defer mu.Unlock()
			res.jobs = append(res.jobs, jobOutcome{id: id, latency: time.Since(t0), err: err})
			if err != nil {
				res.failed++
				if res.firstErr == nil {
					res.firstErr = err
				}
			}
			if progress != nil {
				progress(len(res.jobs), res.failed, total, time.Since(start))
			}
		}()
	}
	wg.Wait()
	res.wall = time.Since(start)
	if progress != nil {
		progress(-1, 0, 0, 0)
	}
	return res
}

func (r benchResults) print(w io.Writer, o *benchOptions) {
	var lat []time.Duration
	for _, j := range r.jobs {
		if j.err == nil {
			lat = append(lat, j.latency)
		}
	}
	ok := len(lat)
	fmt.Fprintf(w, "wall %v: %d jobs proved and verified, %d failed\n", r.wall.Round(time.Millisecond), ok, r.failed)
	if ok == 0 {
		return
	}
	slices.Sort(lat)
	q := func(p float64) time.Duration {
		k := int(math.Ceil(p*float64(len(lat)))) - 1
		return lat[max(k, 0)].Round(time.Millisecond)
	}
	perMin := float64(ok) / r.wall.Minutes()
	fmt.Fprintf(w, "latency p50 %v, p95 %v, max %v\n", q(0.50), q(0.95), lat[len(lat)-1].Round(time.Millisecond))
	fmt.Fprintf(w, "throughput %.2f proofs/min (%.1f partitions/min, %.0f constraints/s)\n",
		perMin, perMin*float64(o.partitions), perMin*float64(o.partitions*o.constraints)/60)
}

// progressWriter returns a progress callback that redraws one line when w
// is a terminal, and nil otherwise.
func progressWriter(w io.Writer) func(done, failed, total int, el time.Duration) {
	f := terminal(w)
	if f == nil {
		return nil
	}
	return func(done, failed, total int, el time.Duration) {
		if done < 0 {
			fmt.Fprint(f, "\r\033[K")
			return
		}
		fmt.Fprintf(f, "\r\033[K[%d/%d] %d failed, %v elapsed", done, total, failed, el.Round(time.Second))
	}
}
