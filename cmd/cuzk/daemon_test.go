package main

import (
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
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

// The daemon proves a small synthetic job over its unix socket, answers
// the operator commands and its HTTP endpoints, and stops cleanly.
func TestDaemonEndToEnd(t *testing.T) {
	dir, err := os.MkdirTemp("", "cuzkd")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	t.Setenv("XDG_CACHE_HOME", filepath.Join(dir, "cache")) // dev parameters
	sock := filepath.Join(dir, "cuzk.sock")
	addr := "unix://" + sock
	httpAddr := daemonFreePort(t)

	cfg := config.Default()
	cfg.Daemon.Listen = addr
	cfg.Daemon.StatusListen = httpAddr
	cfg.Daemon.ShutdownGrace = config.Duration(5 * time.Second)
	cfg.Memory.TotalBudget = config.Budget{Bytes: 2 << 30}
	cfg.SRS.ParamCache = filepath.Join(dir, "params")
	cfg.Timeline.Events = 4096
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}

	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- runDaemon(ctx, cfg, slog.New(slog.NewTextHandler(io.Discard, nil))) }()
	defer func() {
		cancel()
		<-done
	}()

	c, err := client.Dial(addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	cctx, ccancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer ccancel()
	for { // until the daemon listens
		if _, err := c.Status(cctx); err == nil {
			break
		}
		if cctx.Err() != nil {
			t.Fatal("daemon did not come up")
		}
		time.Sleep(20 * time.Millisecond)
	}

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

	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("daemon: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("daemon did not stop")
	}
	done <- nil
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
	if code != 0 || !strings.Contains(out, `listen = "127.0.0.1:1"`) || !strings.Contains(out, "gpu_workers_per_device = 2") {
		t.Errorf("--print-config (exit %d):\n%s", code, out)
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
