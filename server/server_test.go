package server

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/cuzk-project/cuzk/engine"
	cuzkv1 "github.com/cuzk-project/cuzk/proto/cuzk/v1"
)

func TestParseAddr(t *testing.T) {
	tests := []struct {
		in, network, addr string
		wantErr           bool
	}{
		{"unix:///run/cuzk.sock", "unix", "/run/cuzk.sock", false},
		{"unix://rel.sock", "unix", "rel.sock", false},
		{"unix:/tmp/x.sock", "unix", "/tmp/x.sock", false},
		{"127.0.0.1:9820", "tcp", "127.0.0.1:9820", false},
		{"tcp://[::1]:9820", "tcp", "[::1]:9820", false},
		{":9820", "tcp", ":9820", false},
		{"", "", "", true},
		{"unix://", "", "", true},
		{"http://x:1", "", "", true},
		{"localhost", "", "", true},
		{"localhost:", "", "", true},
	}
	for _, tt := range tests {
		n, a, err := ParseAddr(tt.in)
		if (err != nil) != tt.wantErr || n != tt.network || a != tt.addr {
			t.Errorf("ParseAddr(%q) = %q, %q, %v; want %q, %q, err %v", tt.in, n, a, err, tt.network, tt.addr, tt.wantErr)
		}
	}
}

