package server

import (
	"context"
	"crypto/tls"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/cuzk-project/cuzk/auth"
	"github.com/cuzk-project/cuzk/engine"
	cuzkv1 "github.com/cuzk-project/cuzk/proto/cuzk/v1"
	"github.com/cuzk-project/cuzk/server/tlstest"
)

// serveOpts runs a Server with opts over the fake engine until the test
// ends and returns it listening.
func serveOpts(t *testing.T, eng Engine, opts Options) *Server {
	t.Helper()
	if opts.Log == nil {
		opts.Log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	s := New(eng, opts)
	if err := s.Listen(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx) }()
	t.Cleanup(func() {
		cancel()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Error("server did not stop")
		}
	})
	return s
}

func dialTCP(t testing.TB, addr string, creds credentials.TransportCredentials) cuzkv1.ProvingEngineClient {
	t.Helper()
	conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(creds))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return cuzkv1.NewProvingEngineClient(conn)
}

func withToken(ctx context.Context, tok string) context.Context {
	if tok == "" {
		return ctx
	}
	return metadata.AppendToOutgoingContext(ctx, "authorization", "Bearer "+tok)
}

// rpcs calls each ProvingEngine method once.
var rpcs = []struct {
	name string
	need auth.Permission
	call func(ctx context.Context, c cuzkv1.ProvingEngineClient) error
}{
	{"GetStatus", auth.Read, func(ctx context.Context, c cuzkv1.ProvingEngineClient) error {
		_, err := c.GetStatus(ctx, &cuzkv1.GetStatusRequest{})
		return err
	}},
	{"GetMetrics", auth.Read, func(ctx context.Context, c cuzkv1.ProvingEngineClient) error {
		_, err := c.GetMetrics(ctx, &cuzkv1.GetMetricsRequest{})
		return err
	}},
	{"AwaitProof", auth.Read, func(ctx context.Context, c cuzkv1.ProvingEngineClient) error {
		_, err := c.AwaitProof(ctx, &cuzkv1.AwaitProofRequest{JobId: "nobody", TimeoutMs: 1})
		return err
	}},
	{"SubmitProof", auth.Write, func(ctx context.Context, c cuzkv1.ProvingEngineClient) error {
		_, err := c.SubmitProof(ctx, porep("sec-submit"))
		return err
	}},
	{"Prove", auth.Write, func(ctx context.Context, c cuzkv1.ProvingEngineClient) error {
		_, err := c.Prove(ctx, &cuzkv1.ProveRequest{Submit: porep("sec-prove")})
		return err
	}},
	{"CancelProof", auth.Write, func(ctx context.Context, c cuzkv1.ProvingEngineClient) error {
		_, err := c.CancelProof(ctx, &cuzkv1.CancelProofRequest{JobId: "nobody"})
		return err
	}},
	{"PreloadSRS", auth.Admin, func(ctx context.Context, c cuzkv1.ProvingEngineClient) error {
		_, err := c.PreloadSRS(ctx, &cuzkv1.PreloadSrsRequest{CircuitId: "synthetic"})
		return err
	}},
	{"EvictSRS", auth.Admin, func(ctx context.Context, c cuzkv1.ProvingEngineClient) error {
		_, err := c.EvictSRS(ctx, &cuzkv1.EvictSrsRequest{CircuitId: "synthetic"})
		return err
	}},
}

