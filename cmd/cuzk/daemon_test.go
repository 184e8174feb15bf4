package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/cuzk-project/cuzk/circuits"
	"github.com/cuzk-project/cuzk/circuits/synthetic"
	"github.com/cuzk-project/cuzk/client"
	"github.com/cuzk-project/cuzk/config"
	cuzkv1 "github.com/cuzk-project/cuzk/proto/cuzk/v1"
)

func daemonFreePort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// testDaemonConfig is a small development daemon in dir: a unix socket, a
// 2 GiB budget, synthetic jobs accepted with their development parameters
// and an empty parameter cache under dir.
func testDaemonConfig(t *testing.T, dir string) config.Config {
	t.Helper()
	t.Setenv("XDG_CACHE_HOME", filepath.Join(dir, "cache")) // dev parameters
	cfg := config.Default()
	cfg.Daemon.Listen = "unix://" + filepath.Join(dir, "cuzk.sock")
	cfg.Daemon.ShutdownGrace = config.Duration(5 * time.Second)
	cfg.Daemon.Dev = true
	cfg.Memory.TotalBudget = config.Budget{Bytes: 2 << 30}
	cfg.SRS.ParamCache = filepath.Join(dir, "params")
	cfg.Timeline.Events = 4096
	return cfg
}

// startParamsDaemon starts a daemon (daemon.dev: dev) over the parameter
// directory params with a memory budget of budget bytes, its socket and
// cache in a temporary directory removed once the test and the daemon end.
func startParamsDaemon(t *testing.T, params string, dev bool, budget uint64) (*client.Client, config.Config) {
	t.Helper()
	sockDir, err := os.MkdirTemp("", "cuzke")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(sockDir) })
	cfg := testDaemonConfig(t, sockDir)
	cfg.Daemon.Dev = dev
	cfg.SRS.ParamCache = params
	cfg.Memory.TotalBudget = config.Budget{Bytes: config.Size(budget)}
	c, _ := startDaemon(t, cfg)
	return c, cfg
}

// startDaemon runs the daemon of cfg until the test ends, and returns a
// client once it answers. stop ends it and returns what runDaemon did.
func startDaemon(t *testing.T, cfg config.Config) (c *client.Client, stop func() error) {
	t.Helper()
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- runDaemon(ctx, cfg, slog.New(slog.NewTextHandler(io.Discard, nil))) }()
	var once sync.Once
	var err error
	stop = func() error {
		once.Do(func() {
			cancel()
			select {
			case err = <-done:
			case <-time.After(30 * time.Second):
				err = errors.New("daemon did not stop within 30s")
			}
		})
		return err
	}
	t.Cleanup(func() { stop() })
	c = dialDaemon(t, cfg.Daemon.Listen)
	return c, stop
}

