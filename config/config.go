package config

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/BurntSushi/toml"
)

// Config is the daemon's configuration. The zero value is not valid; start
// from Default.
type Config struct {
	Daemon    Daemon    `toml:"daemon"`
	Memory    Memory    `toml:"memory"`
	GPUs      GPUs      `toml:"gpus"`
	Device    Device    `toml:"device"`
	Synthesis Synthesis `toml:"synthesis"`
	SRS       SRS       `toml:"srs"`
	Engine    Engine    `toml:"engine"`
	Timeline  Timeline  `toml:"timeline"`
	Logging   Logging   `toml:"logging"`
	Cluster   Cluster   `toml:"cluster"`
}

// Daemon is where the daemon listens, and whether it is a development
// daemon.
type Daemon struct {
	// Listen is the gRPC address: "unix:///path" or "host:port".
	Listen string `toml:"listen"`
	// StatusListen is the HTTP address of /metrics and /status
	// ("host:port"); empty turns it off.
	StatusListen string `toml:"status_listen"`
	// ShutdownGrace is how long running RPCs may finish after SIGTERM.
	ShutdownGrace Duration `toml:"shutdown_grace"`
	// Dev accepts synthetic job descriptors and generates their
	// development parameters; off, the daemon refuses both (what a
	// production daemon wants: it proves only Filecoin's circuits).
	Dev bool `toml:"dev"`
	// MaxConnections bounds each listener's open connections (the
	// gRPC one, unix or TCP, and the HTTP status one); 0 = 1024.
	MaxConnections int `toml:"max_connections"`
	// MaxStreams bounds the RPCs open at once on one gRPC connection;
	// 0 = 256.
	MaxStreams int `toml:"max_streams"`
	// MaxMessageSize bounds a gRPC message either way; 0 = 256 MiB. A
	// request may be at most a third of the request memory besides.
	MaxMessageSize Size `toml:"max_message_size"`
	// IdleTimeout closes a connection with no RPC this long; 0 = 5m.
	IdleTimeout Duration `toml:"idle_timeout"`
	// InsecureAllowUnauthenticated lets a TCP listener (or an HTTP one
	// off loopback) run without [daemon.auth]: anyone who reaches it
	// may prove, cancel, preload and evict.
	InsecureAllowUnauthenticated bool `toml:"insecure_allow_unauthenticated"`
	TLS                          TLS  `toml:"tls"`
	Auth                         Auth `toml:"auth"`
}

// Memory is the byte budget that synthesized assignments and resident
// parameters are charged to.
type Memory struct {
	TotalBudget     Budget   `toml:"total_budget"`      // "auto" = MemTotal − Shmem − SafetyMargin
	SafetyMargin    Size     `toml:"safety_margin"`     // used by "auto" only
	EvictionMinIdle Duration `toml:"eviction_min_idle"` // parameters idle this long may be evicted
}

// GPUs selects CUDA devices and their workers.
type GPUs struct {
	// Devices are CUDA ordinals; empty means every visible device.
	Devices []int `toml:"devices"`
	// GPUWorkersPerDevice workers share one device lock held only around
	// the kernels; 2 overlaps one worker's CPU work with the other's
	// kernels.
	GPUWorkersPerDevice int `toml:"gpu_workers_per_device"`
	// GPUThreads is the size of the host thread pool of the device
	// backend; 0 = all CPUs.
	GPUThreads int `toml:"gpu_threads"`
}

