package server

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/encoding"
	"google.golang.org/grpc/status"
	"google.golang.org/grpc/test/bufconn"

	"github.com/cuzk-project/cuzk/engine"
	cuzkv1 "github.com/cuzk-project/cuzk/proto/cuzk/v1"
)

// harness serves a Service over an in-memory connection.
type harness struct {
	eng     *fakeEngine
	metrics *Metrics
	logs    *syncBuffer
	conn    *grpc.ClientConn
	cli     cuzkv1.ProvingEngineClient
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func newHarness(t *testing.T) *harness {
	t.Helper()
	h := &harness{eng: newFakeEngine(), logs: &syncBuffer{}}
	log := slog.New(slog.NewTextHandler(h.logs, nil))
	h.metrics = NewMetrics(h.eng, 2)
	g := NewGRPCServer(NewService(h.eng, h.metrics, log), h.metrics, log, 0)
	lis := bufconn.Listen(1 << 20)
	go g.Serve(lis)
	t.Cleanup(g.Stop)
	conn, err := grpc.NewClient("passthrough:///bufnet",
		grpc.WithContextDialer(func(ctx context.Context, _ string) (net.Conn, error) { return lis.DialContext(ctx) }),
		grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(MaxMessageBytes), grpc.MaxCallSendMsgSize(MaxMessageBytes)),
	)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	h.conn, h.cli = conn, cuzkv1.NewProvingEngineClient(conn)
	return h
}

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func porep(id string) *cuzkv1.SubmitProofRequest {
	return &cuzkv1.SubmitProofRequest{
		RequestId:    id,
		ProofKind:    cuzkv1.ProofKind_POREP_SEAL_COMMIT,
		SectorSize:   32 << 30,
		VanillaProof: []byte(`{"SectorNum":1}`),
	}
}

func TestSubmitAwaitTimeout(t *testing.T) {
	h := newHarness(t)
	ctx := ctxT(t)
	sub, err := h.cli.SubmitProof(ctx, porep("porep-1000-7"))
	if err != nil {
		t.Fatal(err)
	}
	if sub.JobId != "porep-1000-7" {
		t.Fatalf("job id %q, want the request id", sub.JobId)
	}

	start := time.Now()
	res, err := h.cli.AwaitProof(ctx, &cuzkv1.AwaitProofRequest{JobId: sub.JobId, TimeoutMs: 80})
	if err != nil {
		t.Fatal(err)
	}
	if el := time.Since(start); res.Status != cuzkv1.AwaitProofResponse_TIMEOUT || el < 80*time.Millisecond || el > 5*time.Second {
		t.Fatalf("await with timeout: status %v after %v, want TIMEOUT after ~80ms", res.Status, el)
	}

	h.eng.finish(sub.JobId, engine.Result{
		Status: engine.StatusCompleted, Proof: make([]byte, 1920),
		QueueWait: 5 * time.Millisecond, SRSLoad: 7 * time.Millisecond, Synthesis: 11 * time.Second,
		GPUCompute: 13 * time.Second, Total: 25 * time.Second,
	})
	res, err = h.cli.AwaitProof(ctx, &cuzkv1.AwaitProofRequest{JobId: sub.JobId})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != cuzkv1.AwaitProofResponse_COMPLETED || len(res.Proof) != 1920 || res.JobId != sub.JobId {
		t.Fatalf("got status %v, %d proof bytes, job %q", res.Status, len(res.Proof), res.JobId)
	}
	if res.QueueWaitMs != 5 || res.SrsLoadMs != 7 || res.SynthesisMs != 11000 || res.GpuComputeMs != 13000 || res.TotalMs != 25000 {
		t.Fatalf("timings %+v", res)
	}
}

