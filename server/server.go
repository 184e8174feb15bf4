package server

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/experimental"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/keepalive"
	"google.golang.org/grpc/mem"
	"google.golang.org/grpc/reflection"
	"google.golang.org/grpc/status"

	"github.com/cuzk-project/cuzk/auth"
	"github.com/cuzk-project/cuzk/memory"
	cuzkv1 "github.com/cuzk-project/cuzk/proto/cuzk/v1"
)

// MaxMessageBytes is the default gRPC message limit both ways, the same
// as Curio's client (a 32 GiB PoRep C1 output is ~50 MB).
const MaxMessageBytes = 256 << 20

// httpWriteTimeout bounds the answer to one HTTP request.
const httpWriteTimeout = 2 * time.Minute

// DefaultShutdownGrace is how long Shutdown lets running RPCs finish
// before it closes their connections.
const DefaultShutdownGrace = 30 * time.Second

// Options configures a Server. Only Listen is required.
type Options struct {
	Listen           string        // gRPC: "unix:///path" or "host:port"
	StatusListen     string        // HTTP /metrics, /status: "host:port" (":port" = loopback); "" = off
	MaxMessageBytes  int           // 0 = MaxMessageBytes
	WorkersPerDevice int           // for cuzk_gpu_workers; 0 = 1
	ShutdownGrace    time.Duration // 0 = DefaultShutdownGrace
	Log              *slog.Logger  // nil = slog.Default()
	// HTTP adds routes to the status listener, e.g. "GET /timeline".
	HTTP map[string]http.Handler

	// TLS serves a TCP gRPC listener, and an HTTP listener not on
	// loopback, over TLS (mutual TLS with TLSFiles.ClientCA). Reload
	// reads the files again.
	TLS *TLSFiles
	// Secret makes a TCP gRPC listener, and an HTTP listener not on
	// loopback, require a token signed with it (see MethodPermission).
	// The unix socket never asks for one.
	Secret auth.Secret
	// InsecureAllowUnauthenticated lets a TCP or non-loopback HTTP
	// listener run without Secret: anyone who reaches the port may then
	// submit, cancel, preload and evict.
	InsecureAllowUnauthenticated bool
	MaxConnections               int           // per listener (gRPC, HTTP); 0 = DefaultMaxConnections
	MaxStreams                   int           // RPCs open at once on one gRPC connection; 0 = DefaultMaxStreams
	IdleTimeout                  time.Duration // gRPC connection with no RPC; 0 = DefaultIdleTimeout
	// RequestMemory, when set, is charged for requests being received
	// and decoded, and bounds the message size to a third of it
	// (requestmem.go).
	RequestMemory *memory.Budget

	// recvPool, when set, is the buffer pool gRPC reads requests into
	// (tests count the bytes it holds).
	recvPool mem.BufferPool
}

// ErrUnauthenticatedTCP refuses a TCP listener without a secret (and
// without Options.InsecureAllowUnauthenticated).
var ErrUnauthenticatedTCP = errors.New("a TCP listener needs an auth secret (--auth-secret, daemon.auth.secret_file); " +
	"--insecure-allow-unauthenticated runs it open to anyone who can reach the port")

// ErrCutOff is what Serve returns when the grace period ended with RPCs
// still running: their connections were closed under them.
var ErrCutOff = errors.New("grace period over: running RPCs were cut off")

// Server runs the gRPC service and the HTTP status endpoint.
//
// Its goroutines are started by Serve and all have ended when Serve
// returns.
type Server struct {
	opts     Options
	log      *slog.Logger
	metrics  *Metrics
	grpc     *grpc.Server
	health   *health.Server
	http     *http.Server
	tls      *tlsIdentity // nil without Options.TLS
	tcp      bool         // the gRPC listener is TCP: tokens, TLS and limits apply
	stats    *lazyStats
	draining atomic.Bool
	initErr  error // a bad option, reported by Listen

	// drain is done, by shutdown, when the daemon starts draining.
	drain      context.Context
	startDrain context.CancelFunc

	mu          sync.Mutex
	lis         net.Listener
	limiter     *connLimiter // the gRPC listener's
	httpLis     net.Listener
	httpLimiter *connLimiter
}

