package client

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"strings"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// ErrSpeaksTLS is the error of a call made without TLS to a listener
// that speaks TLS. gRPC itself reports only that the server closed the
// connection ("error reading server preface: EOF"), which reads like a
// daemon that is not running.
var ErrSpeaksTLS = errors.New("the daemon's listener speaks TLS and this client dialed it in plaintext")

// probeTimeout bounds the TLS handshake that tells a TLS listener apart.
const probeTimeout = 3 * time.Second

// WithPlaintextCheck is for a client dialing without TLS: when a unary
// call (every ProvingEngine method is one) to a TCP address fails with Unavailable, it tries a TLS handshake with the
// address, and when the listener answers in TLS the call's error wraps
// ErrSpeaksTLS (and names hint, what the caller should give, when not
// empty) instead of the gRPC status. Calls that fail for any other
// reason keep their status.
func WithPlaintextCheck(hint string) grpc.DialOption {
	explain := func(ctx context.Context, cc *grpc.ClientConn, err error) error {
		if status.Code(err) != codes.Unavailable {
			return err
		}
		addr, ok := tcpEndpoint(cc.Target())
		if !ok || !SpeaksTLS(ctx, addr) {
			return err
		}
		if hint != "" {
			return fmt.Errorf("%s: %w (%s)", addr, ErrSpeaksTLS, hint)
		}
		return fmt.Errorf("%s: %w", addr, ErrSpeaksTLS)
	}
	unary := func(ctx context.Context, method string, req, reply any, cc *grpc.ClientConn, invoke grpc.UnaryInvoker, opts ...grpc.CallOption) error {
		return explain(ctx, cc, invoke(ctx, method, req, reply, cc, opts...))
	}
	return grpc.WithChainUnaryInterceptor(unary)
}

// tcpEndpoint is the host:port of a dns:/// or passthrough:/// target
// (what Target makes of a TCP address).
func tcpEndpoint(target string) (string, bool) {
	for _, scheme := range []string{"dns:", "passthrough:"} {
		if rest, ok := strings.CutPrefix(target, scheme); ok {
			addr := rest[strings.LastIndex(rest, "/")+1:]
			_, _, err := net.SplitHostPort(addr)
			return addr, err == nil
		}
	}
	return "", false
}

// SpeaksTLS reports whether the TCP listener at addr answers a TLS
// ClientHello in TLS: a completed handshake or a TLS alert (a listener
// wanting a client certificate). The server's certificate is not checked:
// nothing is sent over the connection, which is closed at once.
func SpeaksTLS(ctx context.Context, addr string) bool {
	ctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	var d net.Dialer
	nc, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return false
	}
	defer nc.Close()
	// The probe only asks which protocol the listener speaks; it trusts
	// nothing it is told and sends no data.
	tc := tls.Client(nc, &tls.Config{InsecureSkipVerify: true, NextProtos: []string{"h2"}}) //nolint:gosec
	err = tc.HandshakeContext(ctx)
	var alert tls.AlertError
	return err == nil || errors.As(err, &alert)
}