// Every token against every RPC, over TLS: no or a bad token is
// Unauthenticated, a too weak one PermissionDenied, a strong enough one
// reaches the engine (whose answer, NotFound for an unknown job, is not
// an auth code).
func TestTokenPermissions(t *testing.T) {
	pki := tlstest.New(t)
	secret, _ := auth.NewSecret()
	other, _ := auth.NewSecret()
	eng := newFakeEngine()
	eng.autoFinish = true
	s := serveOpts(t, eng, Options{Listen: "127.0.0.1:0", TLS: &TLSFiles{Cert: pki.Cert, Key: pki.Key}, Secret: secret})
	c := dialTCP(t, s.Addr().String(), credentials.NewTLS(pki.ClientTLS(t, false)))

	tokens := []struct {
		name  string
		tok   string
		grant auth.Permission // "" = none
		bad   bool
	}{
		{name: "none", bad: true},
		{name: "garbage", tok: "not-a-jwt", bad: true},
		{name: "other secret", tok: mustToken(t, other, auth.Admin), bad: true},
		{name: "read", tok: mustToken(t, secret, auth.Read), grant: auth.Read},
		{name: "write", tok: mustToken(t, secret, auth.Write), grant: auth.Write},
		{name: "admin", tok: mustToken(t, secret, auth.Admin), grant: auth.Admin},
	}
	for _, tk := range tokens {
		for _, r := range rpcs {
			err := r.call(withToken(ctxT(t), tk.tok), c)
			code := status.Code(err)
			var want codes.Code
			switch {
			case tk.bad:
				want = codes.Unauthenticated
			case !auth.Allows(auth.UpTo(tk.grant), r.need):
				want = codes.PermissionDenied
			}
			if want != codes.OK {
				if code != want {
					t.Errorf("%s token, %s: %v, want %v", tk.name, r.name, err, want)
				}
			} else if code == codes.Unauthenticated || code == codes.PermissionDenied {
				t.Errorf("%s token, %s: %v, want it let through", tk.name, r.name, err)
			}
		}
	}
	// The health service wants a read token.
	conn, err := grpc.NewClient(s.Addr().String(), grpc.WithTransportCredentials(credentials.NewTLS(pki.ClientTLS(t, false))))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	health := healthpb.NewHealthClient(conn)
	if _, err := health.Check(ctxT(t), &healthpb.HealthCheckRequest{}); status.Code(err) != codes.Unauthenticated {
		t.Errorf("health check without a token: %v, want Unauthenticated", err)
	}
	if _, err := health.Check(withToken(ctxT(t), mustToken(t, secret, auth.Read)), &healthpb.HealthCheckRequest{}); err != nil {
		t.Errorf("health check with a read token: %v", err)
	}
	text, _ := s.metrics.Text()
	if !strings.Contains(text, `cuzk_rpc_requests_total{code="Unauthenticated",method="/cuzk.v1.ProvingEngine/Prove"} 3`) ||
		!strings.Contains(text, `cuzk_rpc_requests_total{code="PermissionDenied",method="/cuzk.v1.ProvingEngine/EvictSRS"} 2`) {
		t.Errorf("refused RPCs not counted:\n%s", grepLines(text, "cuzk_rpc_requests_total"))
	}
}

func mustToken(t testing.TB, s auth.Secret, p auth.Permission) string {
	t.Helper()
	tok, err := auth.NewToken(s, p)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// The unix socket asks for no token even when the daemon has a secret:
// Curio's client, which sends none, keeps working there.
func TestUnixSocketNeedsNoToken(t *testing.T) {
	secret, _ := auth.NewSecret()
	eng := newFakeEngine()
	eng.autoFinish = true
	sock := filepath.Join(shortTempDir(t), "cuzk.sock")
	serveOpts(t, eng, Options{Listen: "unix://" + sock, Secret: secret})
	c := dialUnix(t, sock)
	for _, r := range rpcs {
		if code := status.Code(r.call(ctxT(t), c)); code == codes.Unauthenticated || code == codes.PermissionDenied {
			t.Errorf("%s over the unix socket: %v", r.name, code)
		}
	}
}

// A TCP listener without a secret refuses to start unless told it may
// run open; TLS on a unix socket is refused.
func TestListenRefusesOpenTCP(t *testing.T) {
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	pki := tlstest.New(t)
	cases := []struct {
		name string
		opts Options
		want error
	}{
		{"tcp open", Options{Listen: "127.0.0.1:0"}, ErrUnauthenticatedTCP},
		{"http on all interfaces open", Options{Listen: "unix://" + filepath.Join(shortTempDir(t), "s.sock"), StatusListen: "0.0.0.0:0"}, ErrUnauthenticatedTCP},
		{"tls on unix", Options{Listen: "unix://" + filepath.Join(shortTempDir(t), "s.sock"), TLS: &TLSFiles{Cert: pki.Cert, Key: pki.Key}}, nil},
		{"tls files missing", Options{Listen: "127.0.0.1:0", InsecureAllowUnauthenticated: true, TLS: &TLSFiles{Cert: "/nonexistent.pem", Key: pki.Key}}, os.ErrNotExist},
	}
	for _, c := range cases {
		c.opts.Log = log
		s := New(newFakeEngine(), c.opts)
		err := s.Listen()
		if err == nil {
			s.lis.Close()
			if s.httpLis != nil {
				s.httpLis.Close()
			}
			t.Errorf("%s: Listen succeeded", c.name)
			continue
		}
		if c.want != nil && !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", c.name, err, c.want)
		}
	}
	s := New(newFakeEngine(), Options{Listen: "127.0.0.1:0", InsecureAllowUnauthenticated: true, Log: log})
	if err := s.Listen(); err != nil {
		t.Fatalf("TCP with --insecure-allow-unauthenticated: %v", err)
	}
	s.lis.Close()
}

