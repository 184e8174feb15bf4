package docs

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/cuzk-project/cuzk/device/cuda"
)

// TestShellBlocks runs the shell blocks of README.md and docs/*.md in that
// order, each as one bash script (-e -o pipefail) in one shared working
// directory that starts as a fresh clone: a block may use the files an
// earlier block wrote. The first block that fails stops the run, since the
// later ones may need its files.
//
// What it changes in a block before running it, so that the commands run
// as written on a machine others share:
//   - `go run ./cmd/cuzk` becomes `cuzk`, a binary built once and first on
//     PATH (the bare `cuzk` of the operator commands is the same binary);
//   - /tmp/cuzk.sock and the ports 127.0.0.1:9820 and :9821 become a socket
//     in a private directory and free ports. XDG_RUNTIME_DIR is that
//     directory, so the daemon's default socket is the same one.
//
// The environment: FIL_PROOFS_PARAMETER_CACHE is ./params of the working
// directory, where the README's setup commands write (so that a daemon
// started by a block, whose srs.param_cache defaults to it, proves from the
// same files and never writes into /var/tmp); the user cache directory is
// the user's, so the synthetic development parameters of `cuzk bench` and of
// a --dev daemon are generated once per machine, as the README says.
//
// doc.go lists the tags that gate a block. Under -short this takes a few
// minutes on 2 cores; without it the slow blocks add the 2 KiB PoRep and
// SnapDeals setups and proofs (5 minutes there, more on a busy machine):
// give go test -timeout 30m.
func TestShellBlocks(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	blocks := pageBlocks(t, root)
	r := newRunner(t, root)
	for _, b := range blocks {
		if !t.Run(b.String(), func(t *testing.T) { r.run(t, b) }) {
			t.Fatalf("stopped at %s: the blocks after it may need what it makes", b)
		}
	}
}

// pageBlocks reads the shell blocks of the pages in the order an operator
// reads them: the README, then docs/*.md by name.
func pageBlocks(t *testing.T, root string) []block {
	pages, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(pages)
	pages = append([]string{filepath.Join(root, "README.md")}, pages...)
	var all []block
	for _, p := range pages {
		src, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(root, p)
		bs, err := parseBlocks(rel, src)
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, bs...)
	}
	if len(all) == 0 {
		t.Fatal("no shell blocks found")
	}
	return all
}

// A runner holds what the blocks share: the working directory, the binary
// and the environment.
type runner struct {
	work    string
	env     []string
	replace *strings.Replacer
	status  string // what 127.0.0.1:9821 became
	gpu     bool
	grpcurl bool
}

func newRunner(t *testing.T, root string) *runner {
	work := t.TempDir()
	// The working directory looks like a fresh clone: the repository's
	// entries, linked (a block that wrote into one would write into the
	// checkout; none does).
	entries, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.Name() == ".git" {
			continue
		}
		if err := os.Symlink(filepath.Join(root, e.Name()), filepath.Join(work, e.Name())); err != nil {
			t.Fatal(err)
		}
	}
	bin := t.TempDir()
	t0 := time.Now()
	build := exec.Command("go", "build", "-o", filepath.Join(bin, "cuzk"), "./cmd/cuzk")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build ./cmd/cuzk: %v\n%s", err, out)
	}
	t.Logf("built cuzk in %v", time.Since(t0).Round(time.Second))

	// A private directory for the sockets: unix socket paths must stay
	// short (108 bytes), which t.TempDir's need not.
	run, err := os.MkdirTemp("", "cuzkdoc")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(run) })
	grpcPort, status := freeAddr(t), freeAddr(t)

	if os.Getenv("CUZK_CUDA_LIB") == "" {
		if lib := filepath.Join(root, "bin", cuda.LibName); fileExists(lib) {
			t.Setenv("CUZK_CUDA_LIB", lib)
		}
	}
	_, lookErr := exec.LookPath("grpcurl")
	r := &runner{
		work: work,
		replace: strings.NewReplacer(
			"go run ./cmd/cuzk", "cuzk",
			"/tmp/cuzk.sock", filepath.Join(run, "cuzk.sock"),
			"127.0.0.1:9820", grpcPort,
			"127.0.0.1:9821", status,
		),
		status:  status,
		gpu:     cuda.Available(),
		grpcurl: lookErr == nil,
	}
	set := map[string]string{
		"PATH":                       bin + string(os.PathListSeparator) + os.Getenv("PATH"),
		"XDG_RUNTIME_DIR":            run,
		"FIL_PROOFS_PARAMETER_CACHE": filepath.Join(work, "params"),
	}
	drop := map[string]bool{"CUZK_ADDR": true, "CUZK_API_INFO": true}
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if _, ok := set[k]; !ok && !drop[k] {
			r.env = append(r.env, kv)
		}
	}
	for k, v := range set {
		r.env = append(r.env, k+"="+v)
	}
	return r
}

// skip says why b does not run here, or "".
func (r *runner) skip(b block) string {
	for _, tag := range b.tags {
		switch tag {
		case "slow":
			if testing.Short() {
				return "slow (minutes of work): runs without -short"
			}
		case "gpu":
			if !r.gpu {
				return "needs a CUDA device and libcuzk_cuda.so (CUZK_CUDA_LIB or bin/)"
			}
		case "grpcurl":
			if !r.grpcurl {
				return "needs grpcurl on PATH"
			}
		case "tls":
			return "needs certificates, a token secret under /etc or a second host"
		case "suite":
			return "the test suite itself, which runs this test"
		}
	}
	return ""
}

