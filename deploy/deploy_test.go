package deploy

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/cuzk-project/cuzk/config"
)

// unit reads a systemd unit file into its settings, key → values in order
// (comments and section headers dropped).
func unit(t *testing.T, path string) map[string][]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string][]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		l := strings.TrimSpace(sc.Text())
		if l == "" || l[0] == '#' || l[0] == ';' || l[0] == '[' {
			continue
		}
		k, v, ok := strings.Cut(l, "=")
		if !ok {
			t.Fatalf("%s: not a setting: %q", path, l)
		}
		out[k] = append(out[k], v)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func one(t *testing.T, u map[string][]string, key string) string {
	t.Helper()
	if len(u[key]) != 1 {
		t.Fatalf("cuzk.service: %s set %d times, want once", key, len(u[key]))
	}
	return u[key][0]
}

const (
	configPath = "/etc/cuzk/cuzk.toml"
	daemonCmd  = "daemon --config " + configPath
)

func TestConfigLoads(t *testing.T) {
	c, err := config.Load("cuzk.toml")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ what, got, want string }{
		{"daemon.listen", c.Daemon.Listen, "unix:///run/cuzk/cuzk.sock"},
		{"device.kind", c.Device.Kind, "cuda"},
		{"srs.param_cache", c.SRS.ParamCache, "/var/tmp/filecoin-proof-parameters"},
	} {
		if tc.got != tc.want {
			t.Errorf("%s = %q, want %q (the unit, the image and deploy/README.md assume it)", tc.what, tc.got, tc.want)
		}
	}
}

func TestUnitMatchesConfig(t *testing.T) {
	c, err := config.Load("cuzk.toml")
	if err != nil {
		t.Fatal(err)
	}
	u := unit(t, "cuzk.service")
	if got, want := one(t, u, "ExecStart"), "/usr/local/bin/cuzk "+daemonCmd; got != want {
		t.Errorf("ExecStart=%s, want %s", got, want)
	}
	for key, want := range map[string]string{
		"Restart": "on-failure", "LimitMEMLOCK": "infinity", "User": "cuzk", "Group": "cuzk", "NoNewPrivileges": "yes",
	} {
		if got := one(t, u, key); got != want {
			t.Errorf("%s=%s, want %s", key, got, want)
		}
	}
	if one(t, u, "LimitNOFILE") == "" {
		t.Error("LimitNOFILE empty")
	}
	// The socket is in the runtime directory the unit makes.
	sock := strings.TrimPrefix(c.Daemon.Listen, "unix://")
	if dir := "/run/" + one(t, u, "RuntimeDirectory"); filepath.Dir(sock) != dir {
		t.Errorf("socket %s is not in RuntimeDirectory %s", sock, dir)
	}
	// The compiled systems are written under the parameter cache.
	if rw := strings.TrimPrefix(one(t, u, "ReadWritePaths"), "-"); rw != filepath.Join(c.SRS.ParamCache, "r1cs") {
		t.Errorf("ReadWritePaths=%s, want %s/r1cs", rw, c.SRS.ParamCache)
	}
	stop, err := time.ParseDuration(one(t, u, "TimeoutStopSec"))
	if err != nil {
		t.Fatal(err)
	}
	if grace := time.Duration(c.Daemon.ShutdownGrace); stop <= grace {
		t.Errorf("TimeoutStopSec %v ≤ daemon.shutdown_grace %v: systemd would kill running RPCs", stop, grace)
	}
	// Each of these closes /dev/nvidia* or hides the parameter cache.
	for _, key := range []string{"PrivateDevices", "DevicePolicy", "DeviceAllow", "ProtectClock", "PrivateTmp",
		"DynamicUser", "MemoryDenyWriteExecute", "ProcSubset"} {
		if v, set := u[key]; set {
			t.Errorf("%s=%s: it closes the GPUs or the parameter cache to the daemon", key, strings.Join(v, " "))
		}
	}
}

func TestDockerfileMatchesUnit(t *testing.T) {
	b, err := os.ReadFile("Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	df := string(b)
	lib := ""
	for _, e := range unit(t, "cuzk.service")["Environment"] {
		if v, ok := strings.CutPrefix(e, "CUZK_CUDA_LIB="); ok {
			lib = v
		}
	}
	for _, want := range []*regexp.Regexp{
		regexp.MustCompile(`(?m)^ARG CUDA_VERSION=13\.`),
		regexp.MustCompile(`(?m)^FROM nvidia/cuda:\$\{CUDA_VERSION\}-devel-\S+ AS build$`),
		regexp.MustCompile(`(?m)^FROM nvidia/cuda:\$\{CUDA_VERSION\}-runtime-\S+$`),
		regexp.MustCompile(`(?m)^RUN make .*\bcuda\b`),
		regexp.MustCompile(`(?m)^COPY deploy/cuzk\.toml ` + regexp.QuoteMeta(configPath) + `$`),
		regexp.MustCompile(`(?m)^COPY --from=build /src/bin/libcuzk_cuda\.so ` + regexp.QuoteMeta(lib) + `$`),
		regexp.MustCompile(`(?m)^ENV CUZK_CUDA_LIB=` + regexp.QuoteMeta(lib) + `$`),
		regexp.MustCompile(`(?m)^ENTRYPOINT \["cuzk"\]$`),
		regexp.MustCompile(`(?m)^CMD \["` + strings.ReplaceAll(daemonCmd, " ", `", "`) + `"\]$`),
	} {
		if !want.MatchString(df) {
			t.Errorf("Dockerfile lacks a line matching %s", want)
		}
	}
}

// systemd accepts the unit (where systemd-analyze is installed).
func TestUnitVerifies(t *testing.T) {
	analyze, err := exec.LookPath("systemd-analyze")
	if err != nil {
		t.Skip("systemd-analyze not installed")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile("cuzk.service")
	if err != nil {
		t.Fatal(err)
	}
	// verify checks that ExecStart's binary exists: this test's stands in.
	text := strings.Replace(string(b), "ExecStart=/usr/local/bin/cuzk ", "ExecStart="+exe+" ", 1)
	path := filepath.Join(t.TempDir(), "cuzk.service")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(analyze, "verify", "--man=no", path)
	cmd.Env = append(os.Environ(), "SYSTEMD_LOG_LEVEL=notice")
	out, err := cmd.CombinedOutput()
	if err != nil || len(strings.TrimSpace(string(out))) != 0 {
		t.Errorf("systemd-analyze verify: %v\n%s", err, out)
	}
}