// A plaintext client against the TLS port fails promptly with
// Unavailable, and TLS clients are still served after it.
func TestPlaintextAgainstTLS(t *testing.T) {
	pki := tlstest.New(t)
	s := serveOpts(t, newFakeEngine(), Options{Listen: "127.0.0.1:0", TLS: &TLSFiles{Cert: pki.Cert, Key: pki.Key}, InsecureAllowUnauthenticated: true})
	plain := dialTCP(t, s.Addr().String(), insecure.NewCredentials())
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	start := time.Now()
	_, err := plain.GetStatus(ctx, &cuzkv1.GetStatusRequest{})
	if status.Code(err) != codes.Unavailable {
		t.Fatalf("plaintext GetStatus against TLS: %v, want Unavailable", err)
	}
	if el := time.Since(start); el > 4*time.Second {
		t.Errorf("plaintext client took %v to fail", el)
	}
	// A client that does not trust the CA fails too.
	untrusted := dialTCP(t, s.Addr().String(), credentials.NewTLS(&tls.Config{ServerName: "127.0.0.1"}))
	if _, err := untrusted.GetStatus(ctxT(t), &cuzkv1.GetStatusRequest{}); status.Code(err) != codes.Unavailable {
		t.Errorf("untrusting client: %v, want Unavailable", err)
	}
	good := dialTCP(t, s.Addr().String(), credentials.NewTLS(pki.ClientTLS(t, false)))
	if _, err := good.GetStatus(ctxT(t), &cuzkv1.GetStatusRequest{}); err != nil {
		t.Fatalf("TLS client after a plaintext one: %v", err)
	}
}

// With a client CA, a client without a certificate is refused and one
// with a certificate the CA signed is served.
func TestMutualTLS(t *testing.T) {
	pki := tlstest.New(t)
	s := serveOpts(t, newFakeEngine(), Options{Listen: "127.0.0.1:0", InsecureAllowUnauthenticated: true,
		TLS: &TLSFiles{Cert: pki.Cert, Key: pki.Key, ClientCA: pki.CA}})
	anon := dialTCP(t, s.Addr().String(), credentials.NewTLS(pki.ClientTLS(t, false)))
	if _, err := anon.GetStatus(ctxT(t), &cuzkv1.GetStatusRequest{}); status.Code(err) != codes.Unavailable {
		t.Errorf("client without a certificate: %v, want Unavailable", err)
	}
	mine := dialTCP(t, s.Addr().String(), credentials.NewTLS(pki.ClientTLS(t, true)))
	if _, err := mine.GetStatus(ctxT(t), &cuzkv1.GetStatusRequest{}); err != nil {
		t.Fatalf("client with a certificate: %v", err)
	}
}

// Reload swaps the certificate for new handshakes; a connection made
// before keeps working, and a failed reload keeps the old certificate.
func TestTLSReload(t *testing.T) {
	pki := tlstest.New(t)
	s := serveOpts(t, newFakeEngine(), Options{Listen: "127.0.0.1:0", InsecureAllowUnauthenticated: true, TLS: &TLSFiles{Cert: pki.Cert, Key: pki.Key}})
	before := dialTCP(t, s.Addr().String(), credentials.NewTLS(pki.ClientTLS(t, false)))
	if _, err := before.GetStatus(ctxT(t), &cuzkv1.GetStatusRequest{}); err != nil {
		t.Fatal(err)
	}
	serial := func() int64 {
		conn, err := tls.Dial("tcp", s.Addr().String(), &tls.Config{RootCAs: pki.ClientTLS(t, false).RootCAs, ServerName: "127.0.0.1", NextProtos: []string{"h2"}})
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		return conn.ConnectionState().PeerCertificates[0].SerialNumber.Int64()
	}
	if got := serial(); got != 2 {
		t.Fatalf("serial before reload %d", got)
	}
	cert, key := pki.Issue(t, "server2", 7, 0)
	os.Rename(cert, pki.Cert)
	os.Rename(key, pki.Key)
	if err := s.Reload(); err != nil {
		t.Fatal(err)
	}
	if got := serial(); got != 7 {
		t.Errorf("serial after reload %d, want 7", got)
	}
	if _, err := before.GetStatus(ctxT(t), &cuzkv1.GetStatusRequest{}); err != nil {
		t.Errorf("connection made before the reload: %v", err)
	}
	os.WriteFile(pki.Cert, []byte("not pem"), 0o600)
	if err := s.Reload(); err == nil {
		t.Error("Reload of a broken certificate succeeded")
	}
	if got := serial(); got != 7 {
		t.Errorf("serial after a failed reload %d, want 7 (kept)", got)
	}
}

