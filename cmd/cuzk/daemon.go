package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/cuzk-project/cuzk/circuits"
	"github.com/cuzk-project/cuzk/config"
	"github.com/cuzk-project/cuzk/device/cpu"
	"github.com/cuzk-project/cuzk/device/cuda"
	"github.com/cuzk-project/cuzk/device/sim"
	"github.com/cuzk-project/cuzk/engine"
	"github.com/cuzk-project/cuzk/groth16"
	"github.com/cuzk-project/cuzk/memory"
	"github.com/cuzk-project/cuzk/server"
	"github.com/cuzk-project/cuzk/srs"
	"github.com/cuzk-project/cuzk/timeline"
)

type daemonOptions struct {
	configPath   string
	listen       string
	statusListen string
	logLevel     string
	printConfig  bool
	dev          bool
	sec          daemonSecurityFlags
}

const daemonLong = `Runs the proving engine behind the cuzk.v1 gRPC API that Curio's cuzk client
speaks, on a unix socket or a TCP address, with Prometheus /metrics, a /status
JSON page and the /timeline events on the optional HTTP status listener.

With no --config the built-in defaults apply (see docs/cuzk.example.toml):
the CPU device, a memory budget of MemTotal − 5 GiB, and the socket
$XDG_RUNTIME_DIR/cuzk.sock, or /tmp/cuzk.sock when XDG_RUNTIME_DIR is unset.
SIGTERM or SIGINT stops it gracefully: running RPCs get daemon.shutdown_grace
to finish while /status, /metrics and /healthz keep answering; the exit code
is 0, or 3 when RPCs were still running at the end of the grace period and
were cut off. SIGHUP re-reads the TLS certificates and the configuration's
logging.level, and keeps every job.

On TCP the daemon wants --auth-secret (cuzk auth init) and then a token on
every call (read < write < admin, see cuzk auth), ideally with --tls-cert and
--tls-key; it refuses to listen on TCP without a secret unless
--insecure-allow-unauthenticated is given. The unix socket (mode 0660) needs
no token: Curio's client, which sends none, keeps working there.

--dev (daemon.dev) accepts synthetic job descriptors and generates their
development parameters (in the user cache directory); without it the daemon
refuses synthetic jobs and never generates parameters.`

func newDaemonCmd() *cobra.Command {
	o := &daemonOptions{}
	cmd := &cobra.Command{
		Use:   "daemon [--config cuzk.toml]",
		Short: "Run the proving daemon (gRPC cuzk.v1.ProvingEngine, Prometheus /metrics, /status)",
		Long:  daemonLong,
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := o.load(cmd)
			if err != nil {
				return err
			}
			if o.printConfig {
				return writeConfig(cmd, cfg)
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), syscall.SIGINT, syscall.SIGTERM)
			defer stop()
			go func() {
				// After the first signal a second one kills at once,
				// instead of waiting out the grace period.
				<-ctx.Done()
				stop()
			}()
			// SIGHUP reloads instead of killing the daemon with its jobs.
			hup := make(chan os.Signal, 1)
			signal.Notify(hup, syscall.SIGHUP)
			defer signal.Stop(hup)
			// The Go collector works harder as the heap nears the memory
			// budget less what the budget counts outside the heap.
			var heap *memory.HeapLimit
			if total, err := cfg.MemoryBudget(); err == nil {
				heap = memory.NewHeapLimit(total)
				heap.Start(ctx)
			}
			log, level := newLeveledLogger(cfg.Logging)
			slog.SetDefault(log) // what the packages log (a job's end) follows logging.format and level
			r := &reloader{configPath: o.configPath, levelFlag: cmd.Flags().Changed("log-level"), level: level}
			return exitCode(serveDaemon(ctx, cfg, log, hup, r, heap))
		},
	}
	f := cmd.Flags()
	f.StringVarP(&o.configPath, "config", "c", "", "TOML configuration file (default: built-in defaults)")
	f.StringVarP(&o.listen, "listen", "l", "", "gRPC address, unix:///path or host:port (overrides daemon.listen)")
	f.StringVar(&o.statusListen, "status-listen", "", "HTTP host:port for /metrics, /status, /timeline (overrides daemon.status_listen)")
	f.StringVar(&o.logLevel, "log-level", "", "debug, info, warn or error (overrides logging.level)")
	f.BoolVar(&o.printConfig, "print-config", false, "print the effective configuration as TOML and exit")
	f.BoolVar(&o.dev, "dev", false, "development: accept synthetic jobs and generate their parameters (overrides daemon.dev)")
	o.sec.register(f)
	return cmd
}