// New builds a server for eng; nothing listens until Listen or Serve.
func New(eng Engine, opts Options) *Server {
	if opts.MaxMessageBytes <= 0 {
		opts.MaxMessageBytes = MaxMessageBytes
	}
	if opts.WorkersPerDevice <= 0 {
		opts.WorkersPerDevice = 1
	}
	if opts.ShutdownGrace <= 0 {
		opts.ShutdownGrace = DefaultShutdownGrace
	}
	if opts.MaxConnections <= 0 {
		opts.MaxConnections = DefaultMaxConnections
	}
	if opts.MaxStreams <= 0 {
		opts.MaxStreams = DefaultMaxStreams
	}
	if opts.IdleTimeout <= 0 {
		opts.IdleTimeout = DefaultIdleTimeout
	}
	log := opts.Log
	if log == nil {
		log = slog.Default()
	}
	m := NewMetrics(eng, opts.WorkersPerDevice)
	s := &Server{opts: opts, log: log, metrics: m, stats: &lazyStats{}}
	network, _, err := ParseAddr(opts.Listen)
	s.tcp = err == nil && network == "tcp"
	if opts.TLS != nil {
		if s.tls, err = newTLSIdentity(*opts.TLS); err != nil {
			s.initErr = err
		} else if !s.tcp {
			s.initErr = fmt.Errorf("TLS is for a TCP listener; %s is a unix socket (its file mode guards it)", opts.Listen)
		}
	}
	gopts := []grpc.ServerOption{
		grpc.StatsHandler(s.stats),
		grpc.MaxConcurrentStreams(uint32(opts.MaxStreams)),
		grpc.KeepaliveParams(keepalive.ServerParameters{
			MaxConnectionIdle: opts.IdleTimeout,
			Time:              keepaliveTime,
			Timeout:           keepaliveTimeout,
		}),
		grpc.KeepaliveEnforcementPolicy(keepalive.EnforcementPolicy{MinTime: minPingInterval, PermitWithoutStream: true}),
		grpc.ConnectionTimeout(handshakeTimeout),
	}
	if s.tls != nil && s.tcp {
		gopts = append(gopts, grpc.Creds(credentials.NewTLS(s.tls.config())))
	}
	if s.tcp && len(opts.Secret) > 0 {
		gopts = append(gopts, grpc.InTapHandle(tapAuthorize(opts.Secret, m)))
	}
	if opts.recvPool != nil {
		gopts = append(gopts, experimental.BufferPool(opts.recvPool))
	}
	requests := newRequestMemory(opts.RequestMemory, opts.MaxMessageBytes)
	s.grpc = newGRPCServer(NewService(eng, m, log), m, log, opts.MaxMessageBytes, requests, gopts...)
	s.health = health.NewServer()
	s.drain, s.startDrain = context.WithCancel(context.Background())
	healthpb.RegisterHealthServer(s.grpc, &healthService{Server: s.health, drain: s.drain})
	s.health.SetServingStatus(cuzkv1.ProvingEngine_ServiceDesc.ServiceName, healthpb.HealthCheckResponse_SERVING)
	mux := http.NewServeMux()
	mux.Handle("/", httpHandler(eng, m, s.draining.Load))
	for pattern, h := range opts.HTTP {
		mux.Handle(pattern, h)
	}
	s.http = &http.Server{
		Handler:           mux,
		ReadHeaderTimeout: 10 * time.Second,
		// A client that stops reading its answer holds a connection
		// that the limit never closes (a request in progress); this
		// ends it.
		WriteTimeout: httpWriteTimeout,
		IdleTimeout:  opts.IdleTimeout,
		ErrorLog:     slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
	return s
}

// NewGRPCServer returns a gRPC server with the ProvingEngine service, the
// panic-recovering and metrics interceptors, message limits of maxMsg
// bytes both ways, malformed requests answered with InvalidArgument
// (decode.go), and server reflection.
func NewGRPCServer(svc *Service, m *Metrics, log *slog.Logger, maxMsg int) *grpc.Server {
	return newGRPCServer(svc, m, log, maxMsg, nil)
}

func newGRPCServer(svc *Service, m *Metrics, log *slog.Logger, maxMsg int, requests *requestMemory, extra ...grpc.ServerOption) *grpc.Server {
	if maxMsg <= 0 {
		maxMsg = MaxMessageBytes
	}
	codec := newLenientCodec(requests)
	opts := append([]grpc.ServerOption{
		grpc.ForceServerCodecV2(codec),
		grpc.MaxRecvMsgSize(requests.maxRecv(maxMsg)),
		grpc.InitialWindowSize(streamWindow),
		grpc.InitialConnWindowSize(connWindow),
		grpc.MaxSendMsgSize(maxMsg),
		grpc.ChainUnaryInterceptor(unaryObserve(m, log)),
		grpc.ChainStreamInterceptor(streamRecover(m, log)),
	}, extra...)
	g := grpc.NewServer(opts...)
	g.RegisterService(malformedAsInvalid(codec, m, log), svc)
	reflection.Register(g)
	return g
}

// Reload reads the TLS certificate, key and client CA again (SIGHUP).
// Connections made before keep their session; a failed reload keeps the
// identity in use.
func (s *Server) Reload() error {
	if s.tls == nil {
		return nil
	}
	if err := s.tls.reload(); err != nil {
		return err
	}
	s.log.Info("TLS certificates reloaded", "cert", s.opts.TLS.Cert, "client_ca", s.opts.TLS.ClientCA)
	return nil
}

// unaryObserve counts and times every RPC and turns a handler panic into
// an Internal error, logged with its stack, so that one bad request
// cannot take the daemon down.
func unaryObserve(m *Metrics, log *slog.Logger) grpc.UnaryServerInterceptor {
	return func(ctx context.Context, req any, info *grpc.UnaryServerInfo, h grpc.UnaryHandler) (resp any, err error) {
		start := time.Now()
		defer func() {
			if r := recover(); r != nil {
				m.panics.Inc()
				log.Error("panic in RPC handler", "method", info.FullMethod, "panic", fmt.Sprint(r), "stack", string(debug.Stack()))
				resp, err = nil, status.Errorf(codes.Internal, "internal error in %s", info.FullMethod)
			}
			code := status.Code(err)
			m.rpcs.WithLabelValues(info.FullMethod, code.String()).Inc()
			m.rpcSeconds.WithLabelValues(info.FullMethod).Observe(time.Since(start).Seconds())
			switch code {
			case codes.OK, codes.NotFound, codes.Canceled, codes.DeadlineExceeded:
			case codes.InvalidArgument:
				log.Info("rejected request", "method", info.FullMethod, "reason", status.Convert(err).Message())
			default:
				log.Warn("request failed", "method", info.FullMethod, "code", code.String(), "error", status.Convert(err).Message())
			}
		}()
		return h(ctx, req)
	}
}

func streamRecover(m *Metrics, log *slog.Logger) grpc.StreamServerInterceptor {
	return func(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, h grpc.StreamHandler) (err error) {
		defer func() {
			if r := recover(); r != nil {
				m.panics.Inc()
				log.Error("panic in stream handler", "method", info.FullMethod, "panic", fmt.Sprint(r), "stack", string(debug.Stack()))
				err = status.Errorf(codes.Internal, "internal error in %s", info.FullMethod)
			}
		}()
		return h(srv, ss)
	}
}

// Listen opens the gRPC and (if configured) HTTP listeners. Serve calls
// it when it has not been called. It refuses a TCP or non-loopback HTTP
// listener without Options.Secret unless
// Options.InsecureAllowUnauthenticated, and warns of a wildcard bind.
func (s *Server) Listen() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.lis != nil {
		return nil
	}
	if s.initErr != nil {
		return s.initErr
	}
	if err := s.opts.CheckAccess(); err != nil {
		return err
	}
	open := len(s.opts.Secret) == 0
	if s.tcp && open {
		s.log.Warn("gRPC on TCP without authentication: anyone who reaches the port may submit, cancel, preload and evict",
			"listen", s.opts.Listen)
	}
	httpAddr, httpLoopback, err := s.opts.statusAddr()
	if err != nil {
		return err
	}
	lis, err := Listen(s.opts.Listen)
	if err != nil {
		return fmt.Errorf("gRPC listener: %w", err)
	}
	if s.tcp {
		warnWildcard(s.log, "gRPC", lis.Addr())
	}
	s.limiter = newConnLimiter(lis, s.opts.MaxConnections)
	s.stats.l.Store(s.limiter)
	lis = s.limiter
	if httpAddr != "" {
		hl, err := net.Listen("tcp", httpAddr)
		if err != nil {
			lis.Close()
			return fmt.Errorf("HTTP status listener: %w", err)
		}
		s.httpLimiter = newConnLimiter(hl, s.opts.MaxConnections)
		s.http.ConnState = s.httpLimiter.httpConnState
		hl = s.httpLimiter
		if !httpLoopback {
			warnWildcard(s.log, "HTTP", hl.Addr())
			if !open {
				s.http.Handler = requireToken(s.opts.Secret, s.http.Handler)
			}
			if s.tls != nil {
				hl = tls.NewListener(hl, s.tls.config())
			}
		}
		s.httpLis = hl
	}
	s.lis = lis
	return nil
}