// Device chooses the proving backend.
type Device struct {
	// Kind is "cpu" (gnark-crypto on the host), "cuda" (libcuzk_cuda.so)
	// or "sim" (a timed fake for demonstrations; its proofs do not
	// verify).
	Kind string `toml:"kind"`
	// MemoryLimit bounds what the cuda device keeps on each GPU: the
	// resident parameters and the runs' scratch. 0 means the GPU's free
	// memory when the daemon opens it, less 1 GiB. Parameters that do not
	// fit stream from host memory at every partition (a 32 GiB PoRep set,
	// ≈ 38 GiB of G1 points, proves on a 16 or 24 GB card this way); a
	// limit below what one partition needs fails when its parameters load.
	// B_G2 is resident where everything fits with it, else it streams
	// too; a limit set here also has witness-only partitions' a and b
	// evaluated on the CPU into the pinned staging (the limit does not
	// count the compiled matrices).
	MemoryLimit Size `toml:"memory_limit"`
	// PinnedKeep bounds the free page-locked host buffers each cuda
	// device keeps for reuse outside the memory budget (splits, compact
	// witnesses); 0 means 2 GiB, negative none. The staging of a
	// partition (a, b and the splits, ≈ 11 GB for a 32 GiB PoRep under a
	// memory_limit) is kept apart, within the budget: after its Run the
	// partition's reservation for it passes to the device, the next
	// partition of its size takes it instead of page-locking it anew, and
	// it is freed after a minute unused or when a partition needs the room
	// with nothing in flight.
	PinnedKeep Size `toml:"pinned_keep"`
	// CriticalLane gives each cuda GPU a second library context for
	// CRITICAL partitions of at most 2^22 constraints (a WinningPoSt): they
	// run beside the bulk partition's kernels instead of waiting for the
	// device lock. "on", "off", or "auto" (or empty): on with the cuda
	// device. The lane shares the GPU's parameters; its scratch, which
	// grows with the partitions it runs, is outside memory_limit.
	CriticalLane string `toml:"critical_lane"`
	// StreamFromFile, under a memory_limit that streams, reads the streamed
	// points from the parameter file at every partition (decoded on the
	// GPU) instead of a decoded copy in host memory (44 GiB for a 32 GiB
	// PoRep), so that the host holds only its page cache of the file; each
	// GPU context adds two page-locked chunk slots (≈ 1.6 GB at 16 GiB,
	// outside the memory budget). The file must not change while loaded.
	// A set whose decoded copy could never fit memory.total_budget streams
	// from its file whatever this says.
	StreamFromFile bool `toml:"stream_from_file"`
	// StreamCache, for a set that streams from its file, keeps a copy of
	// the last this many bytes of what streams (B_G2, B_G1, A, then L and
	// H: the queries whose MSMs hide their reads least come first) in
	// page-locked host memory on each GPU, read once when the set loads,
	// so that those chunks are uploaded with no read of the file at every
	// partition (a 32 GiB PoRep under a 16 GiB limit reads ≈ 44 GB a
	// partition). It counts in memory.total_budget as the set's memory.
	// 0 (the default): none.
	StreamCache Size `toml:"stream_cache"`
	// SimPrepare, SimRun and SimFinish are the sim device's stage times.
	SimPrepare Duration `toml:"sim_prepare"`
	SimRun     Duration `toml:"sim_run"`
	SimFinish  Duration `toml:"sim_finish"`
}

// Synthesis sizes the CPU synthesis stage.
type Synthesis struct {
	// Threads bounds concurrent synthesis work; 0 = all CPUs.
	Threads int `toml:"threads"`
	// Witness chooses what synthesis computes: "on" the witness only (the
	// device evaluates a, b and c from the circuit's pre-compiled
	// constraint system, compiled on first use into <param_cache>/r1cs),
	// "off" the prover's a, b and c on the CPU, "auto" (or empty) "on"
	// with the CUDA device and "off" otherwise.
	Witness string `toml:"witness"`
}

// LaneOn resolves CriticalLane for the device's kind.
func (d Device) LaneOn() bool {
	switch d.CriticalLane {
	case "on":
		return true
	case "off":
		return false
	}
	return d.Kind == "cuda"
}

// checkLane validates CriticalLane.
func (d Device) checkLane() error {
	switch d.CriticalLane {
	case "", "auto", "off":
	case "on":
		if d.Kind != "cuda" {
			return errors.New("on needs device.kind = \"cuda\" (the lane is a second context on a GPU)")
		}
	default:
		return fmt.Errorf("%q is not auto, on or off", d.CriticalLane)
	}
	return nil
}

