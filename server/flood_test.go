package server

import (
	"context"
	"errors"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/status"

	"github.com/cuzk-project/cuzk/auth"
	cuzkv1 "github.com/cuzk-project/cuzk/proto/cuzk/v1"
	"github.com/cuzk-project/cuzk/server/tlstest"
)

// Floods of connections and streams on loopback, each against a limit
// set low, and the client that must still be served after them.

// openFDs is the number of descriptors the test process holds (Linux).
func openFDs(t *testing.T) int {
	t.Helper()
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skipf("counting descriptors: %v", err)
	}
	return len(ents)
}

// watch opens a health Watch stream on a connection of its own and
// waits for its first answer.
func watch(ctx context.Context, t *testing.T, addr string, creds credentials.TransportCredentials, tok string) error {
	conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(creds))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	w, err := healthpb.NewHealthClient(conn).Watch(withToken(ctx, tok), &healthpb.HealthCheckRequest{})
	if err != nil {
		return err
	}
	_, err = w.Recv()
	return err
}

// Open health Watch streams, one connection each and many more than the
// connection limit, do not lock out an admin on TCP with TLS: a stream
// the server holds open without end does not keep its connection from
// being closed for a new client. Without a token a Watch is refused.
func TestWatchFloodAdminServed(t *testing.T) {
	const limit = 8
	pki := tlstest.New(t)
	secret, _ := auth.NewSecret()
	s := serveOpts(t, newFakeEngine(), Options{Listen: "127.0.0.1:0", MaxConnections: limit,
		TLS: &TLSFiles{Cert: pki.Cert, Key: pki.Key}, Secret: secret})
	addr := s.Addr().String()
	creds := credentials.NewTLS(pki.ClientTLS(t, false))

	if err := watch(ctxT(t), t, addr, creds, ""); status.Code(err) != codes.Unauthenticated {
		t.Fatalf("Watch without a token: %v, want Unauthenticated", err)
	}
	ctx, cancel := context.WithCancel(ctxT(t))
	defer cancel()
	read := mustToken(t, secret, auth.Read)
	for i := range 5 * limit {
		if err := watch(ctx, t, addr, creds, read); err != nil {
			t.Fatalf("Watch %d: %v", i, err)
		}
		if n := s.limiter.open(); n > limit {
			t.Fatalf("%d connections held, limit %d", n, limit)
		}
	}
	admin := dialTCP(t, addr, creds)
	actx := withToken(ctxT(t), mustToken(t, secret, auth.Admin))
	if _, err := admin.GetStatus(actx, &cuzkv1.GetStatusRequest{}); err != nil {
		t.Fatalf("admin after %d Watch streams: %v", 5*limit, err)
	}
	if _, err := admin.EvictSRS(actx, &cuzkv1.EvictSrsRequest{CircuitId: "synthetic"}); err != nil {
		t.Fatalf("admin EvictSRS after the Watch flood: %v", err)
	}
	if s.limiter.evicted.Load() == 0 {
		t.Error("no connection was closed to make room")
	}
}

// One connection may hold at most MaxStreams RPCs at once: the streams
// beyond it are not opened on the server while those are open (a gRPC
// client waits for room, here until its deadline).
func TestStreamsPerConnection(t *testing.T) {
	const limit, tries = 8, 100
	sock := filepath.Join(shortTempDir(t), "cuzk.sock")
	s := serveOpts(t, newFakeEngine(), Options{Listen: "unix://" + sock, MaxStreams: limit})
	health := healthpb.NewHealthClient(dialConn(t, sock))
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	var (
		wg                     sync.WaitGroup
		mu                     sync.Mutex
		open, peak, serverPeak int
		unexpected             error
	)
	for range tries {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w, err := health.Watch(ctx, &healthpb.HealthCheckRequest{})
			if err == nil {
				_, err = w.Recv()
			}
			if err != nil {
				if status.Code(err) != codes.DeadlineExceeded {
					mu.Lock()
					unexpected = err
					mu.Unlock()
				}
				return
			}
			mu.Lock()
			open++
			peak = max(peak, open)
			serverPeak = max(serverPeak, s.limiter.openStreams())
			mu.Unlock()
			w.Recv() // until the deadline ends the stream
			mu.Lock()
			open--
			mu.Unlock()
		}()
	}
	wg.Wait()
	if unexpected != nil {
		t.Fatalf("Watch: %v", unexpected)
	}
	if peak > limit || serverPeak > limit {
		t.Errorf("%d streams open at once on one connection (the server counted %d), limit %d", peak, serverPeak, limit)
	}
	if peak == 0 {
		t.Error("no Watch stream opened")
	}
}

// The unix socket and the loopback HTTP status listener bound their
// connections too: a flood of raw connections costs the daemon at most
// the limit in descriptors, and `cuzk status` and GET /status are
// served after it.
func TestRawFloodEveryListener(t *testing.T) {
	const limit, flood = 16, 300
	sock := filepath.Join(shortTempDir(t), "cuzk.sock")
	s := serveOpts(t, newFakeEngine(), Options{Listen: "unix://" + sock, StatusListen: "127.0.0.1:0", MaxConnections: limit})
	cases := []struct {
		name    string
		network string
		addr    string
		// greet, when set, is sent by each flood connection, which
		// then reads the answer: it is accepted and left idle.
		greet string
		serve func() error
	}{
		{"unix socket", "unix", sock, "", func() error {
			_, err := dialUnix(t, sock).GetStatus(ctxT(t), &cuzkv1.GetStatusRequest{})
			return err
		}},
		{"HTTP status", "tcp", s.StatusAddr().String(), "GET /healthz HTTP/1.1\r\nHost: cuzk\r\n\r\n", func() error {
			resp, err := http.Get("http://" + s.StatusAddr().String() + "/status")
			if err != nil {
				return err
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				return errors.New(resp.Status)
			}
			return nil
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			before := openFDs(t)
			var conns []net.Conn
			defer func() {
				for _, nc := range conns {
					nc.Close()
				}
			}()
			for range flood {
				nc, err := net.Dial(c.network, c.addr)
				if err != nil {
					t.Fatal(err)
				}
				conns = append(conns, nc)
				if c.greet != "" {
					if _, err := nc.Write([]byte(c.greet)); err != nil {
						t.Fatal(err)
					}
					if _, err := nc.Read(make([]byte, 512)); err != nil {
						t.Fatalf("flood connection %d: %v", len(conns), err)
					}
				}
			}
			// Connections are accepted in turn: once the client after
			// the flood is served, the flood has been accepted.
			if err := c.serve(); err != nil {
				t.Errorf("served after %d connections: %v", flood, err)
			}
			// The flood's own descriptors are flood; the daemon's side
			// may hold at most limit more (and the served client's).
			if held := openFDs(t) - before - flood; held > limit+4 {
				t.Errorf("the daemon holds %d descriptors for %d connections, limit %d", held, flood, limit)
			}
		})
	}
}
