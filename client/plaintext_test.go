package client

import (
	"context"
	"crypto/tls"
	"errors"
	"net"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/status"

	cuzkv1 "github.com/cuzk-project/cuzk/proto/cuzk/v1"
	"github.com/cuzk-project/cuzk/server/tlstest"
)

// serveTCP runs the fake daemon on a loopback TCP port, over TLS when
// cfg is set, and returns its address.
func serveTCP(t *testing.T, cfg *tls.Config) string {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var opts []grpc.ServerOption
	if cfg != nil {
		opts = append(opts, grpc.Creds(credentials.NewTLS(cfg)))
	}
	g := grpc.NewServer(opts...)
	cuzkv1.RegisterProvingEngineServer(g, &daemon{})
	go g.Serve(lis)
	t.Cleanup(g.Stop)
	return lis.Addr().String()
}

func serverTLS(t *testing.T, pki *tlstest.PKI, clientCA bool) *tls.Config {
	cert, err := tls.LoadX509KeyPair(pki.Cert, pki.Key)
	if err != nil {
		t.Fatal(err)
	}
	cfg := &tls.Config{Certificates: []tls.Certificate{cert}}
	if clientCA {
		cfg.ClientAuth = tls.RequireAnyClientCert
	}
	return cfg
}

// A plaintext client of a TLS listener is told that the listener speaks
// TLS, with the hint, instead of gRPC's "error reading server preface";
// a client of a port where nothing listens, or of a plaintext daemon, is
// told what it was before.
func TestPlaintextCheck(t *testing.T) {
	pki := tlstest.New(t)
	dead, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	deadAddr := dead.Addr().String()
	dead.Close()
	cases := []struct {
		name    string
		addr    string
		wantTLS bool
		code    codes.Code // when not TLS
	}{
		{"TLS", serveTCP(t, serverTLS(t, pki, false)), true, 0},
		{"mutual TLS", serveTCP(t, serverTLS(t, pki, true)), true, 0},
		{"nothing listening", deadAddr, false, codes.Unavailable},
		{"plaintext daemon", serveTCP(t, nil), false, codes.OK},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cl, err := Dial(c.addr, WithPlaintextCheck("give --cacert"))
			if err != nil {
				t.Fatal(err)
			}
			defer cl.Close()
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			_, err = cl.Status(ctx)
			if got := errors.Is(err, ErrSpeaksTLS); got != c.wantTLS {
				t.Fatalf("Status: %v; speaks TLS %v, want %v", err, got, c.wantTLS)
			}
			if c.wantTLS {
				if !strings.Contains(err.Error(), "give --cacert") || !strings.Contains(err.Error(), c.addr) {
					t.Errorf("error %q names neither the hint nor the address", err)
				}
				return
			}
			if code := status.Code(errors.Unwrap(err)); err != nil && code != c.code || err == nil && c.code != codes.OK {
				t.Errorf("Status: %v, want %v", err, c.code)
			}
		})
	}
}

func TestTCPEndpoint(t *testing.T) {
	for _, tt := range []struct {
		target, want string
		ok           bool
	}{
		{"dns:///127.0.0.1:9820", "127.0.0.1:9820", true},
		{"dns://8.8.8.8/prover:9820", "prover:9820", true},
		{"passthrough:///[::1]:9820", "[::1]:9820", true},
		{"unix:///run/cuzk.sock", "", false},
		{"dns:///prover", "prover", false},
	} {
		got, ok := tcpEndpoint(tt.target)
		if ok != tt.ok || ok && got != tt.want {
			t.Errorf("tcpEndpoint(%q) = %q, %v; want %q, %v", tt.target, got, ok, tt.want, tt.ok)
		}
	}
}