// WitnessOn resolves Witness for a device kind.
func (s Synthesis) WitnessOn(deviceKind string) bool {
	switch s.Witness {
	case "on":
		return true
	case "off":
		return false
	}
	return deviceKind == "cuda"
}

// SRS locates the Groth16 parameters.
type SRS struct {
	// ParamCache holds the .params/.vk files (as
	// FIL_PROOFS_PARAMETER_CACHE).
	ParamCache string `toml:"param_cache"`
}

// Engine tunes job bookkeeping.
type Engine struct {
	// ResultTTL is how long a finished job's result stays available to
	// AwaitProof.
	ResultTTL Duration `toml:"result_ttl"`
}

// Timeline sizes the event recorder.
type Timeline struct {
	// Events is the ring buffer's capacity; 0 turns recording off.
	Events int `toml:"events"`
}

// Logging sets the daemon's log output.
type Logging struct {
	Level  string `toml:"level"`  // debug, info, warn, error
	Format string `toml:"format"` // text, json
}

// Default values. The default socket works without root.
const (
	DefaultStatusListen     = ""
	DefaultShutdownGrace    = 30 * time.Second
	DefaultSafetyMargin     = 5 << 30
	DefaultEvictionMinIdle  = 5 * time.Minute
	DefaultWorkersPerDevice = 2
	DefaultDeviceKind       = "cpu"
	DefaultParamCache       = "/var/tmp/filecoin-proof-parameters"
	DefaultResultTTL        = 10 * time.Minute
	DefaultTimelineEvents   = 1 << 20
)

// DefaultSocketPath is the daemon's default unix socket:
// $XDG_RUNTIME_DIR/cuzk.sock when XDG_RUNTIME_DIR names a directory,
// otherwise cuzk.sock in the system temporary directory (/tmp/cuzk.sock).
func DefaultSocketPath() string {
	if d := os.Getenv("XDG_RUNTIME_DIR"); d != "" {
		if fi, err := os.Stat(d); err == nil && fi.IsDir() {
			return filepath.Join(d, "cuzk.sock")
		}
	}
	return filepath.Join(os.TempDir(), "cuzk.sock")
}

// DefaultListen is "unix://" + DefaultSocketPath().
func DefaultListen() string { return "unix://" + DefaultSocketPath() }

// ParamCacheDir is the Filecoin parameter cache rust-fil-proofs reads:
// $FIL_PROOFS_PARAMETER_CACHE, else DefaultParamCache.
func ParamCacheDir() string {
	if d := os.Getenv("FIL_PROOFS_PARAMETER_CACHE"); d != "" {
		return d
	}
	return DefaultParamCache
}

// Default returns the configuration used when no file is given.
func Default() Config {
	cache := ParamCacheDir()
	return Config{
		Daemon: Daemon{
			Listen:         DefaultListen(),
			StatusListen:   DefaultStatusListen,
			ShutdownGrace:  Duration(DefaultShutdownGrace),
			MaxConnections: DefaultMaxConnections,
			MaxStreams:     DefaultMaxStreams,
			MaxMessageSize: DefaultMaxMessageSize,
			IdleTimeout:    Duration(DefaultIdleTimeout),
		},
		Memory: Memory{
			TotalBudget:     Budget{Auto: true},
			SafetyMargin:    DefaultSafetyMargin,
			EvictionMinIdle: Duration(DefaultEvictionMinIdle),
		},
		GPUs:      GPUs{GPUWorkersPerDevice: DefaultWorkersPerDevice},
		Device:    Device{Kind: DefaultDeviceKind, CriticalLane: "auto", SimPrepare: Duration(300 * time.Millisecond), SimRun: Duration(500 * time.Millisecond), SimFinish: Duration(300 * time.Millisecond)},
		Synthesis: Synthesis{Witness: "auto"},
		SRS:       SRS{ParamCache: cache},
		Engine:    Engine{ResultTTL: Duration(DefaultResultTTL)},
		Timeline:  Timeline{Events: DefaultTimelineEvents},
		Logging:   Logging{Level: "info", Format: "text"},
		Cluster:   DefaultCluster(),
	}
}

