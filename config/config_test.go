package config

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"
)

func TestParseSize(t *testing.T) {
	tests := []struct {
		in      string
		want    Size
		wantErr bool
	}{
		{"0", 0, false},
		{"1234", 1234, false},
		{"64GiB", 64 << 30, false},
		{"64 gib", 64 << 30, false},
		{"5GiB", 5 << 30, false},
		{"512MiB", 512 << 20, false},
		{"2KiB", 2048, false},
		{"1TiB", 1 << 40, false},
		{"64GB", 64e9, false},
		{"100MB", 100e6, false},
		{"1kb", 1000, false},
		{"10B", 10, false},
		{"4G", 4 << 30, false},
		{"1.5GiB", 3 << 29, false},
		{" 7 MiB ", 7 << 20, false},
		{"", 0, true},
		{"GiB", 0, true},
		{"-1GiB", 0, true},
		{"12 parsecs", 0, true},
		{"1.2.3GiB", 0, true},
		{"99999999999TiB", 0, true},
		{"18446744073709551616", 0, true},
	}
	for _, tt := range tests {
		got, err := ParseSize(tt.in)
		if (err != nil) != tt.wantErr || got != tt.want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d, err %v", tt.in, got, err, tt.want, tt.wantErr)
		}
	}
}

func TestSizeString(t *testing.T) {
	for _, tt := range []struct {
		in   Size
		want string
	}{{0, "0B"}, {5 << 30, "5GiB"}, {1536 << 20, "1536MiB"}, {1000, "1000B"}, {3 << 40, "3TiB"}} {
		if got := tt.in.String(); got != tt.want {
			t.Errorf("%d.String() = %q, want %q", uint64(tt.in), got, tt.want)
		}
		if back, err := ParseSize(tt.in.String()); err != nil || back != tt.in {
			t.Errorf("round trip of %d: %d, %v", uint64(tt.in), back, err)
		}
	}
	if got := Size(44<<30 + 1<<29).Human(); got != "44.50 GiB" {
		t.Errorf("Human = %q", got)
	}
}

func TestParseDuration(t *testing.T) {
	tests := []struct {
		in      string
		want    time.Duration
		wantErr bool
	}{
		{"5m", 5 * time.Minute, false},
		{"30s", 30 * time.Second, false},
		{"1h30m", 90 * time.Minute, false},
		{"250ms", 250 * time.Millisecond, false},
		{"300", 300 * time.Second, false},
		{"0", 0, false},
		{"", 0, true},
		{"-5s", 0, true},
		{"5 minutes", 0, true},
		{"99999999999999999999", 0, true},
	}
	for _, tt := range tests {
		got, err := ParseDuration(tt.in)
		if (err != nil) != tt.wantErr || got.D() != tt.want {
			t.Errorf("ParseDuration(%q) = %v, %v; want %v, err %v", tt.in, got, err, tt.want, tt.wantErr)
		}
	}
}

func TestDefaultsValid(t *testing.T) {
	c, err := Load("")
	if err != nil {
		t.Fatalf("defaults invalid: %v", err)
	}
	if !strings.HasPrefix(c.Daemon.Listen, "unix://") || !strings.HasSuffix(c.Daemon.Listen, "cuzk.sock") {
		t.Errorf("default listen %q", c.Daemon.Listen)
	}
	if !c.Memory.TotalBudget.Auto || c.Memory.SafetyMargin != 5<<30 || c.GPUs.GPUWorkersPerDevice != 2 || c.Device.Kind != "cpu" {
		t.Errorf("defaults %+v", c)
	}
}

func TestDefaultSocketPath(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("XDG_RUNTIME_DIR", dir)
	if got := DefaultSocketPath(); got != dir+"/cuzk.sock" {
		t.Errorf("with XDG_RUNTIME_DIR: %q", got)
	}
	t.Setenv("XDG_RUNTIME_DIR", "")
	if got := DefaultSocketPath(); got != os.TempDir()+"/cuzk.sock" {
		t.Errorf("without XDG_RUNTIME_DIR: %q", got)
	}
}