// dialDaemon returns a client of the daemon at addr once it answers.
func dialDaemon(t *testing.T, addr string) *client.Client {
	t.Helper()
	c, err := client.Dial(addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	deadline := time.Now().Add(time.Minute)
	for { // until the daemon listens
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		_, err := c.Status(ctx)
		cancel()
		if err == nil {
			return c
		}
		if time.Now().After(deadline) {
			t.Fatalf("daemon did not come up: %v", err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// The daemon proves a small synthetic job over its unix socket, answers
// the operator commands and its HTTP endpoints, and stops cleanly.
func TestDaemonEndToEnd(t *testing.T) {
	dir, err := os.MkdirTemp("", "cuzkd") // short: a socket path has ~100 bytes
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	cfg := testDaemonConfig(t, dir)
	httpAddr := daemonFreePort(t)
	cfg.Daemon.StatusListen = httpAddr
	addr := cfg.Daemon.Listen
	sock := strings.TrimPrefix(addr, "unix://")
	c, stop := startDaemon(t, cfg)
	cctx, ccancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer ccancel()

	sc := synthetic.Default(1 << 10)
	sc.Seed = 3
	res, err := c.Prove(cctx, &cuzkv1.SubmitProofRequest{
		RequestId: "e2e-1", ProofKind: cuzkv1.ProofKind_POREP_SEAL_COMMIT,
		VanillaProof: circuits.SyntheticDescriptor(sc, 2),
	})
	if err != nil {
		t.Fatalf("prove: %v", err)
	}
	if len(res.Proof) != 2*192 {
		t.Fatalf("proof is %d bytes, want 384", len(res.Proof))
	}

	// The AwaitProof timeout, cancel and bad input, through the real engine.
	big := synthetic.Default(1 << 12)
	big.Seed = 4
	id, _, err := c.Submit(cctx, &cuzkv1.SubmitProofRequest{
		RequestId: "e2e-2", ProofKind: cuzkv1.ProofKind_WINDOW_POST_PARTITION,
		VanillaProof: circuits.SyntheticDescriptor(big, 16),
	})
	if err != nil {
		t.Fatalf("submit: %v", err)
	}
	aw, err := c.Raw().AwaitProof(cctx, &cuzkv1.AwaitProofRequest{JobId: id, TimeoutMs: 1})
	if err != nil || aw.Status != cuzkv1.AwaitProofResponse_TIMEOUT {
		t.Errorf("await with 1 ms timeout: %v %v", aw, err)
	}
	if _, err := c.Cancel(cctx, id); err != nil {
		t.Errorf("cancel: %v", err)
	}
	aw, err = c.Raw().AwaitProof(cctx, &cuzkv1.AwaitProofRequest{JobId: id})
	if err != nil || aw.Status != cuzkv1.AwaitProofResponse_CANCELLED {
		t.Errorf("await after cancel: %v %v", aw, err)
	}
	for _, vp := range []string{"garbage", `{"synthetic":{"constraints":-5}}`, `{"synthetic":`} {
		_, err := c.Prove(cctx, &cuzkv1.SubmitProofRequest{ProofKind: cuzkv1.ProofKind_POREP_SEAL_COMMIT, VanillaProof: []byte(vp)})
		if status.Code(err) != codes.InvalidArgument {
			t.Errorf("vanilla proof %q: %v, want InvalidArgument", vp, err)
		}
	}

	out, code := run(t, "status", "--addr", addr)
	if code != 0 || !strings.Contains(out, "1 proofs completed") || !strings.Contains(out, circuits.SyntheticID(sc)) ||
		!strings.Contains(out, "cpu (") {
		t.Errorf("status (exit %d):\n%s", code, out)
	}
	out, code = run(t, "metrics", "--addr", addr)
	if code != 0 || !strings.Contains(out, "cuzk_proofs_completed_total 1") {
		t.Errorf("metrics (exit %d):\n%s", code, daemonGrep(out, "cuzk_proofs"))
	}
	out, code = run(t, "preload", "--addr", addr, circuits.SyntheticID(sc))
	if code != 0 || !strings.Contains(out, "already loaded") {
		t.Errorf("preload (exit %d): %s", code, out)
	}
	out, code = run(t, "evict", "--addr", addr, "porep-32g")
	if code != 0 || !strings.Contains(out, "porep-32g was not loaded") {
		t.Errorf("evict (exit %d): %s", code, out)
	}
	out, code = run(t, "preload", "--addr", addr, "porep-1t")
	if code == 0 || !strings.Contains(out, "unknown circuit") {
		t.Errorf("preload of an unknown circuit (exit %d): %s", code, out)
	}
	out, code = run(t, "cancel", "--addr", addr, "no-such-job")
	if code == 0 || !strings.Contains(out, "not found") {
		t.Errorf("cancel of an unknown job (exit %d): %s", code, out)
	}

	for _, path := range []string{"/status", "/metrics", "/timeline"} {
		resp, err := http.Get("http://" + httpAddr + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Errorf("GET %s: %s", path, resp.Status)
		}
	}

	if err := stop(); err != nil {
		t.Fatalf("daemon: %v", err)
	}
	if _, err := os.Stat(sock); !os.IsNotExist(err) {
		t.Errorf("socket left behind: %v", err)
	}
}

func TestOpsNoDaemon(t *testing.T) {
	dir := t.TempDir()
	out, code := run(t, "status", "--addr", "unix://"+filepath.Join(dir, "none.sock"), "--timeout", "2s")
	if code == 0 || !strings.Contains(out, "no daemon answering") {
		t.Errorf("status without a daemon (exit %d): %s", code, out)
	}
}

func TestDaemonConfigErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.toml")
	if err := os.WriteFile(bad, []byte("[gpus]\ngpu_workers_per_device = 0\nbogus = 1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	out, code := run(t, "daemon", "--config", bad)
	if code == 0 || !strings.Contains(out, "gpus.bogus") {
		t.Errorf("daemon with a bad config (exit %d): %s", code, out)
	}
	out, code = run(t, "daemon", "--config", "../../docs/cuzk.example.toml", "--listen", "127.0.0.1:1", "--print-config")
	if code != 0 || !strings.Contains(out, `listen = "127.0.0.1:1"`) || !strings.Contains(out, "gpu_workers_per_device = 2") ||
		!strings.Contains(out, "dev = false") {
		t.Errorf("--print-config (exit %d):\n%s", code, out)
	}
	out, code = run(t, "daemon", "--dev", "--print-config")
	if code != 0 || !strings.Contains(out, "dev = true") {
		t.Errorf("--dev --print-config (exit %d):\n%s", code, out)
	}
}

func daemonGrep(text, sub string) string {
	var out []string
	for _, l := range strings.Split(text, "\n") {
		if strings.Contains(l, sub) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// Hostile clients over the real socket: each bad request gets an error
// with the reason, and the daemon keeps serving everyone else.
func TestDaemonHostileClients(t *testing.T) {
	dir, err := os.MkdirTemp("", "cuzkh")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	c, _ := startDaemon(t, testDaemonConfig(t, dir))
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	sc := synthetic.Default(1 << 10)
	sc.Seed = 5
	desc := circuits.SyntheticDescriptor(sc, 2)
	submit := func(id string, vp []byte) *cuzkv1.SubmitProofRequest {
		return &cuzkv1.SubmitProofRequest{RequestId: id, ProofKind: cuzkv1.ProofKind_POREP_SEAL_COMMIT, VanillaProof: vp}
	}

	t.Run("same request_id many times at once", func(t *testing.T) {
		n := 1000
		if testing.Short() {
			n = 200
		}
		var wg sync.WaitGroup
		errs := make(chan error, n)
		for range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				id, _, err := c.Submit(ctx, submit("same-id", desc))
				if err == nil && id != "same-id" {
					err = fmt.Errorf("job id %q", id)
				}
				errs <- err
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			if err != nil {
				t.Fatalf("duplicate submit: %v", err)
			}
		}
		// An absurd timeout is no timeout.
		res, err := c.Raw().AwaitProof(ctx, &cuzkv1.AwaitProofRequest{JobId: "same-id", TimeoutMs: math.MaxUint64})
		if err != nil || res.Status != cuzkv1.AwaitProofResponse_COMPLETED || len(res.Proof) != 2*192 {
			t.Fatalf("await: %v %v", res, err)
		}
		st, err := c.Status(ctx)
		if err != nil || st.TotalProofsCompleted != 1 {
			t.Fatalf("%d submits of one request_id made %d proofs (%v), want 1", n, st.GetTotalProofsCompleted(), err)
		}
	})

	t.Run("bad input", func(t *testing.T) {
		garbage := bytes.Repeat([]byte{0xff, 0x00, '{'}, 4<<20) // 12 MiB
		if !testing.Short() {
			garbage = bytes.Repeat([]byte{0xff, 0x00, '{'}, 83<<20) // 249 MiB
		}
		for _, tt := range []struct {
			name string
			call func() error
			want string
		}{
			{"garbage vanilla proof", func() error { _, err := c.Prove(ctx, submit("", garbage)); return err }, "bad vanilla proof"},
			{"cancel job_id with a NUL", func() error { _, err := c.Cancel(ctx, "job\x00"); return err }, "job_id has a non-printable"},
			{"evict a 10 kB circuit_id", func() error { _, _, err := c.Evict(ctx, strings.Repeat("c", 10000)); return err }, "circuit_id is 10000 bytes"},
			{"preload an unknown circuit", func() error { _, _, err := c.Preload(ctx, "porep-1t"); return err }, "unknown circuit"},
			{"await an empty job_id", func() error { _, err := c.Await(ctx, "", time.Second); return err }, "job_id is empty"},
		} {
			err := tt.call()
			if st := status.Convert(errors.Unwrap(err)); st.Code() != codes.InvalidArgument || !strings.Contains(st.Message(), tt.want) {
				t.Errorf("%s: %v, want InvalidArgument containing %q", tt.name, err, tt.want)
			}
		}
		// A partition that can never fit beside its parameters: refused
		// at submit with the bytes.
		_, err := c.Prove(ctx, submit("", []byte(`{"synthetic":{"constraints":16777216,"partitions":256}}`)))
		if st := status.Convert(errors.Unwrap(err)); st.Code() != codes.ResourceExhausted || !strings.Contains(st.Message(), "beside its parameters") ||
			!strings.Contains(st.Message(), "more than the memory budget of") {
			t.Errorf("absurd synthetic job: %v, want ResourceExhausted with the bytes", err)
		}
		// Over the 256 MiB limit: refused before it reaches the daemon.
		if !testing.Short() {
			_, err := c.Prove(ctx, submit("", make([]byte, 257<<20)))
			if status.Code(errors.Unwrap(err)) != codes.ResourceExhausted {
				t.Errorf("257 MiB request: %v, want ResourceExhausted", err)
			}
		}
		if _, err := c.Status(ctx); err != nil {
			t.Fatalf("daemon stopped answering: %v", err)
		}
	})

	// A client that gives up mid-Prove (Curio's ProveTimeout) leaves the
	// job running; its retry with the same request_id joins it.
	t.Run("client gives up mid-Prove", func(t *testing.T) {
		big := synthetic.Default(1 << 12)
		big.Seed = 6
		req := submit("porep-1000-9", circuits.SyntheticDescriptor(big, 4))
		short, cancelShort := context.WithTimeout(ctx, 50*time.Millisecond)
		_, err := c.Prove(short, req)
		cancelShort()
		if status.Code(errors.Unwrap(err)) != codes.DeadlineExceeded {
			t.Fatalf("Prove past its deadline: %v", err)
		}
		res, err := c.Prove(ctx, req)
		if err != nil || len(res.Proof) != 4*192 {
			t.Fatalf("retry: %v %v", res, err)
		}
	})
}

// Curio retries a failed task with the same request_id (porep-<miner>-
// <sector>, wdpost-…): a retry after a FAILED or CANCELLED result proves
// again instead of getting the old result back until it is pruned.
func TestDaemonRetryAfterFailure(t *testing.T) {
	dir, err := os.MkdirTemp("", "cuzkr")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	c, _ := startDaemon(t, testDaemonConfig(t, dir))
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	sc := synthetic.Default(1 << 10)
	sc.Seed = 8
	req := &cuzkv1.SubmitProofRequest{RequestId: "porep-1000-11", ProofKind: cuzkv1.ProofKind_POREP_SEAL_COMMIT,
		VanillaProof: circuits.SyntheticDescriptor(sc, 2)}
	if _, _, err := c.Submit(ctx, req); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Cancel(ctx, req.RequestId); err != nil {
		t.Fatal(err)
	}
	if aw, _ := c.Raw().AwaitProof(ctx, &cuzkv1.AwaitProofRequest{JobId: req.RequestId}); aw.GetStatus() != cuzkv1.AwaitProofResponse_CANCELLED {
		t.Skipf("the job ended %v before the cancel", aw.GetStatus())
	}
	res, err := c.Prove(ctx, req)
	if err != nil || len(res.Proof) != 2*192 {
		t.Fatalf("retry after CANCELLED: %v %v, want a proof", res, err)
	}
	// A COMPLETED result is still returned, not proved again.
	if _, err := c.Prove(ctx, req); err != nil {
		t.Fatal(err)
	}
	if st, err := c.Status(ctx); err != nil || st.TotalProofsCompleted != 1 {
		t.Fatalf("a retry after COMPLETED proved again: %d proofs (%v)", st.GetTotalProofsCompleted(), err)
	}
}

// SIGTERM with a Prove in flight: the Prove gets an answer (Unavailable
// once the grace period is over), and the daemon stops, removes its
// socket and exits 3 (RPCs cut off) or 0.
func TestDaemonSIGTERMWithProveInFlight(t *testing.T) {
	dir, err := os.MkdirTemp("", "cuzks")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	cfg := testDaemonConfig(t, dir)
	cfg.Daemon.ShutdownGrace = config.Duration(300 * time.Millisecond)
	cfg.Daemon.Dev = false // --dev turns it on
	file := filepath.Join(dir, "cuzk.toml")
	b, err := config.Encode(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, b, 0o600); err != nil {
		t.Fatal(err)
	}
	exited := make(chan string, 1)
	go func() {
		out, code := run(t, "daemon", "--config", file, "--dev", "--log-level", "error")
		exited <- fmt.Sprintf("exit %d: %s", code, out)
	}()
	c := dialDaemon(t, cfg.Daemon.Listen) // the signal handler is in place

	big := synthetic.Default(1 << 14)
	answered := make(chan error, 1)
	go func() {
		_, err := c.Prove(context.Background(), &cuzkv1.SubmitProofRequest{
			RequestId: "in-flight", ProofKind: cuzkv1.ProofKind_POREP_SEAL_COMMIT,
			VanillaProof: circuits.SyntheticDescriptor(big, circuits.MaxPartitions), // minutes of work
		})
		answered <- err
	}()
	time.Sleep(200 * time.Millisecond)
	if err := syscall.Kill(os.Getpid(), syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	wantExit := "exit 0"
	select {
	case err := <-answered:
		var pe *client.ProofError
		cut := status.Code(errors.Unwrap(err)) == codes.Unavailable
		if !cut && !(errors.As(err, &pe) && pe.Status == cuzkv1.AwaitProofResponse_CANCELLED) {
			t.Errorf("in-flight Prove at SIGTERM: %v, want Unavailable or CANCELLED", err)
		}
		if cut { // the exit code says the grace period cut it off
			wantExit = fmt.Sprintf("exit %d", exitCutOff)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("in-flight Prove got no answer 20s after SIGTERM")
	}
	select {
	case out := <-exited:
		if !strings.HasPrefix(out, wantExit) {
			t.Errorf("daemon after SIGTERM: %s, want %s", out, wantExit)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("daemon still running 20s after SIGTERM")
	}
	if _, err := os.Stat(strings.TrimPrefix(cfg.Daemon.Listen, "unix://")); !os.IsNotExist(err) {
		t.Errorf("socket left behind: %v", err)
	}
}

// The status tables line up and carry no trailing blanks.
func TestWriteStatus(t *testing.T) {
	var b bytes.Buffer
	err := writeStatus(&b, "unix:///run/cuzk.sock", &cuzkv1.GetStatusResponse{
		Gpus: []*cuzkv1.GPUStatus{{Ordinal: 0, Name: "cpu (2 threads)", CurrentJobId: "porep-1000-7", CurrentProofKind: "porep-c2"}},
		LoadedSrs: []*cuzkv1.SRSStatus{
			{CircuitId: "synthetic-c1024-i7-bf0.75-ad0.997-bd0.25-s3", SizeBytes: 1 << 20, RefCount: 1},
			{CircuitId: "porep-32g", Tier: cuzkv1.SRSStatus_WARM, SizeBytes: 47 << 30},
		},
		TotalProofsCompleted: 12, UptimeSeconds: 3725, PinnedMemoryBytes: 3 << 30, PinnedMemoryLimitBytes: 12 << 30,
	})
	if err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"up 1h2m5s, 12 proofs completed, 0 failed",
		"memory: 3.00 GiB of 12.00 GiB reserved (25%)",
		"0       cpu (2 threads)  -                    porep-1000-7  porep-c2",
		"porep-32g                                    WARM  47.00 GiB  0\n",
		"QUEUE  PENDING  IN PROGRESS\n(empty)\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("status lacks %q:\n%s", want, out)
		}
	}
	for i, l := range strings.Split(out, "\n") {
		if strings.TrimRight(l, " \t") != l {
			t.Errorf("line %d has trailing blanks: %q", i+1, l)
		}
	}
}

// PreloadSRS of a synthetic circuit too large for the memory budget is
// refused as a Prove of it would be, instead of generating parameters
// (for hours, outside the budget, at the largest ids) that no job could use.
func TestDaemonPreloadOverBudget(t *testing.T) {
	dir, err := os.MkdirTemp("", "cuzkp")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	cfg := testDaemonConfig(t, dir)
	cfg.Memory.TotalBudget = config.Budget{Bytes: 8 << 20}
	c, _ := startDaemon(t, cfg)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	id := circuits.SyntheticID(synthetic.Default(1 << 14)) // ~10 MiB per partition
	_, _, err = c.Preload(ctx, id)
	if st := status.Convert(errors.Unwrap(err)); st.Code() != codes.InvalidArgument || !strings.Contains(st.Message(), "memory budget") {
		t.Fatalf("preload of %s with an 8 MiB budget: %v, want InvalidArgument naming the memory budget", id, err)
	}
	small := circuits.SyntheticID(synthetic.Default(1 << 10))
	if _, _, err := c.Preload(ctx, small); err != nil {
		t.Fatalf("preload of %s: %v", small, err)
	}
}
