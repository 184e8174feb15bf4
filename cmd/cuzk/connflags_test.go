package main

import (
	"crypto/tls"
	"net"
	"path/filepath"
	"strings"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"

	"github.com/cuzk-project/cuzk/server/tlstest"
)

// A plaintext command against a TLS port says that the port speaks TLS
// and to give --cacert, not that no daemon is running.
func TestPlaintextAgainstTLSSaysSo(t *testing.T) {
	pki := tlstest.New(t)
	cert, err := tls.LoadX509KeyPair(pki.Cert, pki.Key)
	if err != nil {
		t.Fatal(err)
	}
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	g := grpc.NewServer(grpc.Creds(credentials.NewTLS(&tls.Config{Certificates: []tls.Certificate{cert}})))
	go g.Serve(lis)
	t.Cleanup(g.Stop)
	t.Setenv("CUZK_API_INFO", "")
	out, code := run(t, "status", "--addr", lis.Addr().String(), "--timeout", "10s")
	if code == 0 || !strings.Contains(out, "speaks TLS") || !strings.Contains(out, "--cacert") || strings.Contains(out, "is `cuzk daemon` running") {
		t.Errorf("status in plaintext against TLS (exit %d): %s", code, out)
	}
}

// cuzk bench --addr takes the connection flags of the operator commands.
func TestBenchConnFlags(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "no-ca.pem")
	out, code := run(t, "bench", "--addr", "127.0.0.1:1", "--cacert", missing, "--token", "x", "--count", "1")
	if code == 0 || !strings.Contains(out, "CA file") {
		t.Errorf("bench --cacert of a missing file (exit %d): %s", code, out)
	}
}