// CheckAccess refuses, before anything listens, what Listen would refuse:
// a TCP gRPC listener or a non-loopback HTTP listener without Secret
// (unless InsecureAllowUnauthenticated). The daemon calls it before it
// builds its engine.
func (o Options) CheckAccess() error {
	if len(o.Secret) > 0 || o.InsecureAllowUnauthenticated {
		return nil
	}
	if network, _, err := ParseAddr(o.Listen); err == nil && network == "tcp" {
		return fmt.Errorf("gRPC listener %s: %w", o.Listen, ErrUnauthenticatedTCP)
	}
	addr, loopback, err := o.statusAddr()
	if err != nil {
		return err
	}
	if addr != "" && !loopback {
		return fmt.Errorf("HTTP status listener %s is not on loopback: %w", addr, ErrUnauthenticatedTCP)
	}
	return nil
}

// statusAddr resolves StatusListen: a host left out (":9821") is
// loopback.
func (o Options) statusAddr() (addr string, loopback bool, err error) {
	if o.StatusListen == "" {
		return "", false, nil
	}
	network, addr, err := ParseAddr(o.StatusListen)
	if err == nil && network != "tcp" {
		err = fmt.Errorf("status_listen %q: want host:port", o.StatusListen)
	}
	if err != nil {
		return "", false, fmt.Errorf("HTTP status listener: %w", err)
	}
	host, port, _ := net.SplitHostPort(addr)
	if host == "" {
		host = "127.0.0.1"
		addr = net.JoinHostPort(host, port)
	}
	return addr, isLoopbackHost(host), nil
}

