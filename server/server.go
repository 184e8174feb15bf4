package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"runtime/debug"
	"sync"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/reflection"
	"google.golang.org/grpc/status"

	cuzkv1 "github.com/cuzk-project/cuzk/proto/cuzk/v1"
)

// MaxMessageBytes is the default gRPC message limit both ways, the same
// as Curio's client (a 32 GiB PoRep C1 output is ~50 MB).
const MaxMessageBytes = 256 << 20

// DefaultShutdownGrace is how long Shutdown lets running RPCs finish
// before it closes their connections.
const DefaultShutdownGrace = 30 * time.Second

// Options configures a Server. Only Listen is required.
type Options struct {
	Listen           string        // gRPC: "unix:///path" or "host:port"
	StatusListen     string        // HTTP /metrics, /status: "host:port"; "" = off
	MaxMessageBytes  int           // 0 = MaxMessageBytes
	WorkersPerDevice int           // for cuzk_gpu_workers; 0 = 1
	ShutdownGrace    time.Duration // 0 = DefaultShutdownGrace
	Log              *slog.Logger  // nil = slog.Default()
	// HTTP adds routes to the status listener, e.g. "GET /timeline".
	HTTP map[string]http.Handler
}

// Server runs the gRPC service and the HTTP status endpoint.
//
// Its goroutines are started by Serve and all have ended when Serve
// returns.
type Server struct {
	opts    Options
	log     *slog.Logger
	metrics *Metrics
	grpc    *grpc.Server
	health  *health.Server
	http    *http.Server

	mu      sync.Mutex
	lis     net.Listener
	httpLis net.Listener
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
	log := opts.Log
	if log == nil {
		log = slog.Default()
	}
	m := NewMetrics(eng, opts.WorkersPerDevice)
	s := &Server{opts: opts, log: log, metrics: m}
	s.grpc = NewGRPCServer(NewService(eng, m, log), m, log, opts.MaxMessageBytes)
	s.health = health.NewServer()
	healthpb.RegisterHealthServer(s.grpc, s.health)
	s.health.SetServingStatus(cuzkv1.ProvingEngine_ServiceDesc.ServiceName, healthpb.HealthCheckResponse_SERVING)
	mux := http.NewServeMux()
	mux.Handle("/", HTTPHandler(eng, m))
	for pattern, h := range opts.HTTP {
		mux.Handle(pattern, h)
	}
	s.http = &http.Server{
		Handler:           mux,
		ReadHeaderTimeout: 10 * time.Second,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
	return s
}

// NewGRPCServer returns a gRPC server with the ProvingEngine service, the
// panic-recovering and metrics interceptors, message limits of maxMsg
// bytes both ways, malformed requests answered with InvalidArgument
// (decode.go), and server reflection.
func NewGRPCServer(svc *Service, m *Metrics, log *slog.Logger, maxMsg int) *grpc.Server {
	if maxMsg <= 0 {
		maxMsg = MaxMessageBytes
	}
	codec := newLenientCodec()
	g := grpc.NewServer(
		grpc.ForceServerCodecV2(codec),
		grpc.MaxRecvMsgSize(maxMsg),
		grpc.MaxSendMsgSize(maxMsg),
		grpc.ChainUnaryInterceptor(unaryObserve(m, log)),
		grpc.ChainStreamInterceptor(streamRecover(m, log)),
	)
	g.RegisterService(malformedAsInvalid(codec, m, log), svc)
	reflection.Register(g)
	return g
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
// it when it has not been called.
func (s *Server) Listen() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.lis != nil {
		return nil
	}
	lis, err := Listen(s.opts.Listen)
	if err != nil {
		return fmt.Errorf("gRPC listener: %w", err)
	}
	if s.opts.StatusListen != "" {
		network, addr, err := ParseAddr(s.opts.StatusListen)
		if err == nil && network != "tcp" {
			err = fmt.Errorf("status_listen %q: want host:port", s.opts.StatusListen)
		}
		if err == nil {
			s.httpLis, err = net.Listen("tcp", addr)
		}
		if err != nil {
			lis.Close()
			return fmt.Errorf("HTTP status listener: %w", err)
		}
	}
	s.lis = lis
	return nil
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
// shutdown that ctx asked for, or the error that stopped a listener.
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
	s.shutdown()
	wg.Wait()
	return err
}

func addrString(l net.Listener) string {
	if l == nil {
		return "off"
	}
	return l.Addr().String()
}

func (s *Server) shutdown() {
	s.log.Info("shutting down", "grace", s.opts.ShutdownGrace)
	s.health.Shutdown()
	grace, cancel := context.WithTimeout(context.Background(), s.opts.ShutdownGrace)
	defer cancel()
	httpDone := make(chan struct{})
	go func() {
		defer close(httpDone)
		if err := s.http.Shutdown(grace); err != nil {
			s.http.Close()
		}
	}()

	stopped := make(chan struct{})
	go func() {
		s.grpc.GracefulStop()
		close(stopped)
	}()
	select {
	case <-stopped:
	case <-grace.Done():
		s.log.Warn("grace period over; closing remaining connections")
		s.grpc.Stop()
		<-stopped
	}
	<-httpDone
}
