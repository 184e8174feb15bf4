package client

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	cuzkv1 "github.com/cuzk-project/cuzk/proto/cuzk/v1"
)

// MaxMessageBytes is the send and receive limit, as in Curio's client.
const MaxMessageBytes = 256 << 20

// Client talks to one cuzk daemon. It is safe for concurrent use.
type Client struct {
	addr string
	conn *grpc.ClientConn
	svc  cuzkv1.ProvingEngineClient
}

// Target turns a daemon address into a gRPC target: "unix:///path",
// "unix:path" and targets with a scheme pass through, "unix://rel/path"
// becomes "unix:rel/path" (relative, as the daemon reads it), an absolute path
// becomes "unix://path", "tcp://host:port" and a bare "host:port" become
// "dns:///host:port".
func Target(addr string) (string, error) {
	switch {
	case addr == "":
		return "", errors.New("empty daemon address")
	case strings.HasPrefix(addr, "/"):
		return "unix://" + addr, nil
	case strings.HasPrefix(addr, "unix://") && !strings.HasPrefix(addr, "unix:///"):
		// The daemon's listen address reads unix://rel/path as a
		// relative path; gRPC would read "rel" as an authority.
		return "unix:" + strings.TrimPrefix(addr, "unix://"), nil
	case strings.HasPrefix(addr, "tcp://"):
		return "dns:///" + strings.TrimPrefix(addr, "tcp://"), nil
	case strings.Contains(addr, "://"), strings.HasPrefix(addr, "unix:"):
		return addr, nil
	}
	return "dns:///" + addr, nil
}

// Dial prepares a client for addr ("unix:///run/cuzk.sock", "host:port").
// Like grpc.NewClient it does not connect until the first call. Extra
// options are applied after the defaults.
func Dial(addr string, opts ...grpc.DialOption) (*Client, error) {
	target, err := Target(addr)
	if err != nil {
		return nil, err
	}
	all := append([]grpc.DialOption{
		grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(MaxMessageBytes), grpc.MaxCallSendMsgSize(MaxMessageBytes)),
	}, opts...)
	conn, err := grpc.NewClient(target, all...)
	if err != nil {
		return nil, fmt.Errorf("cuzk daemon at %s: %w", addr, err)
	}
	return &Client{addr: addr, conn: conn, svc: cuzkv1.NewProvingEngineClient(conn)}, nil
}

// Close closes the connection.
func (c *Client) Close() error { return c.conn.Close() }

// Addr is the address the client was dialled with.
func (c *Client) Addr() string { return c.addr }

// Raw returns the generated client, for callers that need the messages
// as they are.
func (c *Client) Raw() cuzkv1.ProvingEngineClient { return c.svc }

// ProofError is returned with the result of a proof that ended in any
// status but COMPLETED.
type ProofError struct {
	JobID   string
	Status  cuzkv1.AwaitProofResponse_Status
	Message string
}

func (e *ProofError) Error() string {
	if e.Message == "" {
		return fmt.Sprintf("cuzk job %s: %s", e.JobID, e.Status)
	}
	return fmt.Sprintf("cuzk job %s: %s: %s", e.JobID, e.Status, e.Message)
}

// resultErr turns a non-COMPLETED result into a *ProofError.
func resultErr(r *cuzkv1.AwaitProofResponse) error {
	switch {
	case r == nil:
		return errors.New("cuzk daemon returned no result")
	case r.Status == cuzkv1.AwaitProofResponse_COMPLETED && len(r.Proof) == 0:
		return &ProofError{JobID: r.JobId, Status: r.Status, Message: "completed with an empty proof"}
	case r.Status != cuzkv1.AwaitProofResponse_COMPLETED:
		return &ProofError{JobID: r.JobId, Status: r.Status, Message: r.ErrorMessage}
	}
	return nil
}