// load reads the configuration and applies the flags over it.
func (o *daemonOptions) load(cmd *cobra.Command) (config.Config, error) {
	cfg, err := config.Load(o.configPath)
	if err != nil {
		return config.Config{}, err
	}
	if cmd.Flags().Changed("listen") {
		cfg.Daemon.Listen = o.listen
	}
	if cmd.Flags().Changed("status-listen") {
		cfg.Daemon.StatusListen = o.statusListen
	}
	if cmd.Flags().Changed("log-level") {
		cfg.Logging.Level = o.logLevel
	}
	if cmd.Flags().Changed("dev") {
		cfg.Daemon.Dev = o.dev
	}
	o.sec.apply(cmd, &cfg)
	if err := cfg.Validate(); err != nil {
		return config.Config{}, fmt.Errorf("configuration: %w", err)
	}
	return cfg, nil
}

func writeConfig(cmd *cobra.Command, cfg config.Config) error {
	b, err := config.Encode(cfg)
	if err != nil {
		return err
	}
	_, err = cmd.OutOrStdout().Write(b)
	return err
}

func newLogger(l config.Logging) *slog.Logger {
	log, _ := newLeveledLogger(l)
	return log
}

// newLeveledLogger is newLogger with its level settable (SIGHUP).
func newLeveledLogger(l config.Logging) (*slog.Logger, *slog.LevelVar) {
	level := new(slog.LevelVar)
	level.Set(parseLevel(l.Level))
	opts := &slog.HandlerOptions{Level: level}
	if l.Format == "json" {
		return slog.New(slog.NewJSONHandler(os.Stderr, opts)), level
	}
	return slog.New(slog.NewTextHandler(os.Stderr, opts)), level
}

// runDaemon builds the engine, serves until ctx ends, then closes the
// engine after the server has stopped taking requests.
func runDaemon(ctx context.Context, cfg config.Config, log *slog.Logger) error {
	return serveDaemon(ctx, cfg, log, nil, nil, nil)
}

// serveDaemon is runDaemon that also reloads on every signal from hup
// (nil: never), and tells heap (nil: none) what the budget counts outside
// the Go heap. In cluster mode the cluster (the shared queue) is served,
// with this daemon's engine as its worker.
func serveDaemon(ctx context.Context, cfg config.Config, log *slog.Logger, hup <-chan os.Signal, r *reloader, heap *memory.HeapLimit) error {
	raiseFDLimit(log)
	var access server.Options // refused before the engine (and its devices) starts
	if err := securityOptions(cfg, &access); err != nil {
		return err
	}
	access.Listen, access.StatusListen = cfg.Daemon.Listen, cfg.Daemon.StatusListen
	if err := access.CheckAccess(); err != nil {
		return err
	}
	if cfg.Cluster.Enabled {
		return runClusterDaemon(ctx, cfg, log, hup, r, heap)
	}
	eng, rec, requests, err := newDaemonEngine(cfg, log, heap)
	if err != nil {
		return err
	}
	defer func() {
		t0 := time.Now()
		if err := eng.Close(); err != nil {
			log.Warn("closing engine", "err", err)
		}
		log.Info("stopped", "engine_close", time.Since(t0).Round(time.Millisecond))
	}()
	return serveEngine(ctx, cfg, log, eng, rec, requests, hup, r)
}

