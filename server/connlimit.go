package server

import (
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"google.golang.org/grpc/stats"
)

// Bounds on a listener's connections and on what one connection may
// hold. Without them idle connections (20,020 of them in a probe)
// exhaust the fd table, and one connection's streams (50,000 in a probe)
// take a goroutine and its buffers each.
const (
	// DefaultMaxConnections bounds each listener's open connections:
	// the gRPC listener (unix socket or TCP) and the HTTP status
	// listener, each on its own.
	DefaultMaxConnections = 1024
	// DefaultMaxStreams bounds the RPCs one gRPC connection may have
	// open at once (HTTP/2 SETTINGS_MAX_CONCURRENT_STREAMS). A gRPC
	// client queues calls beyond it until one ends; a client that
	// ignores the setting has the extra streams refused.
	DefaultMaxStreams = 256
	// DefaultIdleTimeout closes a gRPC connection with no RPC for this
	// long (keepalive MaxConnectionIdle); the client reconnects when it
	// next calls.
	DefaultIdleTimeout = 5 * time.Minute
	// handshakeTimeout bounds the TLS and HTTP/2 handshake of a new
	// connection (grpc.ConnectionTimeout).
	handshakeTimeout = 20 * time.Second
	// keepaliveTime and keepaliveTimeout: a gRPC connection silent for
	// keepaliveTime is pinged and closed when the ping is not answered
	// within keepaliveTimeout, so a peer that vanished (a cut link, a
	// machine powered off) gives its slot and its RPCs back.
	keepaliveTime    = 2 * time.Minute
	keepaliveTimeout = 20 * time.Second
	// minPingInterval is the most often a client may ping; one pinging
	// more often is sent GOAWAY (too_many_pings). gRPC clients cannot
	// be set to ping more often than every 10 s, so no configured
	// client is refused, and a ping flood is.
	minPingInterval = 10 * time.Second
)

// connLimiter is a listener that holds at most max connections. When a
// connection arrives at the limit it makes room by closing, in this
// order:
//
//  1. the oldest connection whose protocol never began (no completed
//     gRPC handshake, no HTTP request read);
//  2. the connection idle longest with no RPC or request at all;
//  3. the connection idle longest whose only RPCs are streams (a health
//     Watch, server reflection): such a stream waits on the server
//     without end, so it must not hold its slot against a new client.
//
// A connection with a unary RPC or an HTTP request in progress (Prove,
// AwaitProof, GetStatus, /status) is never closed. When no connection
// can be closed the new one is. So a flood of idle connections or of
// open streams costs at most max descriptors and never shuts out a
// client that comes to do work, an admin's `cuzk status` included.
//
// For gRPC it is the server's stats.Handler (through lazyStats): gRPC
// tells it which connections completed their handshake and when RPCs
// begin and end on them. Connections are matched by their remote
// address: a TCP peer's is unique on one listener, and a unix socket
// peer, which has none, is given one (peerAddr). For HTTP,
// httpConnState is the server's ConnState hook.
type connLimiter struct {
	net.Listener
	max int
	// ids numbers the connections of a unix socket (peerAddr).
	ids atomic.Uint64

	mu    sync.Mutex
	conns map[string]*limitedConn
	// refused counts connections closed at accept for want of room;
	// evicted those closed to make room.
	refused, evicted atomic.Uint64
}

func newConnLimiter(l net.Listener, max int) *connLimiter {
	return &connLimiter{Listener: l, max: max, conns: map[string]*limitedConn{}}
}

type limitedConn struct {
	net.Conn
	l        *connLimiter
	addr     net.Addr // what RemoteAddr answers; its String is the key
	accepted time.Time
	started  atomic.Bool  // gRPC handshake complete, or an HTTP request read
	working  atomic.Int32 // unary RPCs or HTTP requests in progress
	streams  atomic.Int32 // streaming RPCs open
	idleFrom atomic.Int64 // unix ns when working last became 0
	once     sync.Once
}

// peerAddr names a unix socket peer, whose own address is empty, so
// that the stats handler can tell its connections apart.
type peerAddr uint64

func (peerAddr) Network() string  { return "unix" }
func (a peerAddr) String() string { return fmt.Sprintf("unix-peer-%d", uint64(a)) }

func (c *limitedConn) RemoteAddr() net.Addr { return c.addr }

func (c *limitedConn) Close() error {
	c.once.Do(func() {
		c.l.mu.Lock()
		if c.l.conns[c.addr.String()] == c {
			delete(c.l.conns, c.addr.String())
		}
		c.l.mu.Unlock()
	})
	return c.Conn.Close()
}