func TestParse(t *testing.T) {
	c, err := Parse([]byte(`
[daemon]
listen = "127.0.0.1:9820"
status_listen = "127.0.0.1:9821"
[memory]
total_budget = "200GiB"
safety_margin = 1073741824
eviction_min_idle = 90
[gpus]
devices = [0, 1]
gpu_workers_per_device = 3
[synthesis]
threads = 8
[srs]
param_cache = "/data/zk/params"
[device]
kind = "sim"
sim_run = "1s"
`))
	if err != nil {
		t.Fatal(err)
	}
	if c.Daemon.Listen != "127.0.0.1:9820" || c.Memory.TotalBudget.Bytes != 200<<30 || c.Memory.SafetyMargin != 1<<30 ||
		c.Memory.EvictionMinIdle.D() != 90*time.Second || len(c.GPUs.Devices) != 2 || c.GPUs.GPUWorkersPerDevice != 3 ||
		c.Synthesis.Threads != 8 || c.SRS.ParamCache != "/data/zk/params" || c.Device.Kind != "sim" || c.Device.SimRun.D() != time.Second {
		t.Errorf("parsed %+v", c)
	}
	// Keys not in the file keep their defaults.
	if c.Engine.ResultTTL.D() != DefaultResultTTL || c.Logging.Level != "info" {
		t.Errorf("defaults lost: %+v", c)
	}
	if m, err := ReadMeminfo(); err == nil && m.Usable() < 200<<30 {
		if _, err := c.MemoryBudget(); !errors.Is(err, ErrBudgetOverMemory) {
			t.Errorf("explicit budget of 200 GiB on a machine of %+v: %v, want ErrBudgetOverMemory", m, err)
		}
	} else if b, err := c.MemoryBudget(); err != nil || b != 200<<30 {
		t.Errorf("explicit budget: %d %v", b, err)
	}
	if b, err := (&Config{Memory: Memory{TotalBudget: Budget{Auto: true}}}).MemoryBudget(); err != nil || b == 0 {
		t.Errorf("auto budget on this machine: %d %v", b, err)
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct{ name, toml, want string }{
		{"unknown key", "[daemon]\nlisten = \"127.0.0.1:1\"\nlisen = \"x\"\n", "daemon.lisen"},
		{"unknown section", "[pipeline]\nenabled = true\n", "pipeline"},
		{"rust cuzk section", "[scheduler]\nmax_batch_size = 1\n", "scheduler.max_batch_size\n  scheduler: a Rust cuzk setting with no equivalent here: cross-sector batching"},
		{"rust cuzk deprecated key", "[srs]\npreload = [\"porep-32g\"]\n", "srs.preload\n  srs.preload: a Rust cuzk setting with no equivalent here: use `cuzk preload"},
		{"bad size", "[memory]\nsafety_margin = \"5 GiBs\"\n", "unknown unit"},
		{"bad budget", "[memory]\ntotal_budget = \"lots\"\n", "auto"},
		{"zero budget", "[memory]\ntotal_budget = 0\n", "memory.total_budget"},
		{"bad duration", "[memory]\neviction_min_idle = \"soon\"\n", "duration"},
		{"workers", "[gpus]\ngpu_workers_per_device = 0\n", "gpus.gpu_workers_per_device"},
		{"zero grace", "[daemon]\nshutdown_grace = \"0s\"\n", "daemon.shutdown_grace: must be positive"},
		{"duplicate device", "[gpus]\ndevices = [0, 0]\n", "device 0 listed twice"},
		{"device kind", "[device]\nkind = \"tpu\"\n", "device.kind"},
		{"listen scheme", "[daemon]\nlisten = \"http://x:1\"\n", "daemon.listen"},
		{"listen port", "[daemon]\nlisten = \"localhost\"\n", "daemon.listen"},
		{"status unix", "[daemon]\nstatus_listen = \"unix:///x\"\n", "daemon.status_listen"},
		{"negative threads", "[synthesis]\nthreads = -1\n", "synthesis.threads"},
		{"log level", "[logging]\nlevel = \"loud\"\n", "logging.level"},
		{"wrong type", "[gpus]\ngpu_workers_per_device = \"two\"\n", "gpu_workers_per_device"},
		{"toml syntax", "[daemon\n", "toml"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse([]byte(tt.toml))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want one containing %q", err, tt.want)
			}
		})
	}
}

func TestValidateReportsAll(t *testing.T) {
	c := Default()
	c.GPUs.GPUWorkersPerDevice = 0
	c.Device.Kind = "x"
	err := c.Validate()
	if err == nil || !strings.Contains(err.Error(), "gpu_workers_per_device") || !strings.Contains(err.Error(), "device.kind") {
		t.Fatalf("want both problems reported, got %v", err)
	}
}