// serveEngine serves eng (the engine, or in cluster mode the cluster)
// until ctx ends; rec, when not nil, is served at /timeline; requests
// (nil: unbounded) is charged for requests being decoded.
func serveEngine(ctx context.Context, cfg config.Config, log *slog.Logger, eng server.Engine, rec *timeline.Recorder,
	requests *memory.Budget, hup <-chan os.Signal, r *reloader) error {
	routes := map[string]http.Handler{}
	if rec != nil {
		routes["GET /timeline"] = timeline.Handler(rec)
	}
	opts := server.Options{
		Listen:           cfg.Daemon.Listen,
		StatusListen:     cfg.Daemon.StatusListen,
		WorkersPerDevice: cfg.GPUs.GPUWorkersPerDevice,
		ShutdownGrace:    cfg.Daemon.ShutdownGrace.D(),
		Log:              log,
		HTTP:             routes,
		RequestMemory:    requests,
	}
	if err := securityOptions(cfg, &opts); err != nil {
		return err
	}
	srv := server.New(eng, opts)
	if hup != nil {
		rctx, stop := context.WithCancel(ctx)
		defer stop()
		go serveReloads(rctx, hup, srv, r, log)
	}
	return srv.Serve(ctx)
}

// newDaemonEngine assembles the engine the configuration describes: the
// devices, the memory budget shared with parameter residency, the circuit
// registry, the parameters (Filecoin parameters from srs.param_cache, and
// with daemon.dev synthetic dev parameters in the user cache) and the
// timeline recorder.
//
// The budget is split: requestMemoryShare of it is charged for requests
// being decoded (returned as requests), the engine has the rest. heap (nil:
// none) is told what the budget counts outside the Go heap: the CUDA
// devices' page-locked buffers and the compiled systems' mappings.
func newDaemonEngine(cfg config.Config, log *slog.Logger, heap *memory.HeapLimit) (eng *engine.Engine, rec *timeline.Recorder, requests *memory.Budget, err error) {
	total, err := cfg.MemoryBudget()
	if err != nil {
		return nil, nil, nil, err
	}
	budget, requests := splitBudget(total)
	limit := budget.Limit()
	devices, err := daemonDevices(cfg)
	if err != nil {
		return nil, nil, nil, err
	}
	gpus := cudaOf(devices)
	var lanes []groth16.Device
	if cfg.Device.LaneOn() {
		if lanes, err = criticalLanes(devices); err != nil {
			return nil, nil, nil, err
		}
	}
	params, devDir := newDaemonParams(cfg, budget, log, gpus...)
	registry := circuits.New()
	// Non-interactive PoRep aggregates with the SnarkPack SRS in the
	// parameter cache (read on first use); with daemon.dev and no such
	// file, with a development SRS from a public seed, kept in memory.
	aggSRS := filepath.Join(cfg.SRS.ParamCache, circuits.AggregationSRSFile)
	if _, err := os.Stat(aggSRS); err != nil && cfg.Daemon.Dev {
		log.Warn("non-interactive PoRep aggregates with a development SnarkPack SRS from a public seed: forgeable, never for mainnet", "missing", aggSRS)
		registry.SetAggregationSRS(aggregationSRS("", true))
	} else {
		registry.SetAggregationSRS(circuits.NewFileSRS(aggSRS))
	}
	witness := params.systems != nil
	if witness {
		registry.SetSystems(params.systems)
	}
	if systems := params.systems; len(gpus) > 0 || systems != nil {
		held := func() uint64 {
			var n uint64
			for _, d := range gpus {
				n += d.PinnedBytes()
			}
			if systems != nil {
				n += systems.CountedBytes()
			}
			return n
		}
		heap.CountOffHeap(held)
	}
	var planner engine.Planner = registry
	if !cfg.Daemon.Dev {
		planner = productionPlanner{planner}
	}
	if cfg.Timeline.Events > 0 {
		rec = timeline.NewRecorder(cfg.Timeline.Events)
	}
	eng, err = engine.New(engine.Config{
		Devices:          devices,
		CriticalDevices:  lanes,
		WorkersPerDevice: cfg.GPUs.GPUWorkersPerDevice,
		SynthesisWorkers: config.Threads(cfg.Synthesis.Threads),
		WitnessSynthesis: witness,
		Budget:           budget,
		Planner:          planner,
		Params:           params,
		ParamsBytes:      params.sizeOf,
		ParamsAvailable:  params.available,
		Recorder:         rec,
		ResultTTL:        cfg.Engine.ResultTTL.D(),
	})
	if err != nil {
		return nil, nil, nil, err
	}
	// The parameters of CRITICAL and HIGH work queued or due are not
	// evicted for bulk work.
	params.cache.KeepWhile(eng.Urgent)
	log.Info("engine ready", "device", cfg.Device.Kind, "devices", len(devices),
		"workers_per_device", cfg.GPUs.GPUWorkersPerDevice, "memory_budget", config.Size(limit).Human(), "request_memory", config.Size(requests.Limit()).Human(),
		"param_cache", cfg.SRS.ParamCache, "witness_synthesis", witness, "critical_lanes", len(lanes), "dev", cfg.Daemon.Dev, "dev_params", devDir)
	return eng, rec, requests, nil
}

