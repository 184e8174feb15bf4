package server

import (
	"context"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"google.golang.org/grpc/stats"
)

// Bounds on the connections of a TCP listener. Without them, idle
// connections (20,020 of them in a probe) exhaust the fd table and lock
// real clients out.
const (
	// DefaultMaxConnections bounds a TCP listener's open connections.
	DefaultMaxConnections = 1024
	// DefaultIdleTimeout closes a gRPC connection with no RPC for this
	// long (keepalive MaxConnectionIdle); the client reconnects when it
	// next calls.
	DefaultIdleTimeout = 5 * time.Minute
	// handshakeTimeout bounds the TLS and HTTP/2 handshake of a new
	// connection (grpc.ConnectionTimeout).
	handshakeTimeout = 20 * time.Second
)

// connLimiter is a listener that holds at most max connections. When a
// connection arrives at the limit it makes room by closing, in this
// order, the oldest connection that never completed a gRPC handshake, or
// the gRPC connection idle longest with no RPC in progress; a connection
// with an RPC in progress is never closed. When neither exists the new
// connection is closed. So a flood of idle connections costs at most max
// descriptors and never shuts out a client that is still working.
//
// It is also the server's stats.Handler: gRPC tells it which connections
// completed their handshake and when RPCs begin and end on them.
// Connections are matched by their remote address, unique per TCP
// connection of one listener.
type connLimiter struct {
	net.Listener
	max int

	mu    sync.Mutex
	conns map[string]*limitedConn
	// refused counts connections closed at accept for want of room.
	refused atomic.Uint64
}

func newConnLimiter(l net.Listener, max int) *connLimiter {
	return &connLimiter{Listener: l, max: max, conns: map[string]*limitedConn{}}
}

type limitedConn struct {
	net.Conn
	l        *connLimiter
	key      string
	accepted time.Time
	grpc     atomic.Bool  // handshake complete (stats TagConn)
	active   atomic.Int32 // RPCs in progress
	idleFrom atomic.Int64 // unix ns when active last became 0
	once     sync.Once
}

func (c *limitedConn) Close() error {
	c.once.Do(func() {
		c.l.mu.Lock()
		if c.l.conns[c.key] == c {
			delete(c.l.conns, c.key)
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
		c := &limitedConn{Conn: nc, l: l, key: nc.RemoteAddr().String(), accepted: time.Now()}
		c.idleFrom.Store(c.accepted.UnixNano())
		l.mu.Lock()
		var victim *limitedConn
		if len(l.conns) >= l.max {
			victim = l.victimLocked()
		}
		full := len(l.conns) >= l.max && victim == nil
		if !full {
			l.conns[c.key] = c
		}
		l.mu.Unlock()
		if victim != nil {
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
	var raw, idle *limitedConn
	for _, c := range l.conns {
		switch {
		case !c.grpc.Load():
			if raw == nil || c.accepted.Before(raw.accepted) {
				raw = c
			}
		case c.active.Load() == 0:
			if idle == nil || c.idleFrom.Load() < idle.idleFrom.Load() {
				idle = c
			}
		}
	}
	if raw != nil {
		return raw
	}
	return idle
}

// open is the number of connections held.
func (l *connLimiter) open() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.conns)
}

func (l *connLimiter) lookup(addr net.Addr) *limitedConn {
	if addr == nil {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.conns[addr.String()]
}

type connKey struct{}

func (l *connLimiter) TagConn(ctx context.Context, info *stats.ConnTagInfo) context.Context {
	c := l.lookup(info.RemoteAddr)
	if c == nil {
		return ctx
	}
	c.grpc.Store(true)
	return context.WithValue(ctx, connKey{}, c)
}

func (l *connLimiter) HandleConn(context.Context, stats.ConnStats) {}

func (l *connLimiter) TagRPC(ctx context.Context, _ *stats.RPCTagInfo) context.Context { return ctx }

func (l *connLimiter) HandleRPC(ctx context.Context, s stats.RPCStats) {
	c, _ := ctx.Value(connKey{}).(*limitedConn)
	if c == nil {
		return
	}
	switch s.(type) {
	case *stats.Begin:
		c.active.Add(1)
	case *stats.End:
		if c.active.Add(-1) == 0 {
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
	return ctx
}
func (s *lazyStats) HandleRPC(ctx context.Context, rs stats.RPCStats) {
	if l := s.l.Load(); l != nil {
		l.HandleRPC(ctx, rs)
	}
}