func shortTempDir(t *testing.T) string {
	// unix socket paths are limited to ~107 bytes; t.TempDir can be long.
	dir, err := os.MkdirTemp("", "cuzk")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

func TestListenUnix(t *testing.T) {
	dir := shortTempDir(t)
	path := filepath.Join(dir, "sub", "cuzk.sock")

	// A stale socket: bound, then left behind by a "crashed" daemon.
	if err := os.MkdirAll(filepath.Dir(path), 0o750); err != nil {
		t.Fatal(err)
	}
	stale, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	stale.SetUnlinkOnClose(false)
	stale.Close()

	lis, err := Listen("unix://" + path)
	if err != nil {
		t.Fatalf("listen over a stale socket: %v", err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode()&fs.ModeSocket == 0 || fi.Mode().Perm() != SocketMode {
		t.Errorf("socket mode %v, want socket %o", fi.Mode(), SocketMode)
	}

	// While someone listens there, a second daemon must refuse.
	go func() {
		for {
			c, err := lis.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	if l2, err := Listen("unix://" + path); err == nil {
		l2.Close()
		t.Fatal("second listener on a live socket succeeded")
	} else if !strings.Contains(err.Error(), "in use") {
		t.Errorf("live socket error %q does not say it is in use", err)
	}
	lis.Close()

	// A regular file is never removed.
	file := filepath.Join(dir, "not-a-socket")
	if err := os.WriteFile(file, []byte("keep me"), 0o600); err != nil {
		t.Fatal(err)
	}
	if l3, err := Listen("unix://" + file); err == nil {
		l3.Close()
		t.Fatal("listening over a regular file succeeded")
	}
	if b, _ := os.ReadFile(file); string(b) != "keep me" {
		t.Fatal("regular file was touched")
	}
}

func dialUnix(t *testing.T, path string) cuzkv1.ProvingEngineClient {
	return cuzkv1.NewProvingEngineClient(dialConn(t, path))
}

func dialConn(t testing.TB, path string) *grpc.ClientConn {
	t.Helper()
	conn, err := grpc.NewClient("unix://"+path, grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(MaxMessageBytes), grpc.MaxCallSendMsgSize(MaxMessageBytes)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn
}

// startServer runs a Server on a temp unix socket and an HTTP port.
func startServer(t *testing.T, eng Engine, grace time.Duration) (s *Server, sock string, cancel func(), done chan error) {
	t.Helper()
	sock = filepath.Join(shortTempDir(t), "cuzk.sock")
	s = New(eng, Options{
		Listen: "unix://" + sock, StatusListen: "127.0.0.1:0", ShutdownGrace: grace,
		Log: slog.New(slog.NewTextHandler(io.Discard, nil)),
		HTTP: map[string]http.Handler{"GET /extra": http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			io.WriteString(w, "extra route")
		})},
	})
	if err := s.Listen(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done = make(chan error, 1)
	go func() { done <- s.Serve(ctx) }()
	t.Cleanup(func() {
		cancel()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Error("server did not stop")
		}
	})
	return s, sock, cancel, done
}

func TestServeUnixAndHTTP(t *testing.T) {
	eng := newFakeEngine()
	eng.snapshot = engine.Snapshot{
		Devices: []engine.DeviceStatus{{Ordinal: 0, Name: "cpu",
			Phases:        []engine.PhaseTotal{{Circuit: "porep-32g", Name: "msm_h", Total: 3 * time.Second, Runs: 4}},
			PreparePhases: []engine.PhaseTotal{{Circuit: "porep-32g", Name: "alloc", Total: 2 * time.Second, Runs: 4}}, KeptBytes: 8 << 30}},
		SRS:    []engine.SRSStatus{{CircuitID: "porep-32g", Tier: engine.TierHot, SizeBytes: 42, RefCount: 1}},
		Queues: []engine.QueueStatus{{ProofKind: "porep-c2", Pending: 2}},
		Uptime: 3 * time.Second, MemoryUsed: 10, MemoryLimit: 100,
		Claims:  engine.ClaimCounts{Kept: 5, Ahead: 7, Missed: 1},
		AuxKept: 3 << 30, AuxReused: 9,
	}
	s, sock, _, _ := startServer(t, eng, time.Second)
	cli := dialUnix(t, sock)
	st, err := cli.GetStatus(ctxT(t), &cuzkv1.GetStatusRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if len(st.LoadedSrs) != 1 || st.LoadedSrs[0].SizeBytes != 42 {
		t.Fatalf("status over unix socket: %v", st)
	}

	base := "http://" + s.StatusAddr().String()
	resp, err := http.Get(base + "/status")
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	err = json.NewDecoder(resp.Body).Decode(&doc)
	resp.Body.Close()
	if err != nil {
		t.Fatal(err)
	}
	if doc["memory_limit_bytes"] != 100.0 || doc["uptime_seconds"] != 3.0 {
		t.Errorf("/status: %v", doc)
	}
	if srs := doc["srs"].([]any); len(srs) != 1 || srs[0].(map[string]any)["tier"] != "hot" {
		t.Errorf("/status srs: %v", doc["srs"])
	}

	resp, err = http.Get(base + "/extra")
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := io.ReadAll(resp.Body); string(b) != "extra route" {
		t.Errorf("extra route: %q", b)
	}
	resp.Body.Close()

	resp, err = http.Get(base + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(body), "cuzk_queue_depth 2") {
		t.Errorf("/metrics: %d\n%s", resp.StatusCode, grepLines(string(body), "cuzk_"))
	}
	for _, want := range []string{
		`cuzk_device_kernel_phase_seconds_total{circuit="porep-32g",device="0",name="cpu",phase="msm_h"} 3`,
		`cuzk_device_kernel_phase_runs_total{circuit="porep-32g",device="0",name="cpu",phase="msm_h"} 4`,
		`cuzk_device_prepare_phase_seconds_total{circuit="porep-32g",device="0",name="cpu",phase="alloc"} 2`,
		`cuzk_device_prepare_phase_runs_total{circuit="porep-32g",device="0",name="cpu",phase="alloc"} 4`,
		`cuzk_device_kept_bytes{device="0",name="cpu"} 8.589934592e+09`,
		`cuzk_memory_claims_total{via="kept"} 5`,
		`cuzk_memory_claims_total{via="ahead"} 7`,
		`cuzk_memory_claims_missed_total 1`,
		`cuzk_memory_aux_kept_bytes 3.221225472e+09`,
		`cuzk_witness_aux_reused_total 9`,
	} {
		if !strings.Contains(string(body), want) {
			t.Errorf("/metrics lacks %s:\n%s", want, grepLines(string(body), "phase"))
		}
	}
}

func TestServeTCP(t *testing.T) {
	s := New(newFakeEngine(), Options{Listen: "127.0.0.1:0", InsecureAllowUnauthenticated: true, Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err := s.Listen(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx) }()
	conn, err := grpc.NewClient(s.Addr().String(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := cuzkv1.NewProvingEngineClient(conn).GetStatus(ctxT(t), &cuzkv1.GetStatusRequest{}); err != nil {
		t.Fatal(err)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("Serve after shutdown: %v", err)
	}
}

// Shutdown lets a running Prove finish within the grace period.
func TestGracefulShutdownFinishesRunning(t *testing.T) {
	eng := newFakeEngine()
	_, sock, cancel, done := startServer(t, eng, 5*time.Second)
	cli := dialUnix(t, sock)
	ctx := ctxT(t)
	if _, err := cli.SubmitProof(ctx, porep("slow")); err != nil {
		t.Fatal(err)
	}
	got := make(chan error, 1)
	go func() {
		res, err := cli.AwaitProof(ctx, &cuzkv1.AwaitProofRequest{JobId: "slow"})
		if err == nil && res.Status != cuzkv1.AwaitProofResponse_COMPLETED {
			err = errors.New(res.Status.String())
		}
		got <- err
	}()
	time.Sleep(50 * time.Millisecond) // the await is in flight
	cancel()
	time.Sleep(50 * time.Millisecond)
	eng.finish("slow", engine.Result{Status: engine.StatusCompleted, Proof: make([]byte, 192)})
	if err := <-got; err != nil {
		t.Fatalf("in-flight await during graceful shutdown: %v", err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	done <- nil // for the cleanup
	if _, err := os.Stat(sock); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("socket left behind after shutdown: %v", err)
	}
}

// A stuck RPC does not hold shutdown past the grace period.
func TestShutdownGraceDeadline(t *testing.T) {
	eng := newFakeEngine()
	_, sock, cancel, done := startServer(t, eng, 200*time.Millisecond)
	cli := dialUnix(t, sock)
	ctx := ctxT(t)
	if _, err := cli.SubmitProof(ctx, porep("stuck")); err != nil {
		t.Fatal(err)
	}
	go cli.AwaitProof(ctx, &cuzkv1.AwaitProofRequest{JobId: "stuck"})
	time.Sleep(50 * time.Millisecond)
	start := time.Now()
	cancel()
	if err := <-done; !errors.Is(err, ErrCutOff) {
		t.Fatalf("Serve after cutting off an RPC: %v, want ErrCutOff", err)
	}
	done <- nil
	if el := time.Since(start); el > 3*time.Second {
		t.Fatalf("shutdown took %v with a 200ms grace", el)
	}
}

// A socket path over the kernel's limit is refused with the limit named,
// not with bind's "invalid argument".
func TestListenUnixPathTooLong(t *testing.T) {
	path := filepath.Join(shortTempDir(t), strings.Repeat("s", 120)+".sock")
	lis, err := Listen("unix://" + path)
	if err == nil {
		lis.Close()
		t.Fatal("listening on a 130-byte socket path succeeded")
	}
	if !strings.Contains(err.Error(), "bytes long") || !strings.Contains(err.Error(), "107") {
		t.Fatalf("error %q does not name the length limit", err)
	}
}