// newDaemonParams makes the parameter cache over srs.param_cache, and
// with daemon.dev the synthetic dev parameters (kept in devDir, "" when
// they live in memory only, or without daemon.dev). With CUDA devices gpus
// a parameter file is read straight into their memory where it fits them
// whole (cuda.ParamsLoader): the host keeps no decoded copy, and eviction
// frees the devices' copies; a set that does not fit whole first has idle
// sets evicted from the devices (cache.EvictLRU, one at a time) and is
// streamed only where that is not enough. With witness-only synthesis it also makes the
// compiled systems (p.systems), counted in budget and let go with their
// circuit's parameters.
func newDaemonParams(cfg config.Config, budget *memory.Budget, log *slog.Logger, gpus ...*cuda.Device) (p *daemonParams, devDir string) {
	var dev *circuits.DevParams
	if cfg.Daemon.Dev {
		var err error
		if devDir, err = circuits.DefaultParamsDir(); err != nil {
			log.Warn("synthetic dev parameters kept in memory only", "err", err)
			devDir = ""
		}
		dev = circuits.NewDevParams(devDir)
		dev.Log = log
	}
	read := srs.ReadParamsLoader(groth16.ReadOptions{})
	// files loads a Filecoin parameter file, its header checked against
	// the id's circuit (the CUDA loader checks it before any point is read).
	files := func(ctx context.Context, id, path string) (*groth16.Params, error) {
		p, err := read(ctx, id, path)
		if err == nil {
			err = circuits.CheckFilecoinParams(id, p)
		}
		return p, err
	}
	// With witness-only synthesis, the compiled systems, counted in the
	// budget while in use and let go with their circuit's parameters.
	var systems *circuits.Systems
	var evicted func(string)
	if cfg.Synthesis.WitnessOn(cfg.Device.Kind) {
		systems = circuits.NewSystems(filepath.Join(cfg.SRS.ParamCache, "r1cs"))
		systems.CountIn(budget)
		evicted = systems.Drop
	}
	var unload func(string, *groth16.Params)
	var reserve func(string, srs.Source) uint64
	var noHostCopy func(path string) bool
	var cache *srs.Cache
	if len(gpus) > 0 {
		// A set the GPUs cannot hold whole streams from its file where
		// device.stream_from_file says so, and also where its decoded host
		// copy could never fit the budget (instead of being refused).
		lo := cuda.LoaderOptions{StreamFromFile: cfg.Device.StreamFromFile, StreamFromFileAbove: int64(min(budget.Limit(), math.MaxInt64)),
			MakeRoom: func() bool { return makeDeviceRoom(cache, log) }}
		files, unload = cuda.ParamsLoaderWith(gpus, groth16.ReadOptions{}, circuits.CheckFilecoinParams, lo)
		noHostCopy = func(path string) bool { return lo.StreamsFromFileAt(path) || gpusHoldWhole(gpus, path) }
		reserve = func(id string, src srs.Source) uint64 {
			if isSynthetic(id) {
				return src.Size
			}
			n := loadReserve(src, noHostCopy, func() bool { return makeDeviceRoom(cache, log) })
			if c := uint64(cfg.Device.StreamCache); c > 0 && lo.StreamsFromFileAt(src.Path) && !gpusHoldWhole(gpus, src.Path) {
				n += c * uint64(len(gpus)) // each GPU's copy of the last streamed bytes (corrected once loaded)
			}
			if !cfg.Device.StreamFromFile && lo.StreamsFromFileAt(src.Path) {
				log.Info("parameters larger than the memory budget: where the GPUs cannot hold them whole, "+
					"they stream from their file at every partition (device.stream_from_file)",
					"circuit_id", id, "budget", budget.Limit())
			}
			return n
		}
	}
	cache = srs.New(srs.Config{
		Circuits: srs.FilecoinSources(cfg.SRS.ParamCache),
		Load: func(ctx context.Context, id, path string) (*groth16.Params, error) {
			if isSynthetic(id) {
				if dev == nil {
					return nil, errSyntheticParams(id)
				}
				return dev.Load(ctx, id)
			}
			return files(ctx, id, path)
		},
		Unload:  unload,
		Evicted: evicted,
		Reserve: reserve,
		Budget:  budget,
		MinIdle: cfg.Memory.EvictionMinIdle.D(),
	})
	budget.SetEvictor(cache.EvictIdle)
	fc := &circuits.FilecoinFiles{Dir: cfg.SRS.ParamCache, Dev: cfg.Daemon.Dev, Log: log}
	return &daemonParams{dev: dev, files: fc, cache: cache, budget: budget.Limit(), noHostCopy: noHostCopy, systems: systems}, devDir
}

