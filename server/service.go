package server

import (
	"context"
	"log/slog"
	"math"

	"github.com/cuzk-project/cuzk/engine"
	cuzkv1 "github.com/cuzk-project/cuzk/proto/cuzk/v1"
)

// Service implements cuzkv1.ProvingEngineServer on top of an Engine.
type Service struct {
	cuzkv1.UnimplementedProvingEngineServer

	eng     Engine
	metrics *Metrics
	log     *slog.Logger
}

// NewService returns the gRPC service for eng. metrics may be shared with
// the HTTP endpoint; log may be nil.
func NewService(eng Engine, metrics *Metrics, log *slog.Logger) *Service {
	if log == nil {
		log = slog.Default()
	}
	return &Service{eng: eng, metrics: metrics, log: log}
}

var _ cuzkv1.ProvingEngineServer = (*Service)(nil)

// SubmitProof validates and enqueues a request.
func (s *Service) SubmitProof(ctx context.Context, req *cuzkv1.SubmitProofRequest) (*cuzkv1.SubmitProofResponse, error) {
	r, err := RequestFromProto(req)
	if err != nil {
		return nil, toStatus(err)
	}
	id, pos, err := s.eng.Submit(ctx, r)
	if err != nil {
		return nil, toStatus(err)
	}
	s.metrics.rememberKind(id, r.Kind.String())
	return &cuzkv1.SubmitProofResponse{JobId: id, QueuePosition: clampU32(pos)}, nil
}

// AwaitProof waits for a job. A timeout_ms that passes before the job
// ends yields status TIMEOUT; the job keeps running.
func (s *Service) AwaitProof(ctx context.Context, req *cuzkv1.AwaitProofRequest) (*cuzkv1.AwaitProofResponse, error) {
	if err := checkID("job_id", req.JobId); err != nil {
		return nil, toStatus(err)
	}
	res, err := s.eng.Await(ctx, req.JobId, fromMillis(req.TimeoutMs))
	if err != nil {
		return nil, toStatus(err)
	}
	if res.JobID == "" {
		res.JobID = req.JobId
	}
	s.observe(res, "")
	return resultToProto(res), nil
}

// Prove submits a request and waits for its result.
func (s *Service) Prove(ctx context.Context, req *cuzkv1.ProveRequest) (*cuzkv1.ProveResponse, error) {
	r, err := RequestFromProto(req.Submit)
	if err != nil {
		return nil, toStatus(err)
	}
	res, err := s.eng.Prove(ctx, r)
	if err != nil {
		return nil, toStatus(err)
	}
	s.observe(res, r.Kind.String())
	return &cuzkv1.ProveResponse{Result: resultToProto(res)}, nil
}

// observe counts a final result in the metrics; a TIMEOUT is not final.
func (s *Service) observe(res engine.Result, kind string) {
	switch res.Status {
	case engine.StatusCompleted, engine.StatusFailed, engine.StatusCancelled:
		s.metrics.observeResult(res.JobID, kind, statusLabel(res.Status), res.Total)
	}
}

// CancelProof cancels a job.
func (s *Service) CancelProof(ctx context.Context, req *cuzkv1.CancelProofRequest) (*cuzkv1.CancelProofResponse, error) {
	if err := checkID("job_id", req.JobId); err != nil {
		return nil, toStatus(err)
	}
	running, err := s.eng.Cancel(req.JobId)
	if err != nil {
		return nil, toStatus(err)
	}
	s.log.Info("job cancelled", "job_id", req.JobId, "was_running", running)
	return &cuzkv1.CancelProofResponse{WasRunning: running}, nil
}

// GetStatus reports the engine's state.
func (s *Service) GetStatus(ctx context.Context, _ *cuzkv1.GetStatusRequest) (*cuzkv1.GetStatusResponse, error) {
	st := s.eng.Status()
	setClusterHeader(ctx, st.Cluster)
	return snapshotToProto(st), nil
}

// GetMetrics returns the Prometheus text exposition.
func (s *Service) GetMetrics(ctx context.Context, _ *cuzkv1.GetMetricsRequest) (*cuzkv1.GetMetricsResponse, error) {
	text, err := s.metrics.Text()
	if err != nil {
		return nil, toStatus(err)
	}
	return &cuzkv1.GetMetricsResponse{PrometheusText: text}, nil
}

// PreloadSRS makes a circuit's parameters resident.
func (s *Service) PreloadSRS(ctx context.Context, req *cuzkv1.PreloadSrsRequest) (*cuzkv1.PreloadSrsResponse, error) {
	if err := checkID("circuit_id", req.CircuitId); err != nil {
		return nil, toStatus(err)
	}
	already, took, err := s.eng.Preload(ctx, req.CircuitId)
	if err != nil {
		return nil, toStatus(err)
	}
	s.log.Info("srs preloaded", "circuit_id", req.CircuitId, "already_loaded", already, "load_time", took)
	return &cuzkv1.PreloadSrsResponse{AlreadyLoaded: already, LoadTimeMs: millis(took)}, nil
}

// EvictSRS drops a circuit's parameters.
func (s *Service) EvictSRS(ctx context.Context, req *cuzkv1.EvictSrsRequest) (*cuzkv1.EvictSrsResponse, error) {
	if err := checkID("circuit_id", req.CircuitId); err != nil {
		return nil, toStatus(err)
	}
	was, freed, err := s.eng.Evict(req.CircuitId)
	if err != nil {
		return nil, toStatus(err)
	}
	s.log.Info("srs evicted", "circuit_id", req.CircuitId, "was_loaded", was, "freed_bytes", freed)
	return &cuzkv1.EvictSrsResponse{WasLoaded: was, FreedBytes: freed}, nil
}

func clampU32(n int) uint32 {
	switch {
	case n < 0:
		return 0
	case uint64(n) > math.MaxUint32:
		return math.MaxUint32
	}
	return uint32(n)
}
