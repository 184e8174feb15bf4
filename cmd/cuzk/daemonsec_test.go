package main

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/cuzk-project/cuzk/auth"
	"github.com/cuzk-project/cuzk/circuits"
	"github.com/cuzk-project/cuzk/circuits/synthetic"
	"github.com/cuzk-project/cuzk/client"
	"github.com/cuzk-project/cuzk/config"
	cuzkv1 "github.com/cuzk-project/cuzk/proto/cuzk/v1"
	"github.com/cuzk-project/cuzk/server"
	"github.com/cuzk-project/cuzk/server/tlstest"
)

func TestAuthCommands(t *testing.T) {
	dir := t.TempDir()
	secret := filepath.Join(dir, "secret")
	if out, code := run(t, "auth", "init", "--secret", secret); code != 0 {
		t.Fatalf("auth init: exit %d: %s", code, out)
	}
	if fi, err := os.Stat(secret); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("secret file: %v %v", fi, err)
	}
	if out, code := run(t, "auth", "init", "--secret", secret); code == 0 || !strings.Contains(out, "exists") {
		t.Errorf("auth init over an existing secret: exit %d: %s", code, out)
	}
	s, err := auth.ReadSecret(secret)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range auth.Permissions {
		out, code := run(t, "auth", "create-token", "--secret", secret, "--perm", string(p))
		if code != 0 {
			t.Fatalf("create-token %s: exit %d: %s", p, code, out)
		}
		allow, err := auth.Verify(s, strings.TrimSpace(out))
		if err != nil || !auth.Allows(allow, p) || (p != auth.Admin && auth.Allows(allow, auth.Admin)) {
			t.Errorf("%s token allows %v (%v)", p, allow, err)
		}
	}
	for _, args := range [][]string{
		{"auth", "create-token", "--secret", secret, "--perm", "root"},
		{"auth", "create-token", "--perm", "read"},
		{"auth", "create-token", "--secret", filepath.Join(dir, "missing"), "--perm", "read"},
	} {
		if out, code := run(t, args...); code == 0 {
			t.Errorf("%v: exit 0: %s", args, out)
		}
	}
}

// secureDaemon is a TCP daemon with TLS and a token secret.
type secureDaemon struct {
	cfg    config.Config
	pki    *tlstest.PKI
	secret auth.Secret
	dir    string
}

func newSecureDaemon(t *testing.T) *secureDaemon {
	t.Helper()
	dir, err := os.MkdirTemp("", "cuzkt")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	d := &secureDaemon{cfg: testDaemonConfig(t, dir), pki: tlstest.New(t), dir: dir}
	secretFile := filepath.Join(dir, "secret")
	if d.secret, err = auth.Init(secretFile); err != nil {
		t.Fatal(err)
	}
	d.cfg.Daemon.Listen = daemonFreePort(t)
	d.cfg.Daemon.TLS = config.TLS{Cert: d.pki.Cert, Key: d.pki.Key}
	d.cfg.Daemon.Auth.SecretFile = secretFile
	return d
}