// makeDeviceRoom evicts the cache's least recently used idle set so that a
// set the devices cannot hold beside it may load whole, and says so.
func makeDeviceRoom(cache *srs.Cache, log *slog.Logger) bool {
	id, freed := cache.EvictLRU()
	if id == "" {
		return false
	}
	log.Info("parameters evicted to hold another set whole on the GPU", "circuit_id", id, "bytes", freed)
	return true
}

// loadReserve is what the load of a parameter file src reserves with CUDA
// devices: one fill's buffers where noHostCopy says they load it without a
// host copy (every device holds the set whole, the file going straight to
// their memory, or streams it from the file), else the whole set (src.Size, 0:
// the file's size), since the loader then decodes it into host memory for
// the devices to stream (44 GiB at 32 GiB PoRep under a 16 or 24 GiB limit,
// counted only once decoded before). Where the devices cannot hold it whole
// beside the sets they hold, it first has makeRoom evict idle sets, one at a
// time, as the loader would before streaming: a set that fits once they are
// gone reserves one fill's buffers, not its decoded size.
func loadReserve(src srs.Source, noHostCopy func(path string) bool, makeRoom func() bool) uint64 {
	none := noHostCopy(src.Path)
	for !none && makeRoom() {
		none = noHostCopy(src.Path)
	}
	if none {
		return cuda.FillBytes
	}
	return src.Size
}

// gpusHoldWhole reports whether every device of gpus holds the parameter
// file at path whole: its header read, their plans made beside the sets
// they hold (cuda.FitWhole). False for a file that does not open.
func gpusHoldWhole(gpus []*cuda.Device, path string) bool {
	p, err := groth16.OpenParams(path, groth16.ReadOptions{})
	return err == nil && cuda.FitWhole(gpus, p)
}

// daemonDevices makes the configured proving devices.
func daemonDevices(cfg config.Config) ([]groth16.Device, error) {
	switch cfg.Device.Kind {
	case "cpu":
		n := config.Threads(cfg.GPUs.GPUThreads)
		return []groth16.Device{namedDevice{cpu.New(n), fmt.Sprintf("cpu (%d threads)", n)}}, nil
	case "sim":
		n := max(len(cfg.GPUs.Devices), 1)
		out := make([]groth16.Device, n)
		for i := range out {
			out[i] = sim.New(sim.Config{
				Name:    fmt.Sprintf("sim-%d", i),
				Prepare: cfg.Device.SimPrepare.D(),
				Run:     cfg.Device.SimRun.D(),
				Finish:  cfg.Device.SimFinish.D(),
			})
		}
		return out, nil
	case "cuda":
		return cudaDevices(cfg.GPUs.Devices, cudaOptions{memoryLimit: uint64(cfg.Device.MemoryLimit),
			pinnedKeep: int64(min(uint64(cfg.Device.PinnedKeep), math.MaxInt64)), streamCache: int64(min(uint64(cfg.Device.StreamCache), math.MaxInt64)),
			workers: cfg.GPUs.GPUWorkersPerDevice})
	}
	return nil, fmt.Errorf("device.kind %q is not one of cpu, cuda, sim", cfg.Device.Kind)
}