func TestProveAndCancel(t *testing.T) {
	h := newHarness(t)
	ctx := ctxT(t)

	h.eng.setAutoFinish(true)
	res, err := h.cli.Prove(ctx, &cuzkv1.ProveRequest{Submit: porep("a")})
	if err != nil {
		t.Fatal(err)
	}
	if res.Result.GetStatus() != cuzkv1.AwaitProofResponse_COMPLETED || len(res.Result.Proof) != 192 {
		t.Fatalf("prove: %v", res.Result)
	}

	h.eng.setAutoFinish(false)
	sub, err := h.cli.SubmitProof(ctx, porep("b"))
	if err != nil {
		t.Fatal(err)
	}
	h.eng.setRunning("b")
	c, err := h.cli.CancelProof(ctx, &cuzkv1.CancelProofRequest{JobId: sub.JobId})
	if err != nil {
		t.Fatal(err)
	}
	if !c.WasRunning {
		t.Error("was_running = false for a running job")
	}
	aw, err := h.cli.AwaitProof(ctx, &cuzkv1.AwaitProofRequest{JobId: "b"})
	if err != nil {
		t.Fatal(err)
	}
	if aw.Status != cuzkv1.AwaitProofResponse_CANCELLED {
		t.Fatalf("after cancel: %v", aw.Status)
	}
}

func TestPreloadEvict(t *testing.T) {
	h := newHarness(t)
	ctx := ctxT(t)
	p, err := h.cli.PreloadSRS(ctx, &cuzkv1.PreloadSrsRequest{CircuitId: "porep-32g"})
	if err != nil {
		t.Fatal(err)
	}
	if p.AlreadyLoaded || p.LoadTimeMs != 1234 {
		t.Fatalf("first preload: %v", p)
	}
	if p, err = h.cli.PreloadSRS(ctx, &cuzkv1.PreloadSrsRequest{CircuitId: "porep-32g"}); err != nil || !p.AlreadyLoaded {
		t.Fatalf("second preload: %v %v", p, err)
	}
	e, err := h.cli.EvictSRS(ctx, &cuzkv1.EvictSrsRequest{CircuitId: "porep-32g"})
	if err != nil {
		t.Fatal(err)
	}
	if !e.WasLoaded || e.FreedBytes != 44<<30 {
		t.Fatalf("evict: %v", e)
	}
	if e, err = h.cli.EvictSRS(ctx, &cuzkv1.EvictSrsRequest{CircuitId: "porep-32g"}); err != nil || e.WasLoaded {
		t.Fatalf("second evict: %v %v", e, err)
	}
}

func TestGetStatus(t *testing.T) {
	h := newHarness(t)
	h.eng.snapshot = engine.Snapshot{
		Devices: []engine.DeviceStatus{{Ordinal: 0, Name: "cpu", MemoryTotal: 24 << 30, MemoryFree: 20 << 30,
			CurrentJobID: "j1", CurrentProofKind: "porep-c2"}},
		SRS:             []engine.SRSStatus{{CircuitID: "porep-32g", Tier: engine.TierWarm, SizeBytes: 44 << 30, RefCount: 3}},
		Queues:          []engine.QueueStatus{{ProofKind: "porep-c2", Pending: 4, InProgress: 2}},
		ProofsCompleted: 10, ProofsFailed: 1, Uptime: 90 * time.Second,
		MemoryUsed: 30 << 30, MemoryLimit: 100 << 30,
	}
	st, err := h.cli.GetStatus(ctxT(t), &cuzkv1.GetStatusRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Gpus) != 1 || st.Gpus[0].Name != "cpu" || st.Gpus[0].VramFreeBytes != 20<<30 || st.Gpus[0].CurrentJobId != "j1" {
		t.Errorf("gpus %v", st.Gpus)
	}
	if len(st.LoadedSrs) != 1 || st.LoadedSrs[0].Tier != cuzkv1.SRSStatus_WARM || st.LoadedSrs[0].SizeBytes != 44<<30 || st.LoadedSrs[0].RefCount != 3 {
		t.Errorf("srs %v", st.LoadedSrs)
	}
	if len(st.Queues) != 1 || st.Queues[0].Pending != 4 || st.Queues[0].InProgress != 2 {
		t.Errorf("queues %v", st.Queues)
	}
	if st.TotalProofsCompleted != 10 || st.TotalProofsFailed != 1 || st.UptimeSeconds != 90 ||
		st.PinnedMemoryBytes != 30<<30 || st.PinnedMemoryLimitBytes != 100<<30 {
		t.Errorf("totals %v", st)
	}
}