func TestExampleFile(t *testing.T) {
	c, err := Load("../docs/cuzk.example.toml")
	if err != nil {
		t.Fatalf("docs/cuzk.example.toml: %v", err)
	}
	// The example documents the defaults (except the addresses, which it
	// writes out).
	d := Default()
	if c.Memory != d.Memory || c.Device != d.Device || c.Engine != d.Engine || c.Timeline != d.Timeline ||
		c.Logging != d.Logging || c.GPUs.GPUWorkersPerDevice != d.GPUs.GPUWorkersPerDevice || c.Synthesis != d.Synthesis {
		t.Errorf("example differs from the defaults:\nexample %+v\ndefault %+v", c, d)
	}
}

func TestAutoBudget(t *testing.T) {
	if b, err := AutoBudget(24<<30, 5<<30); err != nil || b != 19<<30 {
		t.Errorf("AutoBudget: %d %v", b, err)
	}
	if _, err := AutoBudget(4<<30, 5<<30); err == nil || !strings.Contains(err.Error(), "safety_margin") {
		t.Errorf("margin above total: %v", err)
	}
}

func TestParseMeminfo(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		want       Meminfo
		err        string
	}{
		{"total only", "MemFree: 1 kB\nMemTotal:       24576000 kB\n", Meminfo{Total: 24576000 << 10}, ""},
		{"shmem", "MemTotal: 131072000 kB\nMemFree: 5 kB\nShmem:  63504384 kB\nShmemHugePages: 0 kB\n",
			Meminfo{Total: 131072000 << 10, Shmem: 63504384 << 10}, ""},
		{"no total", "Shmem: 3 kB\nnothing\n", Meminfo{}, "no MemTotal"},
		{"bad number", "MemTotal: lots kB\n", Meminfo{}, "MemTotal"},
		{"bad unit", "MemTotal: 5 MB\n", Meminfo{}, "unit"},
		{"bad shmem", "MemTotal: 5 kB\nShmem: -1 kB\n", Meminfo{}, "Shmem"},
		{"overflow", "MemTotal: 18446744073709551615 kB\n", Meminfo{}, "too large"},
	} {
		got, err := parseMeminfo(strings.NewReader(tc.text))
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: %v, want an error naming %q", tc.name, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("%s: %+v %v, want %+v", tc.name, got, err, tc.want)
		}
	}
}

// TestCheckBudget: an explicit budget is refused above MemTotal less the
// shared memory (files in /dev/shm take the daemon's RAM), and the
// refusal names the shared memory where there is some.
func TestCheckBudget(t *testing.T) {
	const gib = 1 << 30
	for _, tc := range []struct {
		budget uint64
		m      Meminfo
		ok     bool
		names  string
	}{
		{100 * gib, Meminfo{Total: 125 * gib}, true, ""},
		{125 * gib, Meminfo{Total: 125 * gib}, true, ""},
		{126 * gib, Meminfo{Total: 125 * gib}, false, "MemTotal"},
		{60 * gib, Meminfo{Total: 125 * gib, Shmem: 65 * gib}, true, ""},
		{110 * gib, Meminfo{Total: 125 * gib, Shmem: 65 * gib}, false, "Shmem"},
		{1, Meminfo{Total: 4 * gib, Shmem: 5 * gib}, false, "Shmem"},
	} {
		err := checkBudget(tc.budget, tc.m)
		if tc.ok != (err == nil) || (err != nil && (!errors.Is(err, ErrBudgetOverMemory) || !strings.Contains(err.Error(), tc.names))) {
			t.Errorf("budget %d of %+v: %v (want ok %v, naming %q)", tc.budget, tc.m, err, tc.ok, tc.names)
		}
	}
	if u := (Meminfo{Total: 125 * gib, Shmem: 65 * gib}).Usable(); u != 60*gib {
		t.Errorf("usable %d, want 60 GiB", u)
	}
}

// FuzzParse: no configuration text makes Parse panic, and what it accepts
// validates.
func FuzzParse(f *testing.F) {
	if b, err := os.ReadFile("../docs/cuzk.example.toml"); err == nil {
		f.Add(b)
	}
	f.Add([]byte("[memory]\ntotal_budget = \"1.5TiB\"\n"))
	f.Add([]byte("[gpus]\ndevices = [1, 2]\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		c, err := Parse(b)
		if err == nil {
			if verr := c.Validate(); verr != nil {
				t.Fatalf("Parse accepted an invalid config: %v", verr)
			}
		}
	})
}