// cudaOptions are what cudaDevices sets on each device.
type cudaOptions struct {
	memoryLimit uint64 // device.memory_limit; 0: its free memory less a margin
	pinnedKeep  int64  // free pinned buffers kept (device.pinned_keep; 0: the default)
	streamCache int64  // device.stream_cache
	workers     int    // workers per device, each with one kept staging of each kind
}

// cudaDevices opens the listed CUDA ordinals (all visible ones when the list
// is empty) through libcuzk_cuda.so, each with o's settings.
func cudaDevices(ordinals []int, o cudaOptions) ([]groth16.Device, error) {
	infos, err := cuda.Devices()
	if err != nil {
		return nil, fmt.Errorf("cuda devices: %w (build the library with make cuda, or set CUZK_CUDA_LIB)", err)
	}
	if len(ordinals) == 0 {
		for _, in := range infos {
			ordinals = append(ordinals, in.Index)
		}
	}
	if len(ordinals) == 0 {
		return nil, errors.New("cuda devices: none is visible (no GPU, or libcuzk_cuda.so not found: build it with make cuda, or set CUZK_CUDA_LIB)")
	}
	out := make([]groth16.Device, 0, len(ordinals))
	for _, i := range ordinals {
		d, err := cuda.New(i)
		if err != nil {
			return nil, fmt.Errorf("cuda device %d: %w", i, err)
		}
		d.MemoryLimit = o.memoryLimit
		d.PinnedKeep = o.pinnedKeep
		d.StreamCache = o.streamCache
		d.SetWorkers(o.workers)
		in := d.Info()
		out = append(out, namedDevice{d, fmt.Sprintf("%s (cuda %d, %d SMs)", in.Name, i, in.SMs)})
	}
	return out, nil
}

// criticalLanes opens a CRITICAL lane (cuda.Lane) on each CUDA device of
// devices, in their order (engine.Config.CriticalDevices).
func criticalLanes(devices []groth16.Device) ([]groth16.Device, error) {
	var out []groth16.Device
	for _, d := range devices {
		n, _ := d.(namedDevice)
		c, ok := n.Device.(*cuda.Device)
		if !ok {
			return nil, fmt.Errorf("device.critical_lane: %T is not a cuda device", d)
		}
		l, err := c.NewLane()
		if err != nil {
			return nil, fmt.Errorf("device.critical_lane: %w", err)
		}
		out = append(out, namedDevice{l, n.name + ", CRITICAL lane"})
	}
	return out, nil
}

// cudaOf is the CUDA devices among devices (those cudaDevices made).
func cudaOf(devices []groth16.Device) []*cuda.Device {
	var out []*cuda.Device
	for _, d := range devices {
		if n, ok := d.(namedDevice); ok {
			d = n.Device
		}
		if c, ok := d.(*cuda.Device); ok {
			out = append(out, c)
		}
	}
	return out
}

// namedDevice gives a device a name for the status; the rest of its
// profile is the wrapped device's (groth16.Profile), passed on whole.
type namedDevice struct {
	groth16.Device
	name string
}

func (d namedDevice) Profile() groth16.Profile {
	p := d.Device.Profile()
	p.Name = d.name
	return p
}

// daemonParams puts every parameter set in one srs residency cache: the
// Filecoin circuit ids are registered from srs.param_cache when the cache
// is made, a synthetic id when it is first asked for (only with
// daemon.dev), its sets read from the user cache directory or generated by
// DevParams. So both kinds are charged to the memory budget, counted by
// GetStatus, ref-counted while jobs hold them, and evicted when idle.
type daemonParams struct {
	dev    *circuits.DevParams     // nil without daemon.dev
	files  *circuits.FilecoinFiles // Filecoin parameter files (generated with daemon.dev)
	cache  *srs.Cache
	budget uint64 // the memory budget's limit
	devIDs devIDs // synthetic ids registered (bounded)
	// noHostCopy reports whether the GPUs load the parameter file at path
	// without a decoded host copy: they hold the set whole (its header
	// read, their plans made), or stream it from the file where they
	// cannot (the loader's rule, cuda.LoaderOptions.StreamsFromFileAt).
	// The load then reserves its buffers only (loadReserve, sizeOf); nil
	// without GPUs.
	noHostCopy func(path string) bool
	// systems, with witness-only synthesis, are the registry's compiled
	// systems: Preload prepares the id's too
	systems *circuits.Systems
}