func (l *connLimiter) Accept() (net.Conn, error) {
	for {
		nc, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		c := &limitedConn{Conn: nc, l: l, addr: nc.RemoteAddr(), accepted: time.Now()}
		if _, unix := nc.(*net.UnixConn); unix || c.addr == nil {
			c.addr = peerAddr(l.ids.Add(1))
		}
		c.idleFrom.Store(c.accepted.UnixNano())
		l.mu.Lock()
		var victim *limitedConn
		if len(l.conns) >= l.max {
			victim = l.victimLocked()
		}
		full := len(l.conns) >= l.max && victim == nil
		if !full {
			l.conns[c.addr.String()] = c
		}
		l.mu.Unlock()
		if victim != nil {
			l.evicted.Add(1)
			victim.Close()
		}
		if full {
			l.refused.Add(1)
			nc.Close()
			continue
		}
		return c, nil
	}
}

// victimLocked picks the connection to close for a new one, or nil.
func (l *connLimiter) victimLocked() *limitedConn {
	var best *limitedConn
	bestRank, bestSince := 3, int64(0)
	for _, c := range l.conns {
		rank, since := c.evictRank()
		if rank < bestRank || (rank == bestRank && since < bestSince) {
			best, bestRank, bestSince = c, rank, since
		}
	}
	return best
}

// evictRank orders connections for closing (lowest first; 3: never)
// and, within a rank, by since (oldest first).
func (c *limitedConn) evictRank() (rank int, since int64) {
	switch {
	case !c.started.Load():
		return 0, c.accepted.UnixNano()
	case c.working.Load() > 0:
		return 3, 0
	case c.streams.Load() == 0:
		return 1, c.idleFrom.Load()
	default:
		return 2, c.idleFrom.Load()
	}
}

// open is the number of connections held.
func (l *connLimiter) open() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.conns)
}

// openStreams is the number of streaming RPCs open on the connections
// held.
func (l *connLimiter) openStreams() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, c := range l.conns {
		n += int(c.streams.Load())
	}
	return n
}

func (l *connLimiter) lookup(addr net.Addr) *limitedConn {
	if addr == nil {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.conns[addr.String()]
}

// httpConnState is the HTTP server's ConnState hook: a connection
// reading or answering a request is working, one between requests is
// idle.
func (l *connLimiter) httpConnState(nc net.Conn, st http.ConnState) {
	if tc, ok := nc.(*tls.Conn); ok {
		nc = tc.NetConn()
	}
	c, ok := nc.(*limitedConn)
	if !ok {
		return
	}
	switch st {
	case http.StateActive:
		c.started.Store(true)
		c.working.Store(1)
	case http.StateIdle:
		c.idleFrom.Store(time.Now().UnixNano())
		c.working.Store(0)
	}
}

type connKey struct{}

// rpcKind remembers, from an RPC's Begin to its End, whether it is a
// stream.
type rpcKind struct{ stream bool }

type rpcKey struct{}

func (l *connLimiter) TagConn(ctx context.Context, info *stats.ConnTagInfo) context.Context {
	c := l.lookup(info.RemoteAddr)
	if c == nil {
		return ctx
	}
	c.started.Store(true)
	return context.WithValue(ctx, connKey{}, c)
}

func (l *connLimiter) HandleConn(context.Context, stats.ConnStats) {}

func (l *connLimiter) TagRPC(ctx context.Context, _ *stats.RPCTagInfo) context.Context {
	if ctx.Value(connKey{}) == nil {
		return ctx
	}
	return context.WithValue(ctx, rpcKey{}, &rpcKind{})
}

func (l *connLimiter) HandleRPC(ctx context.Context, s stats.RPCStats) {
	c, _ := ctx.Value(connKey{}).(*limitedConn)
	k, _ := ctx.Value(rpcKey{}).(*rpcKind)
	if c == nil || k == nil {
		return
	}
	switch s := s.(type) {
	case *stats.Begin:
		k.stream = s.IsClientStream || s.IsServerStream
		if k.stream {
			c.streams.Add(1)
		} else {
			c.working.Add(1)
		}
	case *stats.End:
		if k.stream {
			c.streams.Add(-1)
		} else if c.working.Add(-1) == 0 {
			c.idleFrom.Store(time.Now().UnixNano())
		}
	}
}

// lazyStats forwards to the connLimiter that Listen installs later; the
// gRPC server, built before, takes its stats handler at construction.
type lazyStats struct{ l atomic.Pointer[connLimiter] }

func (s *lazyStats) TagConn(ctx context.Context, i *stats.ConnTagInfo) context.Context {
	if l := s.l.Load(); l != nil {
		return l.TagConn(ctx, i)
	}
	return ctx
}
func (s *lazyStats) HandleConn(ctx context.Context, cs stats.ConnStats) {}
func (s *lazyStats) TagRPC(ctx context.Context, i *stats.RPCTagInfo) context.Context {
	if l := s.l.Load(); l != nil {
		return l.TagRPC(ctx, i)
	}
	return ctx
}
func (s *lazyStats) HandleRPC(ctx context.Context, rs stats.RPCStats) {
	if l := s.l.Load(); l != nil {
		l.HandleRPC(ctx, rs)
	}
}