func TestBadRequests(t *testing.T) {
	h := newHarness(t)
	ctx := ctxT(t)
	with := func(f func(r *cuzkv1.SubmitProofRequest)) *cuzkv1.ProveRequest {
		r := porep("x")
		f(r)
		return &cuzkv1.ProveRequest{Submit: r}
	}
	post := func(f func(r *cuzkv1.SubmitProofRequest)) *cuzkv1.ProveRequest {
		r := &cuzkv1.SubmitProofRequest{
			ProofKind: cuzkv1.ProofKind_WINDOW_POST_PARTITION, SectorSize: 32 << 30,
			VanillaProofs: [][]byte{{1}, {2}}, Randomness: make([]byte, 32),
		}
		f(r)
		return &cuzkv1.ProveRequest{Submit: r}
	}
	snap := func(f func(r *cuzkv1.SubmitProofRequest)) *cuzkv1.ProveRequest {
		r := &cuzkv1.SubmitProofRequest{
			ProofKind: cuzkv1.ProofKind_SNAP_DEALS_UPDATE, VanillaProofs: [][]byte{{1}},
			CommROld: make([]byte, 32), CommRNew: make([]byte, 32), CommDNew: make([]byte, 32),
		}
		f(r)
		return &cuzkv1.ProveRequest{Submit: r}
	}
	tests := []struct {
		name string
		call func() error
		code codes.Code
		want string // in the status message
	}{
		{"missing submit", func() error { _, err := h.cli.Prove(ctx, &cuzkv1.ProveRequest{}); return err },
			codes.InvalidArgument, "missing submit field"},
		{"unspecified kind", func() error {
			_, err := h.cli.Prove(ctx, with(func(r *cuzkv1.SubmitProofRequest) { r.ProofKind = 0 }))
			return err
		}, codes.InvalidArgument, "proof_kind is unspecified"},
		{"unknown kind", func() error {
			_, err := h.cli.SubmitProof(ctx, with(func(r *cuzkv1.SubmitProofRequest) { r.ProofKind = 9 }).Submit)
			return err
		}, codes.InvalidArgument, "invalid proof_kind 9"},
		{"bad priority", func() error {
			_, err := h.cli.Prove(ctx, with(func(r *cuzkv1.SubmitProofRequest) { r.Priority = 12 }))
			return err
		}, codes.InvalidArgument, "invalid priority 12"},
		{"empty vanilla proof", func() error {
			_, err := h.cli.Prove(ctx, with(func(r *cuzkv1.SubmitProofRequest) { r.VanillaProof = nil }))
			return err
		}, codes.InvalidArgument, "vanilla_proof is empty"},
		{"garbage vanilla proof", func() error {
			_, err := h.cli.Prove(ctx, with(func(r *cuzkv1.SubmitProofRequest) { r.VanillaProof = []byte("garbage\x00\xff") }))
			return err
		}, codes.InvalidArgument, "not C1 output JSON"},
		{"wrong sector size", func() error {
			_, err := h.cli.Prove(ctx, with(func(r *cuzkv1.SubmitProofRequest) { r.SectorSize = 1000 }))
			return err
		}, codes.InvalidArgument, "sector_size 1000"},
		{"post without vanilla proofs", func() error {
			_, err := h.cli.Prove(ctx, post(func(r *cuzkv1.SubmitProofRequest) { r.VanillaProofs = nil }))
			return err
		}, codes.InvalidArgument, "vanilla_proofs is empty"},
		{"post with an empty vanilla proof", func() error {
			_, err := h.cli.Prove(ctx, post(func(r *cuzkv1.SubmitProofRequest) { r.VanillaProofs[1] = nil }))
			return err
		}, codes.InvalidArgument, "vanilla_proofs[1] is empty"},
		{"post with an empty vanilla proof and descriptor", func() error {
			_, err := h.cli.Prove(ctx, post(func(r *cuzkv1.SubmitProofRequest) { r.VanillaProofs = [][]byte{nil}; r.VanillaProof = []byte("{}") }))
			return err
		}, codes.InvalidArgument, "vanilla_proofs[0] is empty"},
		{"post randomness 31 bytes", func() error {
			_, err := h.cli.Prove(ctx, post(func(r *cuzkv1.SubmitProofRequest) { r.Randomness = r.Randomness[:31] }))
			return err
		}, codes.InvalidArgument, "randomness is 31 bytes, want 32"},
		{"post without randomness", func() error {
			_, err := h.cli.Prove(ctx, post(func(r *cuzkv1.SubmitProofRequest) { r.Randomness = nil }))
			return err
		}, codes.InvalidArgument, "randomness is missing"},
		{"snap comm_d_new 33 bytes", func() error {
			_, err := h.cli.Prove(ctx, snap(func(r *cuzkv1.SubmitProofRequest) { r.CommDNew = make([]byte, 33) }))
			return err
		}, codes.InvalidArgument, "comm_d_new is 33 bytes"},
		{"snap without comm_r_old", func() error {
			_, err := h.cli.Prove(ctx, snap(func(r *cuzkv1.SubmitProofRequest) { r.CommROld = nil }))
			return err
		}, codes.InvalidArgument, "comm_r_old is missing"},
		{"request id too long", func() error {
			_, err := h.cli.Prove(ctx, with(func(r *cuzkv1.SubmitProofRequest) { r.RequestId = strings.Repeat("a", 300) }))
			return err
		}, codes.InvalidArgument, "request_id is 300 bytes"},
		{"await empty job id", func() error { _, err := h.cli.AwaitProof(ctx, &cuzkv1.AwaitProofRequest{}); return err },
			codes.InvalidArgument, "job_id is empty"},
		{"await unknown job", func() error {
			_, err := h.cli.AwaitProof(ctx, &cuzkv1.AwaitProofRequest{JobId: "nope"})
			return err
		}, codes.NotFound, "job not found"},
		{"cancel unknown job", func() error {
			_, err := h.cli.CancelProof(ctx, &cuzkv1.CancelProofRequest{JobId: "nope"})
			return err
		}, codes.NotFound, "job not found"},
		{"preload unknown circuit", func() error {
			_, err := h.cli.PreloadSRS(ctx, &cuzkv1.PreloadSrsRequest{CircuitId: "porep-1t"})
			return err
		}, codes.InvalidArgument, "unknown circuit id"},
		{"evict empty circuit", func() error { _, err := h.cli.EvictSRS(ctx, &cuzkv1.EvictSrsRequest{}); return err },
			codes.InvalidArgument, "circuit_id is empty"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.call()
			st := status.Convert(err)
			if st.Code() != tt.code || !strings.Contains(st.Message(), tt.want) {
				t.Fatalf("got %v %q, want %v containing %q", st.Code(), st.Message(), tt.code, tt.want)
			}
		})
	}
}