var (
	_ engine.ParamsSource = (*daemonParams)(nil)
	_ engine.ParamsCache  = (*daemonParams)(nil)
)

func isSynthetic(id string) bool {
	_, err := circuits.ParseSyntheticID(id)
	return err == nil
}

// register adds a synthetic id to the cache (once), with the bound of its
// decoded size that the cache reserves before loading.
func (d *daemonParams) register(id string) error {
	if !isSynthetic(id) {
		return nil
	}
	if d.dev == nil {
		return errSyntheticParams(id)
	}
	size, err := circuits.DevParamsBytes(id)
	if err != nil {
		return err
	}
	if err := d.devIDs.admit(id); err != nil {
		return err
	}
	path := d.dev.Path(id)
	if path == "" {
		path = "(generated, not cached on disk)"
	}
	if err := d.cache.Register(id, srs.Source{Path: path, Size: size}); err != nil && !errors.Is(err, srs.ErrDuplicate) {
		return err
	}
	return nil
}

func (d *daemonParams) Acquire(ctx context.Context, id string) (*groth16.Params, func(), error) {
	if err := d.register(id); err != nil {
		return nil, nil, err
	}
	if err := d.files.Ensure(ctx, id); err != nil {
		return nil, nil, err
	}
	return d.cache.Acquire(ctx, id)
}

func (d *daemonParams) Preload(ctx context.Context, id string) (bool, time.Duration, error) {
	if cfg, err := circuits.ParseSyntheticID(id); err == nil {
		if d.dev == nil {
			return false, 0, errSyntheticParams(id)
		}
		// No job of a circuit whose partition outgrows the budget is ever
		// accepted, so its parameters are not worth generating.
		if need, _ := circuits.SyntheticFootprint(cfg); need > d.budget {
			return false, 0, fmt.Errorf("%w: %s: a partition needs %s, more than the whole memory budget (%s)",
				engine.ErrInvalidRequest, id, config.Size(need).Human(), config.Size(d.budget).Human())
		}
		if err := d.register(id); err != nil {
			return false, 0, err
		}
	}
	if err := d.checkFile(id); err != nil {
		return false, 0, err
	}
	if err := d.files.Ensure(ctx, id); err != nil {
		return false, 0, err
	}
	loaded, took, err := d.cache.Preload(ctx, id)
	if err == nil && d.systems != nil {
		// The compiled system too, so that the first job does not build
		// it (a minute at 32 GiB).
		if err = d.systems.Prepare(ctx, id); err != nil {
			err = fmt.Errorf("compiled constraint system of %s: %w", id, err)
		}
	}
	return loaded, took, err
}

// Evict makes a parameter set cold; a synthetic one is read again from the
// user cache directory when next used.
func (d *daemonParams) Evict(id string) (bool, uint64, error) {
	was, freed, err := d.cache.Evict(id)
	if errors.Is(err, srs.ErrUnknownCircuit) && isSynthetic(id) {
		return false, 0, nil // never used: nothing resident
	}
	return was, freed, err
}

func (d *daemonParams) Status() []engine.SRSStatus {
	var out []engine.SRSStatus
	for _, e := range d.cache.Status() {
		if e.Tier == srs.Cold && e.RefCount == 0 && !e.Loading {
			continue // registered but not resident: not worth a line
		}
		out = append(out, engine.SRSStatus{CircuitID: e.CircuitID, Tier: engine.SRSTier(e.Tier), SizeBytes: e.SizeBytes,
			RefCount: e.RefCount, OnDevice: e.OnDevice, FromFile: e.FromFile, HostCopy: e.HostCopy, Kept: e.Kept})
	}
	return out
}