// Load reads a TOML file over the defaults and validates the result. An
// empty path returns the defaults.
func Load(path string) (Config, error) {
	if path == "" {
		c := Default()
		return c, c.Validate()
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return Config{}, fmt.Errorf("reading config: %w", err)
	}
	c, err := Parse(data)
	if err != nil {
		return Config{}, fmt.Errorf("%s: %w", path, err)
	}
	return c, nil
}

// Parse reads TOML over the defaults and validates the result. A key the
// Config does not have is an error naming the key.
func Parse(data []byte) (Config, error) {
	c := Default()
	md, err := toml.NewDecoder(bytes.NewReader(data)).Decode(&c)
	if err != nil {
		return Config{}, err
	}
	if und := md.Undecoded(); len(und) > 0 {
		return Config{}, fmt.Errorf("unknown key(s): %s", unknownKeys(und))
	}
	return c, c.Validate()
}

// rustOnly explains the Rust cuzk's keys that have no equivalent here,
// by key or by table, for someone who brings a Rust cuzk.toml along.
var rustOnly = map[string]string{
	"scheduler":                    "cross-sector batching is not implemented; jobs are ordered by priority",
	"pipeline":                     "the pipeline is always on and memory.total_budget bounds it",
	"memory.pinned_budget":         "memory.total_budget covers it (deprecated in the Rust cuzk too)",
	"memory.working_memory_budget": "memory.total_budget covers it (deprecated in the Rust cuzk too)",
	"synthesis.partition_workers":  "memory.total_budget bounds synthesis (deprecated in the Rust cuzk too)",
	"srs.preload":                  "use `cuzk preload <circuit-id>` (deprecated in the Rust cuzk too)",
}

// unknownKeys lists undecoded keys, leaving out a table whose keys are
// listed, with a line for each Rust cuzk key or table among them that
// says what became of it.
func unknownKeys(und []toml.Key) string {
	all := make([]string, len(und))
	for i, k := range und {
		all[i] = k.String()
	}
	var keys, notes []string
	noted := map[string]bool{}
	for _, k := range all {
		table := false
		for _, o := range all {
			table = table || strings.HasPrefix(o, k+".")
		}
		if table {
			continue
		}
		keys = append(keys, k)
		for _, r := range []string{k, strings.SplitN(k, ".", 2)[0]} {
			if why, ok := rustOnly[r]; ok && !noted[r] {
				noted[r] = true
				notes = append(notes, fmt.Sprintf("\n  %s: a Rust cuzk setting with no equivalent here: %s; remove it", r, why))
			}
		}
	}
	return strings.Join(keys, ", ") + strings.Join(notes, "")
}

