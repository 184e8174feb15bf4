package client

import (
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	cuzkv1 "github.com/cuzk-project/cuzk/proto/cuzk/v1"
)

func TestTarget(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"unix:///run/curio/cuzk.sock", "unix:///run/curio/cuzk.sock"},
		{"unix:rel.sock", "unix:rel.sock"},
		{"unix://run/rel.sock", "unix:run/rel.sock"}, // the daemon reads it as a relative path too
		{"/tmp/cuzk.sock", "unix:///tmp/cuzk.sock"},
		{"127.0.0.1:9820", "dns:///127.0.0.1:9820"},
		{"tcp://prover:9820", "dns:///prover:9820"},
		{"dns:///prover:9820", "dns:///prover:9820"},
	} {
		if got, err := Target(tt.in); err != nil || got != tt.want {
			t.Errorf("Target(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
	if _, err := Target(""); err == nil {
		t.Error("empty address accepted")
	}
}

// daemon answers from fixed results and records what it was sent.
type daemon struct {
	cuzkv1.UnimplementedProvingEngineServer
	result    *cuzkv1.AwaitProofResponse
	gotAwait  *cuzkv1.AwaitProofRequest
	gotSubmit *cuzkv1.SubmitProofRequest
}

func (d *daemon) Prove(_ context.Context, r *cuzkv1.ProveRequest) (*cuzkv1.ProveResponse, error) {
	d.gotSubmit = r.Submit
	return &cuzkv1.ProveResponse{Result: d.result}, nil
}

func (d *daemon) SubmitProof(_ context.Context, r *cuzkv1.SubmitProofRequest) (*cuzkv1.SubmitProofResponse, error) {
	if r.ProofKind == 0 {
		return nil, status.Error(codes.InvalidArgument, "invalid request: proof_kind is unspecified")
	}
	return &cuzkv1.SubmitProofResponse{JobId: r.RequestId, QueuePosition: 3}, nil
}

func (d *daemon) AwaitProof(_ context.Context, r *cuzkv1.AwaitProofRequest) (*cuzkv1.AwaitProofResponse, error) {
	d.gotAwait = r
	return &cuzkv1.AwaitProofResponse{JobId: r.JobId, Status: cuzkv1.AwaitProofResponse_TIMEOUT}, nil
}

func (d *daemon) CancelProof(_ context.Context, r *cuzkv1.CancelProofRequest) (*cuzkv1.CancelProofResponse, error) {
	return nil, status.Error(codes.NotFound, "job not found")
}

func (d *daemon) GetStatus(context.Context, *cuzkv1.GetStatusRequest) (*cuzkv1.GetStatusResponse, error) {
	return &cuzkv1.GetStatusResponse{UptimeSeconds: 9}, nil
}

func (d *daemon) GetMetrics(context.Context, *cuzkv1.GetMetricsRequest) (*cuzkv1.GetMetricsResponse, error) {
	return &cuzkv1.GetMetricsResponse{PrometheusText: "cuzk_uptime_seconds 9\n"}, nil
}

func (d *daemon) PreloadSRS(_ context.Context, r *cuzkv1.PreloadSrsRequest) (*cuzkv1.PreloadSrsResponse, error) {
	return &cuzkv1.PreloadSrsResponse{LoadTimeMs: 250}, nil
}

func (d *daemon) EvictSRS(_ context.Context, r *cuzkv1.EvictSrsRequest) (*cuzkv1.EvictSrsResponse, error) {
	return &cuzkv1.EvictSrsResponse{WasLoaded: true, FreedBytes: 77}, nil
}

func serve(t *testing.T, d *daemon) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "cuzkc")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	sock := filepath.Join(dir, "d.sock")
	lis, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	g := grpc.NewServer(grpc.MaxRecvMsgSize(MaxMessageBytes))
	cuzkv1.RegisterProvingEngineServer(g, d)
	go g.Serve(lis)
	t.Cleanup(g.Stop)
	return "unix://" + sock
}

func TestClient(t *testing.T) {
	d := &daemon{}
	c, err := Dial(serve(t, d))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	d.result = &cuzkv1.AwaitProofResponse{JobId: "j", Status: cuzkv1.AwaitProofResponse_COMPLETED, Proof: make([]byte, 192)}
	big := make([]byte, 6<<20) // over gRPC's 4 MiB default
	res, err := c.Prove(ctx, &cuzkv1.SubmitProofRequest{RequestId: "j", VanillaProof: big})
	if err != nil || len(res.Proof) != 192 || len(d.gotSubmit.VanillaProof) != len(big) {
		t.Fatalf("Prove: %v %v", res, err)
	}

	for _, st := range []cuzkv1.AwaitProofResponse_Status{
		cuzkv1.AwaitProofResponse_FAILED, cuzkv1.AwaitProofResponse_CANCELLED,
		cuzkv1.AwaitProofResponse_TIMEOUT, cuzkv1.AwaitProofResponse_UNKNOWN,
	} {
		d.result = &cuzkv1.AwaitProofResponse{JobId: "j", Status: st, ErrorMessage: "why"}
		res, err := c.Prove(ctx, &cuzkv1.SubmitProofRequest{RequestId: "j"})
		var pe *ProofError
		if !errors.As(err, &pe) || pe.Status != st || pe.Message != "why" || res == nil {
			t.Errorf("status %v: result %v, error %v", st, res, err)
		}
	}
	d.result = &cuzkv1.AwaitProofResponse{JobId: "j", Status: cuzkv1.AwaitProofResponse_COMPLETED}
	if _, err := c.Prove(ctx, &cuzkv1.SubmitProofRequest{}); err == nil {
		t.Error("a COMPLETED result with no proof was accepted")
	}

	if _, _, err := c.Submit(ctx, &cuzkv1.SubmitProofRequest{}); status.Code(err) != codes.InvalidArgument {
		t.Errorf("Submit error %v does not carry InvalidArgument", err)
	}
	id, pos, err := c.Submit(ctx, &cuzkv1.SubmitProofRequest{RequestId: "k", ProofKind: 1})
	if err != nil || id != "k" || pos != 3 {
		t.Errorf("Submit: %q %d %v", id, pos, err)
	}
	if _, err := c.Await(ctx, "k", 1500*time.Microsecond); err == nil || d.gotAwait.TimeoutMs != 2 {
		t.Errorf("Await: error %v, timeout_ms %d (want TIMEOUT error, 2 ms rounded up)", err, d.gotAwait.GetTimeoutMs())
	}
	if _, err := c.Cancel(ctx, "k"); status.Code(err) != codes.NotFound {
		t.Errorf("Cancel error %v does not carry NotFound", err)
	}
	if st, err := c.Status(ctx); err != nil || st.UptimeSeconds != 9 {
		t.Errorf("Status: %v %v", st, err)
	}
	if m, err := c.Metrics(ctx); err != nil || m != "cuzk_uptime_seconds 9\n" {
		t.Errorf("Metrics: %q %v", m, err)
	}
	if already, took, err := c.Preload(ctx, "porep-32g"); err != nil || already || took != 250*time.Millisecond {
		t.Errorf("Preload: %v %v %v", already, took, err)
	}
	if was, freed, err := c.Evict(ctx, "porep-32g"); err != nil || !was || freed != 77 {
		t.Errorf("Evict: %v %v %v", was, freed, err)
	}
}
