package server

import (
	"context"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/status"
)

// healthService is the gRPC health service (grpc.health.v1) whose Watch
// streams end when the daemon drains, after saying NOT_SERVING. A Watch
// waits on the server without end, so one monitor's stream would hold the
// drain for the whole grace period and end it as RPCs cut off.
type healthService struct {
	*health.Server
	// drain is done when the daemon starts draining.
	drain context.Context
}

func (h *healthService) Watch(req *healthpb.HealthCheckRequest, stream healthpb.Health_WatchServer) error {
	ctx, cancel := context.WithCancel(stream.Context())
	defer cancel()
	stop := context.AfterFunc(h.drain, cancel)
	defer stop()
	err := h.Server.Watch(req, &watchStream{Health_WatchServer: stream, ctx: ctx})
	if h.drain.Err() == nil || stream.Context().Err() != nil {
		return err
	}
	// The drain ended the stream, perhaps before it sent the status the
	// drain set.
	_ = stream.Send(&healthpb.HealthCheckResponse{Status: healthpb.HealthCheckResponse_NOT_SERVING})
	return status.Error(codes.Unavailable, "the daemon is shutting down")
}

// watchStream is a Watch stream whose context also ends with the drain.
type watchStream struct {
	healthpb.Health_WatchServer
	ctx context.Context
}

func (w *watchStream) Context() context.Context { return w.ctx }