// Prove submits req and waits for its proof. The result is returned
// whenever the daemon sent one; err is a *ProofError when its status is
// not COMPLETED, or the RPC error.
func (c *Client) Prove(ctx context.Context, req *cuzkv1.SubmitProofRequest) (*cuzkv1.AwaitProofResponse, error) {
	resp, err := c.svc.Prove(ctx, &cuzkv1.ProveRequest{Submit: req})
	if err != nil {
		return nil, fmt.Errorf("cuzk Prove: %w", err)
	}
	return resp.Result, resultErr(resp.Result)
}

// Submit enqueues req and returns its job id and queue position.
func (c *Client) Submit(ctx context.Context, req *cuzkv1.SubmitProofRequest) (jobID string, queuePos uint32, err error) {
	resp, err := c.svc.SubmitProof(ctx, req)
	if err != nil {
		return "", 0, fmt.Errorf("cuzk SubmitProof: %w", err)
	}
	return resp.JobId, resp.QueuePosition, nil
}

// Await waits for a job, at most timeout (0 = until it ends; the daemon
// answers TIMEOUT when it passes, a *ProofError here).
func (c *Client) Await(ctx context.Context, jobID string, timeout time.Duration) (*cuzkv1.AwaitProofResponse, error) {
	var ms uint64
	if timeout > 0 {
		ms = uint64((timeout + time.Millisecond - 1) / time.Millisecond)
	}
	resp, err := c.svc.AwaitProof(ctx, &cuzkv1.AwaitProofRequest{JobId: jobID, TimeoutMs: ms})
	if err != nil {
		return nil, fmt.Errorf("cuzk AwaitProof %s: %w", jobID, err)
	}
	return resp, resultErr(resp)
}

// Cancel cancels a job; wasRunning tells whether its work had started.
func (c *Client) Cancel(ctx context.Context, jobID string) (wasRunning bool, err error) {
	resp, err := c.svc.CancelProof(ctx, &cuzkv1.CancelProofRequest{JobId: jobID})
	if err != nil {
		return false, fmt.Errorf("cuzk CancelProof %s: %w", jobID, err)
	}
	return resp.WasRunning, nil
}

// Status returns the daemon's devices, parameters, queues and memory.
func (c *Client) Status(ctx context.Context) (*cuzkv1.GetStatusResponse, error) {
	resp, err := c.svc.GetStatus(ctx, &cuzkv1.GetStatusRequest{})
	if err != nil {
		return nil, fmt.Errorf("cuzk GetStatus: %w", err)
	}
	return resp, nil
}

// Metrics returns the daemon's Prometheus text exposition.
func (c *Client) Metrics(ctx context.Context) (string, error) {
	resp, err := c.svc.GetMetrics(ctx, &cuzkv1.GetMetricsRequest{})
	if err != nil {
		return "", fmt.Errorf("cuzk GetMetrics: %w", err)
	}
	return resp.PrometheusText, nil
}

// Preload makes a circuit's parameters resident on the daemon.
func (c *Client) Preload(ctx context.Context, circuitID string) (alreadyLoaded bool, loadTime time.Duration, err error) {
	resp, err := c.svc.PreloadSRS(ctx, &cuzkv1.PreloadSrsRequest{CircuitId: circuitID})
	if err != nil {
		return false, 0, fmt.Errorf("cuzk PreloadSRS %s: %w", circuitID, err)
	}
	return resp.AlreadyLoaded, time.Duration(resp.LoadTimeMs) * time.Millisecond, nil
}

// Evict drops a circuit's parameters on the daemon.
func (c *Client) Evict(ctx context.Context, circuitID string) (wasLoaded bool, freed uint64, err error) {
	resp, err := c.svc.EvictSRS(ctx, &cuzkv1.EvictSrsRequest{CircuitId: circuitID})
	if err != nil {
		return false, 0, fmt.Errorf("cuzk EvictSRS %s: %w", circuitID, err)
	}
	return resp.WasLoaded, resp.FreedBytes, nil
}