// The valid shapes Curio sends pass validation.
func TestCurioRequestsAccepted(t *testing.T) {
	h := newHarness(t)
	h.eng.setAutoFinish(true)
	ctx := ctxT(t)
	reqs := []*cuzkv1.SubmitProofRequest{
		{RequestId: "porep-1000-7", ProofKind: cuzkv1.ProofKind_POREP_SEAL_COMMIT, Priority: cuzkv1.Priority_NORMAL,
			SectorSize: 32 << 30, RegisteredProof: 8, VanillaProof: []byte(`{}`), SectorNumber: 7, MinerId: 1000},
		{RequestId: "ps-snap-1000-7-99", ProofKind: cuzkv1.ProofKind_SNAP_DEALS_UPDATE, RegisteredProof: 3,
			VanillaProofs: make16(), CommROld: make([]byte, 32), CommRNew: make([]byte, 32), CommDNew: make([]byte, 32)},
		{RequestId: "wdpost-1000-3-[1 2 3 4 5 6 7 8]", ProofKind: cuzkv1.ProofKind_WINDOW_POST_PARTITION,
			Priority: cuzkv1.Priority_HIGH, SectorSize: 32 << 30, VanillaProofs: [][]byte{{1}}, Randomness: make([]byte, 32), PartitionIndex: 3},
		{RequestId: "winpost-1000-0102030405060708", ProofKind: cuzkv1.ProofKind_WINNING_POST,
			Priority: cuzkv1.Priority_CRITICAL, SectorSize: 32 << 30, VanillaProofs: [][]byte{{1}}, Randomness: make([]byte, 32)},
	}
	// A synthetic job descriptor in vanilla_proof, for any kind.
	for k := cuzkv1.ProofKind_POREP_SEAL_COMMIT; k <= cuzkv1.ProofKind_WINNING_POST; k++ {
		reqs = append(reqs, &cuzkv1.SubmitProofRequest{RequestId: "synthetic-" + k.String(), ProofKind: k,
			VanillaProof: []byte(`{"synthetic":{"constraints":1024,"partitions":2,"seed":1}}`)})
	}
	for _, r := range reqs {
		res, err := h.cli.Prove(ctx, &cuzkv1.ProveRequest{Submit: r})
		if err != nil || res.Result.Status != cuzkv1.AwaitProofResponse_COMPLETED {
			t.Errorf("%s: %v %v", r.RequestId, res, err)
		}
	}
}