// Idle connections up to the limit and beyond do not lock out a client:
// the newest real client and one already connected are both served, and
// the listener never holds more than its limit.
func TestConnectionLimit(t *testing.T) {
	const limit = 16
	eng := newFakeEngine()
	s := serveOpts(t, eng, Options{Listen: "127.0.0.1:0", InsecureAllowUnauthenticated: true, MaxConnections: limit})
	addr := s.Addr().String()
	early := dialTCP(t, addr, insecure.NewCredentials())
	if _, err := early.SubmitProof(ctxT(t), porep("long")); err != nil {
		t.Fatal(err)
	}
	// early holds an RPC in progress: an AwaitProof that outlasts the flood.
	awaited := make(chan error, 1)
	go func() {
		_, err := early.AwaitProof(ctxT(t), &cuzkv1.AwaitProofRequest{JobId: "long"})
		awaited <- err
	}()
	time.Sleep(50 * time.Millisecond)
	var idle []net.Conn
	for range 5 * limit {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		idle = append(idle, c)
	}
	defer func() {
		for _, c := range idle {
			c.Close()
		}
	}()
	time.Sleep(100 * time.Millisecond)
	if n := s.limiter.open(); n > limit {
		t.Errorf("%d connections held, limit %d", n, limit)
	}
	late := dialTCP(t, addr, insecure.NewCredentials())
	if _, err := late.GetStatus(ctxT(t), &cuzkv1.GetStatusRequest{}); err != nil {
		t.Fatalf("client after %d idle connections: %v", len(idle), err)
	}
	eng.finish("long", engine.Result{Status: engine.StatusCompleted, Proof: make([]byte, 192)})
	if err := <-awaited; err != nil {
		t.Errorf("AwaitProof in progress during the flood: %v", err)
	}
	if n := s.limiter.open(); n > limit {
		t.Errorf("%d connections held, limit %d", n, limit)
	}
	if s.limiter.refused.Load() == 0 && s.limiter.open() == limit {
		t.Log("every flood connection was taken in by evicting an older one")
	}
}

// A gRPC connection with no RPC for the idle timeout is closed by the
// server (the client reconnects on its next call).
func TestIdleTimeout(t *testing.T) {
	s := serveOpts(t, newFakeEngine(), Options{Listen: "127.0.0.1:0", InsecureAllowUnauthenticated: true, IdleTimeout: 200 * time.Millisecond})
	c := dialTCP(t, s.Addr().String(), insecure.NewCredentials())
	if _, err := c.GetStatus(ctxT(t), &cuzkv1.GetStatusRequest{}); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for s.limiter.open() != 0 {
		if time.Now().After(deadline) {
			t.Fatalf("%d connections still open after the idle timeout", s.limiter.open())
		}
		time.Sleep(20 * time.Millisecond)
	}
	if _, err := c.GetStatus(ctxT(t), &cuzkv1.GetStatusRequest{}); err != nil {
		t.Fatalf("call after the idle close: %v", err)
	}
}