// blockTimeout bounds one block; the slowest is the 2 KiB PoRep setup and
// proof (4 minutes on 2 loaded cores, 8 on a busier day).
func blockTimeout(b block) time.Duration {
	if b.has("slow") {
		return 25 * time.Minute
	}
	return 10 * time.Minute
}

func (r *runner) run(t *testing.T, b block) {
	if why := r.skip(b); why != "" {
		t.Skip(why)
	}
	parts := splitDaemons(r.replace.Replace(b.text))
	starts := false
	for _, p := range parts {
		starts = starts || p.daemon
	}
	if starts && !b.has("daemon") {
		t.Fatalf("%s starts a daemon: mark it <!-- doc-test: daemon -->", b)
	}
	ctx, cancel := context.WithTimeout(context.Background(), blockTimeout(b))
	defer cancel()
	var d *daemon
	if b.has("daemon") && !starts {
		d = r.startDaemon(ctx, t, "cuzk daemon --dev --status-listen "+r.status)
	}
	t0 := time.Now()
	for _, p := range parts {
		if p.daemon {
			d.stop(t)
			d = r.startDaemon(ctx, t, p.text)
			continue
		}
		r.script(ctx, t, b, p.text)
	}
	d.stop(t)
	t.Logf("%s: %v", b, time.Since(t0).Round(time.Millisecond))
}

// A part of a block: a run of script lines, or one line that starts a
// daemon.
type part struct {
	text   string
	daemon bool
}

// splitDaemons cuts the lines that start a daemon (`cuzk daemon …` without
// --print-config, which only prints) out of a block's script.
func splitDaemons(text string) []part {
	var parts []part
	var cur strings.Builder
	flush := func() {
		if strings.TrimSpace(cur.String()) != "" {
			parts = append(parts, part{text: cur.String()})
		}
		cur.Reset()
	}
	for _, line := range strings.SplitAfter(text, "\n") {
		f := strings.Fields(line)
		if len(f) >= 2 && f[0] == "cuzk" && f[1] == "daemon" && !strings.Contains(line, "--print-config") {
			flush()
			parts = append(parts, part{text: strings.TrimSpace(line), daemon: true})
			continue
		}
		cur.WriteString(line)
	}
	flush()
	return parts
}

// script runs text with bash in the working directory.
func (r *runner) script(ctx context.Context, t *testing.T, b block, text string) {
	cmd := exec.CommandContext(ctx, "bash", "-e", "-o", "pipefail", "-x", "-c", text)
	cmd.Dir = r.work
	cmd.Env = r.env
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 10 * time.Second
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s failed: %v\n--- block (as run) ---\n%s--- output ---\n%s", b, err, text, tail(out, 8000))
	}
	t.Logf("output:\n%s", tail(out, 3000))
}

// A daemon started by a block, in its own process group.
type daemon struct {
	cmd  *exec.Cmd
	log  *lockedBuffer
	done chan struct{}
	err  error // of Wait, once done is closed
}

// startDaemon starts line in the background and waits until the daemon
// logs that it serves.
func (r *runner) startDaemon(ctx context.Context, t *testing.T, line string) *daemon {
	cmd := exec.Command("bash", "-c", "exec "+line)
	cmd.Dir = r.work
	cmd.Env = r.env
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	d := &daemon{cmd: cmd, log: &lockedBuffer{}, done: make(chan struct{})}
	cmd.Stdout, cmd.Stderr = d.log, d.log
	if err := cmd.Start(); err != nil {
		t.Fatalf("%s: %v", line, err)
	}
	go func() { d.err = cmd.Wait(); close(d.done) }()
	t.Cleanup(func() {
		select {
		case <-d.done:
		default:
			syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-d.done
		}
	})
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for !strings.Contains(d.log.String(), "msg=serving") {
		select {
		case <-d.done:
			t.Fatalf("%s exited before serving: %v\n%s", line, d.err, tail(d.log.Bytes(), 8000))
		case <-ctx.Done():
			t.Fatalf("%s: not serving in time\n%s", line, tail(d.log.Bytes(), 8000))
		case <-tick.C:
		}
	}
	t.Logf("started: %s", line)
	return d
}

// stop sends SIGTERM, as an operator stops the daemon, and wants exit
// status 0: every RPC finished within the grace period.
func (d *daemon) stop(t *testing.T) {
	if d == nil {
		return
	}
	syscall.Kill(-d.cmd.Process.Pid, syscall.SIGTERM)
	select {
	case <-d.done:
	case <-time.After(2 * time.Minute):
		syscall.Kill(-d.cmd.Process.Pid, syscall.SIGKILL)
		<-d.done
		t.Fatalf("%s: still running 2 minutes after SIGTERM\n%s", d.cmd.Args[2], tail(d.log.Bytes(), 8000))
	}
	if d.err != nil {
		var exit *exec.ExitError
		if !errors.As(d.err, &exit) || exit.ExitCode() != 0 {
			t.Fatalf("%s: after SIGTERM: %v (want exit 0)\n%s", d.cmd.Args[2], d.err, tail(d.log.Bytes(), 8000))
		}
	}
}

// lockedBuffer is the log of a daemon, written by its process and read
// while it runs.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) Bytes() []byte {
	l.mu.Lock()
	defer l.mu.Unlock()
	return bytes.Clone(l.b.Bytes())
}

func (l *lockedBuffer) String() string { return string(l.Bytes()) }

// freeAddr is a loopback address with a port nothing listens on now.
func freeAddr(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return "127.0.0.1:" + strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// tail is the last n bytes of out.
func tail(out []byte, n int) string {
	if len(out) <= n {
		return string(out)
	}
	return fmt.Sprintf("[… %d bytes]\n%s", len(out)-n, out[len(out)-n:])
}