func make16() [][]byte {
	v := make([][]byte, 16)
	for i := range v {
		v[i] = []byte{byte(i + 1)}
	}
	return v
}

// rawCodec sends bytes as they are, to put malformed protobuf on the wire.
type rawCodec struct{}

func (rawCodec) Marshal(v any) ([]byte, error) { return *(v.(*[]byte)), nil }
func (rawCodec) Unmarshal(b []byte, v any) error {
	*(v.(*[]byte)) = append([]byte(nil), b...)
	return nil
}
func (rawCodec) Name() string { return "proto" }

var _ encoding.Codec = rawCodec{}

// Garbage of every kind (undecodable protobuf, garbage vanilla proofs, a
// handler panic) fails only the request that carried it; a proof in
// flight at the same time completes and the server keeps answering.
func TestGarbageKeepsServing(t *testing.T) {
	h := newHarness(t)
	ctx := ctxT(t)

	sub, err := h.cli.SubmitProof(ctx, porep("good"))
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan *cuzkv1.AwaitProofResponse, 1)
	go func() {
		res, err := h.cli.AwaitProof(ctx, &cuzkv1.AwaitProofRequest{JobId: sub.JobId})
		if err != nil {
			t.Error(err)
		}
		done <- res
	}()

	rng := rand.New(rand.NewPCG(1, 2))
	var wg sync.WaitGroup
	for i := 0; i < 40; i++ {
		junk := make([]byte, 1+rng.IntN(4096))
		for j := range junk {
			junk[j] = byte(rng.Uint32())
		}
		badKind := cuzkv1.ProofKind(rng.Int32N(1000) + 5)
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			var err error
			switch i % 4 {
			case 0: // bytes that are not a protobuf message
				var out []byte
				err = h.conn.Invoke(ctx, cuzkv1.ProvingEngine_Prove_FullMethodName, &junk, &out, grpc.ForceCodec(rawCodec{}))
			case 1: // a valid message with a garbage vanilla proof
				r := porep("")
				r.VanillaProof = append([]byte("garbage"), junk...)
				_, err = h.cli.Prove(ctx, &cuzkv1.ProveRequest{Submit: r})
			case 2: // a handler panic
				_, err = h.cli.Prove(ctx, &cuzkv1.ProveRequest{Submit: porep("panic")})
			case 3: // an unknown kind
				r := porep("")
				r.ProofKind = badKind
				_, err = h.cli.SubmitProof(ctx, r)
			}
			want := codes.InvalidArgument
			if i%4 == 2 {
				want = codes.Internal // a bug, not the client's fault
			}
			if c := status.Code(err); c != want {
				t.Errorf("garbage request %d: code %v, want %v (%v)", i, c, want, err)
			}
		}(i)
	}
	wg.Wait()

	if _, err := h.cli.GetStatus(ctx, &cuzkv1.GetStatusRequest{}); err != nil {
		t.Fatalf("server stopped answering: %v", err)
	}
	h.eng.finish("good", engine.Result{Status: engine.StatusCompleted, Proof: make([]byte, 192)})
	if res := <-done; res.GetStatus() != cuzkv1.AwaitProofResponse_COMPLETED {
		t.Fatalf("good job: %v", res)
	}
	if !strings.Contains(h.logs.String(), "panic in RPC handler") {
		t.Error("recovered panic not logged")
	}
	text, _ := h.metrics.Text()
	if !strings.Contains(text, "cuzk_rpc_panics_total 10") {
		t.Errorf("cuzk_rpc_panics_total is not 10:\n%s", grepLines(text, "panics"))
	}
}