// Off loopback the HTTP listener wants a read token for /status and
// /metrics; /healthz stays open.
func TestHTTPTokenOffLoopback(t *testing.T) {
	secret, _ := auth.NewSecret()
	sock := filepath.Join(shortTempDir(t), "cuzk.sock")
	s := serveOpts(t, newFakeEngine(), Options{Listen: "unix://" + sock, StatusListen: "0.0.0.0:0", Secret: secret})
	_, port, _ := net.SplitHostPort(s.StatusAddr().String())
	base := "http://127.0.0.1:" + port
	get := func(path, tok string) int {
		req, _ := http.NewRequest("GET", base+path, nil)
		if tok != "" {
			req.Header.Set("Authorization", "Bearer "+tok)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	other, _ := auth.NewSecret()
	cases := []struct {
		path, tok string
		want      int
	}{
		{"/status", "", 401},
		{"/metrics", "", 401},
		{"/status", mustToken(t, other, auth.Admin), 401},
		{"/status", mustToken(t, secret, auth.Read), 200},
		{"/metrics", mustToken(t, secret, auth.Read), 200},
		{"/healthz", "", 200},
	}
	for _, c := range cases {
		if got := get(c.path, c.tok); got != c.want {
			t.Errorf("GET %s (token %v): %d, want %d", c.path, c.tok != "", got, c.want)
		}
	}
}

// A status listener given without a host binds loopback.
func TestStatusListenDefaultsToLoopback(t *testing.T) {
	sock := filepath.Join(shortTempDir(t), "cuzk.sock")
	s := serveOpts(t, newFakeEngine(), Options{Listen: "unix://" + sock, StatusListen: ":0"})
	if ip := s.StatusAddr().(*net.TCPAddr).IP; !ip.IsLoopback() {
		t.Fatalf("status listener bound to %v", ip)
	}
}

// At the limit with every connection a gRPC one, the idle ones make room
// and the one with an RPC in progress is never closed.
func TestConnectionLimitKeepsActive(t *testing.T) {
	const limit = 4
	eng := newFakeEngine()
	s := serveOpts(t, eng, Options{Listen: "127.0.0.1:0", InsecureAllowUnauthenticated: true, MaxConnections: limit})
	addr := s.Addr().String()
	busy := dialTCP(t, addr, insecure.NewCredentials())
	if _, err := busy.SubmitProof(ctxT(t), porep("held")); err != nil {
		t.Fatal(err)
	}
	awaited := make(chan error, 1)
	go func() {
		_, err := busy.AwaitProof(ctxT(t), &cuzkv1.AwaitProofRequest{JobId: "held"})
		awaited <- err
	}()
	time.Sleep(50 * time.Millisecond)
	for i := range 3 * limit { // each a new connection, idle after its call
		c := dialTCP(t, addr, insecure.NewCredentials())
		if _, err := c.GetStatus(ctxT(t), &cuzkv1.GetStatusRequest{}); err != nil {
			t.Fatalf("client %d: %v", i, err)
		}
		if n := s.limiter.open(); n > limit {
			t.Fatalf("%d connections held, limit %d", n, limit)
		}
	}
	select {
	case err := <-awaited:
		t.Fatalf("the AwaitProof in progress ended early: %v", err)
	default:
	}
	eng.finish("held", engine.Result{Status: engine.StatusCompleted, Proof: make([]byte, 192)})
	if err := <-awaited; err != nil {
		t.Fatalf("AwaitProof in progress while its connection was needed: %v", err)
	}
}

// During the drain /status, /metrics and /healthz keep answering and say
// so; Serve reports that the grace period cut an RPC off.
func TestDrainKeepsHTTP(t *testing.T) {
	eng := newFakeEngine()
	s, sock, cancel, done := startServer(t, eng, 800*time.Millisecond)
	cli := dialUnix(t, sock)
	if _, err := cli.SubmitProof(ctxT(t), porep("stuck")); err != nil {
		t.Fatal(err)
	}
	go cli.AwaitProof(ctxT(t), &cuzkv1.AwaitProofRequest{JobId: "stuck"})
	time.Sleep(50 * time.Millisecond)
	cancel()
	time.Sleep(100 * time.Millisecond) // draining now
	base := "http://" + s.StatusAddr().String()
	for path, want := range map[string]string{"/healthz": "draining", "/status": `"draining": true`, "/metrics": "cuzk_queue_depth"} {
		resp, err := http.Get(base + path)
		if err != nil {
			t.Fatalf("GET %s while draining: %v", path, err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || !strings.Contains(string(body), want) {
			t.Errorf("GET %s while draining: %d %q, want %q", path, resp.StatusCode, grepLines(string(body), want), want)
		}
	}
	if err := <-done; !errors.Is(err, ErrCutOff) {
		t.Errorf("Serve: %v, want ErrCutOff", err)
	}
	done <- nil
}