func (d *secureDaemon) token(t *testing.T, p auth.Permission) string {
	tok, err := auth.NewToken(d.secret, p)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// dial returns a TLS client of the daemon with a token of p ("" = none).
func (d *secureDaemon) dial(t *testing.T, p auth.Permission) *client.Client {
	t.Helper()
	cfg, err := client.TLSConfig(d.pki.CA, "", "")
	if err != nil {
		t.Fatal(err)
	}
	opts := []grpc.DialOption{client.WithTLS(cfg)}
	if p != "" {
		opts = append(opts, client.WithToken(d.token(t, p)))
	}
	c, err := client.Dial(d.cfg.Daemon.Listen, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// waitUp waits until the daemon answers c.
func waitUp(t *testing.T, c *client.Client) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		_, err := c.Status(ctx)
		cancel()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("daemon did not come up: %v", err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// The daemon on TCP with TLS and tokens: a write token proves, a read one
// may not, no token is Unauthenticated; the operator commands take the
// token from CUZK_API_INFO and --cacert.
func TestDaemonTLSAndTokens(t *testing.T) {
	d := newSecureDaemon(t)
	startDaemonNoDial(t, d.cfg)
	w := d.dial(t, auth.Write)
	waitUp(t, w)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	req := &cuzkv1.SubmitProofRequest{RequestId: "tls-1", ProofKind: cuzkv1.ProofKind_POREP_SEAL_COMMIT,
		VanillaProof: circuits.SyntheticDescriptor(synthetic.Default(1<<10), 1)}
	if res, err := w.Prove(ctx, req); err != nil || len(res.Proof) != 192 {
		t.Fatalf("Prove with a write token over TLS: %v", err)
	}
	if _, err := d.dial(t, auth.Read).Prove(ctx, req); status.Code(errors.Unwrap(err)) != codes.PermissionDenied {
		t.Errorf("Prove with a read token: %v, want PermissionDenied", err)
	}
	if _, err := d.dial(t, "").Status(ctx); status.Code(errors.Unwrap(err)) != codes.Unauthenticated {
		t.Errorf("GetStatus without a token: %v, want Unauthenticated", err)
	}
	if _, _, err := w.Preload(ctx, "porep-2k"); status.Code(errors.Unwrap(err)) != codes.PermissionDenied {
		t.Errorf("PreloadSRS with a write token: %v, want PermissionDenied", err)
	}

	t.Setenv(auth.APIInfoEnv, d.token(t, auth.Read)+":"+d.cfg.Daemon.Listen)
	out, code := run(t, "status", "--cacert", d.pki.CA)
	if code != 0 || !strings.Contains(out, "1 proofs completed") {
		t.Errorf("status with CUZK_API_INFO (exit %d): %s", code, out)
	}
	out, code = run(t, "cancel", "--cacert", d.pki.CA, "tls-1")
	if code == 0 || !strings.Contains(out, "refused") || !strings.Contains(out, "write") {
		t.Errorf("cancel with a read token (exit %d): %s", code, out)
	}
	out, code = run(t, "cancel", "--cacert", d.pki.CA, "--token", d.token(t, auth.Write), "no-such-job")
	if code == 0 || !strings.Contains(out, "not found") {
		t.Errorf("cancel with --token write (exit %d): %s", code, out)
	}
}

// startDaemonNoDial runs the daemon of cfg until the test ends.
func startDaemonNoDial(t *testing.T, cfg config.Config) {
	t.Helper()
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- runDaemon(ctx, cfg, slog.New(slog.NewTextHandler(io.Discard, nil))) }()
	t.Cleanup(func() {
		cancel()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			t.Error("daemon did not stop within 30s")
		}
	})
}

// A TCP daemon without a secret refuses to start, naming the flag that
// would let it; with the flag it starts.
func TestDaemonRefusesOpenTCP(t *testing.T) {
	dir, err := os.MkdirTemp("", "cuzko")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	cfg := testDaemonConfig(t, dir)
	cfg.Daemon.Listen = daemonFreePort(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	err = runDaemon(ctx, cfg, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if !errors.Is(err, server.ErrUnauthenticatedTCP) || !strings.Contains(err.Error(), "--insecure-allow-unauthenticated") {
		t.Fatalf("TCP daemon without a secret: %v", err)
	}
	cfg.Daemon.InsecureAllowUnauthenticated = true
	startDaemonNoDial(t, cfg)
	dialDaemon(t, cfg.Daemon.Listen)
}

// SIGHUP with a job in flight: the job completes, the daemon keeps
// serving, new TLS handshakes get the new certificate, and the log level
// of the configuration file takes effect.
func TestDaemonSIGHUPWithJobInFlight(t *testing.T) {
	d := newSecureDaemon(t)
	d.cfg.Daemon.ShutdownGrace = config.Duration(5 * time.Second)
	d.cfg.Daemon.Dev = false // --dev turns it on
	d.cfg.Logging.Level = "error"
	file := filepath.Join(d.dir, "cuzk.toml")
	writeCfg := func() {
		b, err := config.Encode(d.cfg)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(file, b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	writeCfg()
	exited := make(chan string, 1)
	go func() {
		out, code := run(t, "daemon", "--config", file, "--dev")
		exited <- fmt.Sprintf("exit %d: %s", code, out)
	}()
	c := d.dial(t, auth.Write)
	waitUp(t, c) // the signal handlers are in place

	sc := synthetic.Default(1 << 12)
	sc.Seed = 11
	answered := make(chan error, 1)
	go func() {
		_, err := c.Prove(context.Background(), &cuzkv1.SubmitProofRequest{
			RequestId: "hup", ProofKind: cuzkv1.ProofKind_POREP_SEAL_COMMIT,
			VanillaProof: circuits.SyntheticDescriptor(sc, 4),
		})
		answered <- err
	}()
	time.Sleep(200 * time.Millisecond)
	serial := func() int64 {
		cfg, _ := client.TLSConfig(d.pki.CA, "", "")
		cfg.ServerName = "127.0.0.1"
		conn, err := tls.Dial("tcp", d.cfg.Daemon.Listen, cfg)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		return conn.ConnectionState().PeerCertificates[0].SerialNumber.Int64()
	}
	before := serial()
	cert, key := d.pki.Issue(t, "renewed", 99, 0)
	if err := os.Rename(cert, d.pki.Cert); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(key, d.pki.Key); err != nil {
		t.Fatal(err)
	}
	d.cfg.Logging.Level = "debug"
	writeCfg()
	if err := syscall.Kill(os.Getpid(), syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for serial() == before {
		if time.Now().After(deadline) {
			t.Fatal("certificate not reloaded 10s after SIGHUP")
		}
		time.Sleep(20 * time.Millisecond)
	}
	select {
	case err := <-answered:
		if err != nil {
			t.Fatalf("Prove in flight across SIGHUP: %v", err)
		}
	case <-time.After(2 * time.Minute):
		t.Fatal("Prove in flight across SIGHUP did not finish")
	}
	select {
	case out := <-exited:
		t.Fatalf("daemon exited on SIGHUP: %s", out)
	default:
	}
	if err := syscall.Kill(os.Getpid(), syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case out := <-exited:
		if !strings.HasPrefix(out, "exit 0") {
			t.Errorf("daemon after SIGTERM: %s", out)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("daemon still running 30s after SIGTERM")
	}
}

// The reload takes logging.level from the configuration file, unless
// --log-level was given.
func TestReloadLogLevel(t *testing.T) {
	file := filepath.Join(t.TempDir(), "cuzk.toml")
	if err := os.WriteFile(file, []byte("[logging]\nlevel = \"debug\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	for _, flag := range []bool{false, true} {
		level := new(slog.LevelVar)
		level.Set(slog.LevelError)
		(&reloader{configPath: file, levelFlag: flag, level: level}).logLevel(log)
		want := slog.LevelDebug
		if flag {
			want = slog.LevelError
		}
		if level.Level() != want {
			t.Errorf("--log-level given %v: level %v after reload, want %v", flag, level.Level(), want)
		}
	}
}

func TestRaiseFDLimit(t *testing.T) {
	raiseFDLimit(slog.New(slog.NewTextHandler(io.Discard, nil)))
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		t.Fatal(err)
	}
	if lim.Cur != lim.Max {
		t.Errorf("soft open-file limit %d after raising, hard %d", lim.Cur, lim.Max)
	}
}
