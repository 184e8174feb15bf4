package server

import (
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/status"
)

// A health Watch stream, which waits on the server without end, does not
// hold the drain: it is told NOT_SERVING and ended, and Serve returns
// without cutting RPCs off, before the grace period is over.
func TestDrainEndsWatch(t *testing.T) {
	const grace = 5 * time.Second
	_, sock, cancel, done := startServer(t, newFakeEngine(), grace)
	w, err := healthpb.NewHealthClient(dialConn(t, sock)).Watch(ctxT(t), &healthpb.HealthCheckRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if r, err := w.Recv(); err != nil || r.Status != healthpb.HealthCheckResponse_SERVING {
		t.Fatalf("first Watch answer: %v %v", r, err)
	}
	cancel()
	start := time.Now()
	var last healthpb.HealthCheckResponse_ServingStatus
	for {
		r, err := w.Recv()
		if err != nil {
			if status.Code(err) != codes.Unavailable {
				t.Errorf("Watch ended with %v, want Unavailable", err)
			}
			break
		}
		last = r.Status
	}
	if last != healthpb.HealthCheckResponse_NOT_SERVING {
		t.Errorf("last status before the Watch ended: %v, want NOT_SERVING", last)
	}
	if el := time.Since(start); el > grace-time.Second {
		t.Errorf("the Watch stream lasted %v into the drain (grace %v)", el, grace)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Serve: %v, want nil (no RPC cut off)", err)
		}
		done <- nil
	case <-time.After(grace - time.Second):
		t.Error("the drain waited for the Watch stream")
	}
}