func isLoopbackHost(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// warnWildcard logs a listener bound to every interface.
func warnWildcard(log *slog.Logger, what string, a net.Addr) {
	if ta, ok := a.(*net.TCPAddr); ok && ta.IP.IsUnspecified() {
		log.Warn(what+" listener bound to every interface; bind an address of one interface unless the daemon is meant to be reached from all of them",
			"addr", a.String())
	}
}

// Addr is the gRPC listener's address (nil before Listen).
func (s *Server) Addr() net.Addr {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.lis == nil {
		return nil
	}
	return s.lis.Addr()
}

// StatusAddr is the HTTP listener's address (nil if off or before Listen).
func (s *Server) StatusAddr() net.Addr {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.httpLis == nil {
		return nil
	}
	return s.httpLis.Addr()
}

// Serve serves until ctx is done, then shuts down gracefully: new
// connections are refused, running RPCs get Options.ShutdownGrace to
// finish, then every connection is closed. It returns nil after a
// shutdown that ctx asked for, ErrCutOff when that shutdown closed
// running RPCs, or the error that stopped a listener.
func (s *Server) Serve(ctx context.Context) error {
	if err := s.Listen(); err != nil {
		return err
	}
	errc := make(chan error, 2)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		if err := s.grpc.Serve(s.lis); err != nil && !errors.Is(err, grpc.ErrServerStopped) {
			errc <- fmt.Errorf("gRPC server: %w", err)
		}
	}()
	if s.httpLis != nil {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := s.http.Serve(s.httpLis); err != nil && !errors.Is(err, http.ErrServerClosed) {
				errc <- fmt.Errorf("HTTP server: %w", err)
			}
		}()
	}
	s.log.Info("serving", "grpc", s.lis.Addr().String(), "status", addrString(s.httpLis))

	var err error
	select {
	case <-ctx.Done():
	case err = <-errc:
	}
	if cut := s.shutdown(); err == nil {
		err = cut
	}
	wg.Wait()
	return err
}

func addrString(l net.Listener) string {
	if l == nil {
		return "off"
	}
	return l.Addr().String()
}

// shutdown drains: the health service says NOT_SERVING and ends its Watch
// streams, gRPC refuses new connections and lets running RPCs finish for
// the grace period, while the HTTP listener keeps answering /status,
// /metrics and /healthz; HTTP stops last. It returns ErrCutOff when RPCs
// were still running at the end of the grace period.
func (s *Server) shutdown() error {
	s.log.Info("shutting down", "grace", s.opts.ShutdownGrace)
	s.draining.Store(true)
	s.health.Shutdown()
	s.startDrain()
	grace := time.NewTimer(s.opts.ShutdownGrace)
	defer grace.Stop()

	var cut error
	stopped := make(chan struct{})
	go func() {
		s.grpc.GracefulStop()
		close(stopped)
	}()
	select {
	case <-stopped:
	case <-grace.C:
		s.log.Warn("grace period over; closing remaining connections")
		cut = ErrCutOff
		s.grpc.Stop()
		<-stopped
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := s.http.Shutdown(ctx); err != nil {
		s.http.Close()
	}
	return cut
}