// Validate checks every value and reports all problems at once, each
// naming its key.
func (c *Config) Validate() error {
	var errs []error
	bad := func(key, format string, args ...any) {
		errs = append(errs, fmt.Errorf("%s: %s", key, fmt.Sprintf(format, args...)))
	}
	if err := checkListen(c.Daemon.Listen, true); err != nil {
		bad("daemon.listen", "%v", err)
	}
	if c.Daemon.StatusListen != "" {
		if err := checkListen(c.Daemon.StatusListen, false); err != nil {
			bad("daemon.status_listen", "%v", err)
		}
	}
	if c.Daemon.ShutdownGrace <= 0 {
		bad("daemon.shutdown_grace", "must be positive (the server would take 0 as its 30s default)")
	}
	if !c.Memory.TotalBudget.Auto && c.Memory.TotalBudget.Bytes == 0 {
		bad("memory.total_budget", "must be \"auto\" or a positive size")
	}
	seen := map[int]bool{}
	for _, d := range c.GPUs.Devices {
		if d < 0 {
			bad("gpus.devices", "negative device ordinal %d", d)
		}
		if seen[d] {
			bad("gpus.devices", "device %d listed twice", d)
		}
		seen[d] = true
	}
	if w := c.GPUs.GPUWorkersPerDevice; w < 1 || w > 16 {
		bad("gpus.gpu_workers_per_device", "%d is out of range 1-16", w)
	}
	if c.GPUs.GPUThreads < 0 {
		bad("gpus.gpu_threads", "%d is negative (0 = all CPUs)", c.GPUs.GPUThreads)
	}
	c.Device.validate(c.Memory.TotalBudget, bad)
	switch c.Synthesis.Witness {
	case "", "auto", "on", "off":
	default:
		bad("synthesis.witness", "%q is not auto, on or off", c.Synthesis.Witness)
	}
	if c.Synthesis.Threads < 0 {
		bad("synthesis.threads", "%d is negative (0 = all CPUs)", c.Synthesis.Threads)
	}
	if c.SRS.ParamCache == "" {
		bad("srs.param_cache", "empty")
	}
	if c.Engine.ResultTTL <= 0 {
		bad("engine.result_ttl", "must be positive")
	}
	if c.Timeline.Events < 0 {
		bad("timeline.events", "%d is negative (0 = off)", c.Timeline.Events)
	}
	switch strings.ToLower(c.Logging.Level) {
	case "debug", "info", "warn", "warning", "error":
	default:
		bad("logging.level", "%q is not one of debug, info, warn, error", c.Logging.Level)
	}
	switch c.Logging.Format {
	case "text", "json":
	default:
		bad("logging.format", "%q is not one of text, json", c.Logging.Format)
	}
	errs = append(errs, c.validateSecurity()...)
	c.Cluster.validate(bad)
	return errors.Join(errs...)
}

// validate reports what is wrong in the [device] table through bad;
// budget is memory.total_budget (the stream cache counts in it).
func (d *Device) validate(budget Budget, bad func(key, format string, args ...any)) {
	switch d.Kind {
	case "cpu", "cuda", "sim":
	default:
		bad("device.kind", "%q is not one of cpu, cuda, sim", d.Kind)
	}
	if d.Kind == "sim" && d.SimRun <= 0 {
		bad("device.sim_run", "must be positive for the sim device")
	}
	if err := d.checkLane(); err != nil {
		bad("device.critical_lane", "%v", err)
	}
	if d.StreamCache > 0 {
		if d.Kind != "cuda" {
			bad("device.stream_cache", "applies to the cuda device only (device.kind is %q)", d.Kind)
		}
		if !budget.Auto && uint64(d.StreamCache) >= uint64(budget.Bytes) {
			bad("device.stream_cache", "%d bytes leave nothing of memory.total_budget (%d bytes) for the partitions: the copy counts in it",
				uint64(d.StreamCache), uint64(budget.Bytes))
		}
	}
}

// checkListen accepts "host:port" and, when unixOK, "unix://path" or
// "unix:path".
func checkListen(addr string, unixOK bool) error {
	switch {
	case addr == "":
		return errors.New("empty")
	case strings.HasPrefix(addr, "unix:"):
		if !unixOK {
			return fmt.Errorf("%q: want host:port", addr)
		}
		if strings.TrimPrefix(strings.TrimPrefix(addr, "unix:"), "//") == "" {
			return fmt.Errorf("%q: empty socket path", addr)
		}
		return nil
	case strings.HasPrefix(addr, "tcp://"):
		addr = strings.TrimPrefix(addr, "tcp://")
	case strings.Contains(addr, "://"):
		return fmt.Errorf("%q: unsupported scheme (want unix:// or host:port)", addr)
	}
	_, port, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("%q: %w", addr, err)
	}
	if _, err := strconv.ParseUint(port, 10, 16); err != nil {
		return fmt.Errorf("%q: bad port %q", addr, port)
	}
	return nil
}