func TestEncodeRoundTrip(t *testing.T) {
	c := Default()
	c.GPUs.Devices = []int{0, 2}
	c.Memory.TotalBudget = Budget{Bytes: 96 << 30}
	c.Memory.EvictionMinIdle = Duration(90 * time.Second)
	b, err := Encode(c)
	if err != nil {
		t.Fatal(err)
	}
	back, err := Parse(b)
	if err != nil {
		t.Fatalf("re-parsing the encoded config: %v\n%s", err, b)
	}
	if back.Memory != c.Memory || len(back.GPUs.Devices) != 2 || back.GPUs.Devices[1] != 2 || back.Daemon != c.Daemon || back.Device != c.Device {
		t.Errorf("round trip changed the config:\n%s", b)
	}
}

func TestDevicePinnedKeep(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Size
		ok   bool
	}{
		{`pinned_keep = "20GiB"`, 20 << 30, true},
		{`pinned_keep = 0`, 0, true},
		{`pinned_keep = -1`, 0, false},
		{`pinned_keep = "plenty"`, 0, false},
	} {
		c, err := Parse([]byte("[device]\nkind = \"cuda\"\n" + tc.in + "\n"))
		if (err == nil) != tc.ok {
			t.Errorf("%s: err = %v, want ok %v", tc.in, err, tc.ok)
			continue
		}
		if tc.ok && c.Device.PinnedKeep != tc.want {
			t.Errorf("%s: %d, want %d", tc.in, c.Device.PinnedKeep, tc.want)
		}
	}
}

func TestDeviceStreamCache(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Size
		ok   bool
	}{
		{`stream_cache = "16GiB"`, 16 << 30, true},
		{`stream_cache = 0`, 0, true},
		{``, 0, true},
		{`stream_cache = -1`, 0, false},
		{`stream_cache = "most"`, 0, false},
		{"stream_cache = \"16GiB\"\n[memory]\ntotal_budget = \"72GiB\"", 16 << 30, true},
		{"stream_cache = \"16GiB\"\n[memory]\ntotal_budget = \"16GiB\"", 0, false},
	} {
		c, err := Parse([]byte("[device]\nkind = \"cuda\"\n" + tc.in + "\n"))
		if (err == nil) != tc.ok {
			t.Errorf("%q: err = %v, want ok %v", tc.in, err, tc.ok)
			continue
		}
		if tc.ok && c.Device.StreamCache != tc.want {
			t.Errorf("%q: %d, want %d", tc.in, c.Device.StreamCache, tc.want)
		}
	}
	// the copy is page-locked for a GPU: another device kind refuses it
	if _, err := Parse([]byte("[device]\nkind = \"cpu\"\nstream_cache = \"1GiB\"\n")); err == nil || !strings.Contains(err.Error(), "device.stream_cache") {
		t.Errorf("stream_cache with the cpu device: %v, want an error naming device.stream_cache", err)
	}
}

func TestDeviceMemoryLimit(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Size
		ok   bool
	}{
		{`memory_limit = "24GiB"`, 24 << 30, true},
		{`memory_limit = 16000000000`, 16e9, true},
		{`memory_limit = "16 GB"`, 16e9, true},
		{`memory_limit = 0`, 0, true},
		{`memory_limit = -1`, 0, false},
		{`memory_limit = "lots"`, 0, false},
	} {
		c, err := Parse([]byte("[device]\nkind = \"cuda\"\n" + tc.in + "\n"))
		if (err == nil) != tc.ok {
			t.Errorf("%s: err = %v, want ok %v", tc.in, err, tc.ok)
			continue
		}
		if tc.ok && c.Device.MemoryLimit != tc.want {
			t.Errorf("%s: %d, want %d", tc.in, c.Device.MemoryLimit, tc.want)
		}
	}
}

func TestDeviceCriticalLane(t *testing.T) {
	for _, tc := range []struct {
		kind, lane string
		on, ok     bool
	}{
		{"cuda", "", true, true},
		{"cuda", "auto", true, true},
		{"cuda", "off", false, true},
		{"cuda", "on", true, true},
		{"cpu", "", false, true},
		{"cpu", "auto", false, true},
		{"cpu", "on", false, false},
		{"cuda", "yes", false, false},
	} {
		c, err := Parse([]byte(fmt.Sprintf("[device]\nkind = %q\ncritical_lane = %q\n", tc.kind, tc.lane)))
		if (err == nil) != tc.ok {
			t.Errorf("%s/%q: err = %v, want ok %v", tc.kind, tc.lane, err, tc.ok)
			continue
		}
		if tc.ok && c.Device.LaneOn() != tc.on {
			t.Errorf("%s/%q: LaneOn %v, want %v", tc.kind, tc.lane, c.Device.LaneOn(), tc.on)
		}
	}
}