func grepLines(text, sub string) string {
	var out []string
	for _, l := range strings.Split(text, "\n") {
		if strings.Contains(l, sub) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

func TestLargeMessage(t *testing.T) {
	size := 8 << 20 // over gRPC's 4 MiB default
	if !testing.Short() {
		size = 200 << 20
	}
	h := newHarness(t)
	h.eng.setAutoFinish(true)
	r := porep("big")
	r.VanillaProof = bytes.Repeat([]byte{'{'}, size)
	res, err := h.cli.Prove(ctxT(t), &cuzkv1.ProveRequest{Submit: r})
	if err != nil {
		t.Fatalf("%d-byte request: %v", size, err)
	}
	if res.Result.Status != cuzkv1.AwaitProofResponse_COMPLETED {
		t.Fatal(res.Result)
	}
	if got := len(h.eng.request("big").VanillaProof); got != size {
		t.Fatalf("engine got %d bytes, sent %d", got, size)
	}
}

func TestMetrics(t *testing.T) {
	h := newHarness(t)
	ctx := ctxT(t)
	h.eng.snapshot = engine.Snapshot{
		Devices:         []engine.DeviceStatus{{Ordinal: 0, Name: "cpu"}, {Ordinal: 1, Name: "sim"}},
		Queues:          []engine.QueueStatus{{ProofKind: "porep-c2", Pending: 3, InProgress: 1}, {ProofKind: "window-post", Pending: 2}},
		SRS:             []engine.SRSStatus{{CircuitID: "porep-32g", Tier: engine.TierHot, SizeBytes: 100, RefCount: 2}},
		ProofsCompleted: 7, ProofsFailed: 2, Uptime: 5 * time.Second,
	}
	h.eng.setAutoFinish(true)
	if _, err := h.cli.Prove(ctx, &cuzkv1.ProveRequest{Submit: porep("m1")}); err != nil {
		t.Fatal(err)
	}
	h.eng.setAutoFinish(false)
	if _, err := h.cli.SubmitProof(ctx, porep("m2")); err != nil {
		t.Fatal(err)
	}
	h.eng.finish("m2", engine.Result{Status: engine.StatusFailed, Error: "synthesis: boom"})
	for i := 0; i < 3; i++ { // awaited three times, counted once
		res, err := h.cli.AwaitProof(ctx, &cuzkv1.AwaitProofRequest{JobId: "m2"})
		if err != nil || res.Status != cuzkv1.AwaitProofResponse_FAILED || res.ErrorMessage != "synthesis: boom" {
			t.Fatalf("await failed job: %v %v", res, err)
		}
	}
	resp, err := h.cli.GetMetrics(ctx, &cuzkv1.GetMetricsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	text := resp.PrometheusText
	for _, want := range []string{
		"cuzk_proofs_completed_total 7",
		"cuzk_proofs_failed_total 2",
		"cuzk_uptime_seconds 5",
		"cuzk_queue_depth 5",
		`cuzk_proof_results_total{proof_kind="porep-c2",status="completed"} 1`,
		`cuzk_proof_results_total{proof_kind="porep-c2",status="failed"} 1`,
		`cuzk_proof_duration_seconds_count{proof_kind="porep-c2"} 1`,
		`cuzk_proof_duration_seconds_sum{proof_kind="porep-c2"} 1.5`,
		"cuzk_running_jobs 1",
		"cuzk_gpu_workers 4",
		`cuzk_queue_pending_jobs{proof_kind="window-post"} 2`,
		`cuzk_srs_size_bytes{circuit_id="porep-32g",tier="hot"} 100`,
		`cuzk_srs_references{circuit_id="porep-32g"} 2`,
		`cuzk_rpc_requests_total{code="OK",method="/cuzk.v1.ProvingEngine/AwaitProof"} 3`,
		"go_goroutines",
	} {
		if !strings.Contains(text, want+"\n") && !strings.Contains(text, want+" ") && !(want == "go_goroutines" && strings.Contains(text, want)) {
			t.Errorf("metrics lack %q", want)
		}
	}
	if t.Failed() {
		t.Log(grepLines(text, "cuzk_"))
	}
}

func TestReflection(t *testing.T) {
	h := newHarness(t)
	// grpc.reflection.v1 lists the service; a raw stream keeps the test
	// free of the reflection client package.
	desc := &grpc.StreamDesc{ServerStreams: true, ClientStreams: true}
	stream, err := h.conn.NewStream(ctxT(t), desc, "/grpc.reflection.v1.ServerReflection/ServerReflectionInfo", grpc.ForceCodec(rawCodec{}))
	if err != nil {
		t.Fatal(err)
	}
	// ServerReflectionRequest{list_services: ""} = field 7, empty string.
	req := []byte{0x3a, 0x00}
	if err := stream.SendMsg(&req); err != nil {
		t.Fatal(err)
	}
	stream.CloseSend()
	var resp []byte
	if err := stream.RecvMsg(&resp); err != nil && err != io.EOF {
		t.Fatal(err)
	}
	if !bytes.Contains(resp, []byte("cuzk.v1.ProvingEngine")) {
		t.Fatalf("reflection list does not name cuzk.v1.ProvingEngine: %q", resp)
	}
}

// A bad id names the field it came in.
func TestBadIDNamesItsField(t *testing.T) {
	h := newHarness(t)
	ctx := ctxT(t)
	long := strings.Repeat("x", 1000)
	for _, tt := range []struct {
		name, want string
		call       func() error
	}{
		{"await", "job_id is 1000 bytes", func() error {
			_, err := h.cli.AwaitProof(ctx, &cuzkv1.AwaitProofRequest{JobId: long})
			return err
		}},
		{"cancel", "job_id has a non-printable character at byte 1", func() error {
			_, err := h.cli.CancelProof(ctx, &cuzkv1.CancelProofRequest{JobId: "a\x00"})
			return err
		}},
		{"preload", "circuit_id is 1000 bytes", func() error {
			_, err := h.cli.PreloadSRS(ctx, &cuzkv1.PreloadSrsRequest{CircuitId: long})
			return err
		}},
		{"evict", "circuit_id has a non-printable character at byte 0", func() error {
			_, err := h.cli.EvictSRS(ctx, &cuzkv1.EvictSrsRequest{CircuitId: "\n"})
			return err
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			st := status.Convert(tt.call())
			if st.Code() != codes.InvalidArgument || !strings.Contains(st.Message(), tt.want) {
				t.Fatalf("got %v %q, want InvalidArgument containing %q", st.Code(), st.Message(), tt.want)
			}
		})
	}
}

// Bytes the server cannot decode into the request message are the
// client's fault: InvalidArgument with the reason, counted like any other
// rejected request, and the server keeps serving.
func TestUndecodableRequestIsInvalidArgument(t *testing.T) {
	h := newHarness(t)
	ctx := ctxT(t)
	// CancelProofRequest{job_id: "\xff\xfe"}: field 1, invalid UTF-8.
	badUTF8 := []byte{0x0a, 0x02, 0xff, 0xfe}
	// A length prefix that runs past the end of the message.
	truncated := []byte{0x0a, 0x7f, 'a'}
	// A field number of 0, which protobuf forbids.
	fieldZero := []byte{0x00, 0x01}
	for _, tt := range []struct {
		name, method string
		body         []byte
	}{
		{"cancel invalid UTF-8", cuzkv1.ProvingEngine_CancelProof_FullMethodName, badUTF8},
		{"evict invalid UTF-8", cuzkv1.ProvingEngine_EvictSRS_FullMethodName, badUTF8},
		{"preload truncated", cuzkv1.ProvingEngine_PreloadSRS_FullMethodName, truncated},
		{"await truncated", cuzkv1.ProvingEngine_AwaitProof_FullMethodName, truncated},
		{"prove truncated", cuzkv1.ProvingEngine_Prove_FullMethodName, truncated},
		{"submit field 0", cuzkv1.ProvingEngine_SubmitProof_FullMethodName, fieldZero},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var out []byte
			err := h.conn.Invoke(ctx, tt.method, &tt.body, &out, grpc.ForceCodec(rawCodec{}))
			st := status.Convert(err)
			if st.Code() != codes.InvalidArgument || !strings.Contains(st.Message(), "malformed") {
				t.Fatalf("got %v %q, want InvalidArgument saying the request is malformed", st.Code(), st.Message())
			}
			if testing.Verbose() {
				t.Log(st.Message())
			}
		})
	}
	if _, err := h.cli.GetStatus(ctx, &cuzkv1.GetStatusRequest{}); err != nil {
		t.Fatalf("server stopped answering: %v", err)
	}
	text, _ := h.metrics.Text()
	if want := `cuzk_rpc_requests_total{code="InvalidArgument",method="/cuzk.v1.ProvingEngine/CancelProof"} 1`; !strings.Contains(text, want) {
		t.Errorf("metrics lack %q:\n%s", want, grepLines(text, "rpc_requests"))
	}
}

// A request with more vanilla_proofs than any proof needs is refused
// before it is decoded: 1-byte entries cost ~48 bytes each to decode, so
// a 256 MiB message of them would take ~12 GiB of the daemon's memory.
func TestTooManyVanillaProofs(t *testing.T) {
	h := newHarness(t)
	h.eng.setAutoFinish(true)
	ctx := ctxT(t)
	post := func(n int) *cuzkv1.SubmitProofRequest {
		r := &cuzkv1.SubmitProofRequest{RequestId: fmt.Sprintf("wdpost-%d", n), ProofKind: cuzkv1.ProofKind_WINDOW_POST_PARTITION,
			SectorSize: 32 << 30, Randomness: make([]byte, 32), VanillaProofs: make([][]byte, n)}
		for i := range r.VanillaProofs {
			r.VanillaProofs[i] = []byte{7}
		}
		return r
	}
	want := fmt.Sprintf("vanilla_proofs has %d entries (max %d)", maxVanillaProofs+1, maxVanillaProofs)
	_, err := h.cli.SubmitProof(ctx, post(maxVanillaProofs+1))
	if st := status.Convert(err); st.Code() != codes.InvalidArgument || !strings.Contains(st.Message(), want) {
		t.Errorf("SubmitProof: got %v %q, want InvalidArgument containing %q", st.Code(), st.Message(), want)
	}
	_, err = h.cli.Prove(ctx, &cuzkv1.ProveRequest{Submit: post(maxVanillaProofs + 1)})
	if st := status.Convert(err); st.Code() != codes.InvalidArgument || !strings.Contains(st.Message(), want) {
		t.Errorf("Prove: got %v %q, want InvalidArgument containing %q", st.Code(), st.Message(), want)
	}
	// As many as allowed go through, counted right across frames.
	res, err := h.cli.Prove(ctx, &cuzkv1.ProveRequest{Submit: post(maxVanillaProofs)})
	if err != nil || res.Result.Status != cuzkv1.AwaitProofResponse_COMPLETED {
		t.Fatalf("%d vanilla proofs: %v %v", maxVanillaProofs, res, err)
	}
	if got := len(h.eng.request(fmt.Sprintf("wdpost-%d", maxVanillaProofs)).VanillaProofs); got != maxVanillaProofs {
		t.Fatalf("engine got %d vanilla proofs", got)
	}
}

// A retry under the id of a FAILED job is a new job: its result is
// counted too, while awaiting one result again is not.
func TestMetricsCountRetry(t *testing.T) {
	h := newHarness(t)
	ctx := ctxT(t)
	for i, st := range []engine.Status{engine.StatusFailed, engine.StatusFailed, engine.StatusCompleted} {
		done := make(chan error, 1)
		go func() {
			_, err := h.cli.Prove(ctx, &cuzkv1.ProveRequest{Submit: porep("porep-1000-3")})
			done <- err
		}()
		for h.eng.attempts("porep-1000-3") != i+1 {
			time.Sleep(time.Millisecond)
		}
		h.eng.finish("porep-1000-3", engine.Result{Status: st, Proof: make([]byte, 192), Error: "boom", Total: time.Duration(i+1) * time.Second})
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		if _, err := h.cli.AwaitProof(ctx, &cuzkv1.AwaitProofRequest{JobId: "porep-1000-3"}); err != nil {
			t.Fatal(err)
		}
	}
	text, _ := h.metrics.Text()
	for _, want := range []string{`cuzk_proof_results_total{proof_kind="porep-c2",status="failed"} 2`, `cuzk_proof_results_total{proof_kind="porep-c2",status="completed"} 1`} {
		if !strings.Contains(text, want+"\n") {
			t.Errorf("metrics lack %q:\n%s", want, grepLines(text, "cuzk_proof_results"))
		}
	}
}