// MemoryBudget resolves memory.total_budget to bytes: the explicit size
// (refused with ErrBudgetOverMemory above the machine's usable memory,
// MemTotal less Shmem), or for "auto" the usable memory minus
// memory.safety_margin. Shmem is read when the daemon starts: parameter
// files in /dev/shm take the same RAM as the daemon, and a budget that
// counts on it gets the daemon killed by the kernel instead of a job
// refused.
func (c *Config) MemoryBudget() (uint64, error) {
	m, err := ReadMeminfo()
	if !c.Memory.TotalBudget.Auto {
		b := uint64(c.Memory.TotalBudget.Bytes)
		if err != nil { // no /proc/meminfo: nothing to check against
			return b, nil
		}
		return b, checkBudget(b, m)
	}
	if err != nil {
		return 0, fmt.Errorf("memory.total_budget = \"auto\": %w", err)
	}
	return AutoBudget(m.Usable(), uint64(c.Memory.SafetyMargin))
}

// AutoBudget is total − margin; it fails when the margin leaves nothing.
func AutoBudget(total, margin uint64) (uint64, error) {
	if margin >= total {
		return 0, fmt.Errorf("memory.safety_margin %s leaves nothing of %s; lower it or set memory.total_budget",
			Size(margin).Human(), Size(total).Human())
	}
	return total - margin, nil
}

// Threads resolves a thread count where 0 means all CPUs.
func Threads(n int) int {
	if n <= 0 {
		return runtime.NumCPU()
	}
	return n
}

// Meminfo is what the memory budget needs of /proc/meminfo: the
// machine's memory and, of it, what shared memory holds (Shmem: files in
// RAM disks such as /dev/shm, System V and shared anonymous memory), which
// no process can take back and the kernel does not reclaim.
type Meminfo struct {
	Total, Shmem uint64
}

// Usable is the memory a daemon's budget may count on: Total less Shmem.
func (m Meminfo) Usable() uint64 {
	if m.Shmem >= m.Total {
		return 0
	}
	return m.Total - m.Shmem
}

// ReadMeminfo reads MemTotal and Shmem from /proc/meminfo.
func ReadMeminfo() (Meminfo, error) {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return Meminfo{}, fmt.Errorf("reading MemTotal: %w", err)
	}
	defer f.Close()
	return parseMeminfo(f)
}

// parseMeminfo reads MemTotal (required) and Shmem (0 when absent).
func parseMeminfo(f io.Reader) (Meminfo, error) {
	var m Meminfo
	seen := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 2 || (fields[0] != "MemTotal:" && fields[0] != "Shmem:") {
			continue
		}
		name := strings.TrimSuffix(fields[0], ":")
		kb, err := strconv.ParseUint(fields[1], 10, 64)
		if err != nil {
			return Meminfo{}, fmt.Errorf("%s %q: %w", name, fields[1], err)
		}
		if len(fields) > 2 && fields[2] != "kB" {
			return Meminfo{}, fmt.Errorf("%s unit %q, want kB", name, fields[2])
		}
		if kb > math.MaxUint64>>10 {
			return Meminfo{}, fmt.Errorf("%s %d kB: too large", name, kb)
		}
		if name == "MemTotal" {
			m.Total, seen = kb<<10, true
		} else {
			m.Shmem = kb << 10
		}
	}
	if err := sc.Err(); err != nil {
		return Meminfo{}, err
	}
	if !seen {
		return Meminfo{}, errors.New("no MemTotal line in /proc/meminfo")
	}
	return m, nil
}

// Encode writes c as TOML in the example file's layout.
func Encode(c Config) ([]byte, error) {
	var buf bytes.Buffer
	if err := toml.NewEncoder(&buf).Encode(c); err != nil {
		return nil, fmt.Errorf("encoding config: %w", err)
	}
	return buf.Bytes(), nil
}
