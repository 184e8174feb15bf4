package server

import (
	"errors"
	"fmt"
	"math"
	"time"
	"unicode"

	"github.com/cuzk-project/cuzk/engine"
	cuzkv1 "github.com/cuzk-project/cuzk/proto/cuzk/v1"
)

// errBadRequest marks a request the server rejects before it reaches the
// engine; it maps onto InvalidArgument like engine.ErrInvalidRequest.
var errBadRequest = errors.New("invalid request")

// maxRequestIDLen bounds request, job and circuit ids; Curio's are < 100 bytes.
const maxRequestIDLen = 256

// Byte lengths fixed by the Filecoin proof formats.
const (
	randomnessLen = 32 // PoSt challenge seed
	commLen       = 32 // a Fr commitment
	commCIDLenD   = 39 // CIDv1 fil-commitment-unsealed, sha2-256-trunc254-padded, 32-byte digest
	commCIDLenR   = 40 // CIDv1 fil-commitment-sealed, poseidon-bls12_381-a2-fc1, 32-byte digest
)

// sectorSizes are the sector sizes Filecoin defines; 0 means "derive it
// from registered_proof" (Curio's ProofShare SnapDeals requests send 0).
var sectorSizes = map[uint64]bool{
	0:         true,
	2 << 10:   true, // 2 KiB
	8 << 20:   true, // 8 MiB
	512 << 20: true, // 512 MiB
	32 << 30:  true, // 32 GiB
	64 << 30:  true, // 64 GiB
}

func badRequest(format string, args ...any) error {
	return fmt.Errorf("%w: %s", errBadRequest, fmt.Sprintf(format, args...))
}

// RequestFromProto checks the shape of a SubmitProofRequest (what the
// server can judge without parsing vanilla proofs) and converts it. The
// engine checks the contents.
func RequestFromProto(p *cuzkv1.SubmitProofRequest) (engine.Request, error) {
	if p == nil {
		return engine.Request{}, badRequest("missing submit field")
	}
	if err := checkRequestID(p.RequestId); err != nil {
		return engine.Request{}, err
	}
	kind := p.ProofKind
	switch kind {
	case cuzkv1.ProofKind_POREP_SEAL_COMMIT, cuzkv1.ProofKind_SNAP_DEALS_UPDATE,
		cuzkv1.ProofKind_WINDOW_POST_PARTITION, cuzkv1.ProofKind_WINNING_POST:
	case cuzkv1.ProofKind_PROOF_KIND_UNSPECIFIED:
		return engine.Request{}, badRequest("proof_kind is unspecified")
	default:
		return engine.Request{}, badRequest("invalid proof_kind %d (want 1-4)", int32(kind))
	}
	if p.Priority < cuzkv1.Priority_PRIORITY_UNSPECIFIED || p.Priority > cuzkv1.Priority_CRITICAL {
		return engine.Request{}, badRequest("invalid priority %d (want 0-4)", int32(p.Priority))
	}
	if !sectorSizes[p.SectorSize] {
		return engine.Request{}, badRequest("sector_size %d is not a Filecoin sector size", p.SectorSize)
	}
	// PoRep carries its C1 output in vanilla_proof; PoSt and SnapDeals
	// carry theirs in vanilla_proofs. A single vanilla_proof is accepted
	// for every kind (the synthetic job descriptor); the engine judges
	// what it contains.
	for i, v := range p.VanillaProofs {
		if len(v) == 0 {
			return engine.Request{}, badRequest("vanilla_proofs[%d] is empty", i)
		}
	}
	multi := len(p.VanillaProofs) > 0
	switch {
	case kind == cuzkv1.ProofKind_POREP_SEAL_COMMIT && len(p.VanillaProof) == 0:
		return engine.Request{}, badRequest("vanilla_proof is empty (POREP_SEAL_COMMIT needs the C1 output)")
	case kind != cuzkv1.ProofKind_POREP_SEAL_COMMIT && !multi && len(p.VanillaProof) == 0:
		return engine.Request{}, badRequest("vanilla_proofs is empty (%s needs one per sector or partition)", kind)
	}
	needRandomness := multi && (kind == cuzkv1.ProofKind_WINDOW_POST_PARTITION || kind == cuzkv1.ProofKind_WINNING_POST)
	if err := checkFixed("randomness", p.Randomness, randomnessLen, needRandomness); err != nil {
		return engine.Request{}, err
	}
	needComms := multi && kind == cuzkv1.ProofKind_SNAP_DEALS_UPDATE
	for _, c := range []struct {
		name string
		b    []byte
	}{{"comm_r_old", p.CommROld}, {"comm_r_new", p.CommRNew}, {"comm_d_new", p.CommDNew}} {
		if err := checkComm(c.name, c.b, needComms); err != nil {
			return engine.Request{}, err
		}
	}
	return engine.Request{
		RequestID:       p.RequestId,
		Kind:            engine.ProofKind(kind),
		SectorSize:      p.SectorSize,
		RegisteredProof: p.RegisteredProof,
		Priority:        engine.Priority(p.Priority),
		VanillaProof:    p.VanillaProof,
		VanillaProofs:   p.VanillaProofs,
		SectorNumber:    p.SectorNumber,
		MinerID:         p.MinerId,
		Randomness:      p.Randomness,
		PartitionIndex:  p.PartitionIndex,
		CommROld:        p.CommROld,
		CommRNew:        p.CommRNew,
		CommDNew:        p.CommDNew,
	}, nil
}

// checkRequestID checks an optional request_id ("" = the engine makes one).
func checkRequestID(id string) error { return checkIDChars("request_id", id) }

// checkID checks a required identifier field (job_id, circuit_id).
func checkID(field, id string) error {
	if id == "" {
		return badRequest("%s is empty", field)
	}
	return checkIDChars(field, id)
}

// checkIDChars bounds an identifier's length and rejects characters that
// would garble logs and timelines; errors name the field.
func checkIDChars(field, id string) error {
	if len(id) > maxRequestIDLen {
		return badRequest("%s is %d bytes (max %d)", field, len(id), maxRequestIDLen)
	}
	for i, r := range id {
		if !unicode.IsPrint(r) {
			return badRequest("%s has a non-printable character at byte %d", field, i)
		}
	}
	return nil
}

// checkComm checks a SnapDeals commitment field: the 32-byte digest
// Curio's client sends, or the binary commitment CID (40 bytes for comm_r,
// 39 for comm_d) that earlier Curio versions sent (cid.Bytes()). Which
// kind of CID it is, and that the digest is a canonical scalar, the
// planner checks.
func checkComm(name string, b []byte, required bool) error {
	switch len(b) {
	case commLen, commCIDLenD, commCIDLenR:
		return nil
	case 0:
		return checkFixed(name, b, commLen, required)
	}
	return badRequest("%s is %d bytes, want %d (a digest) or a binary commitment CID (%d or %d bytes)",
		name, len(b), commLen, commCIDLenD, commCIDLenR)
}

// checkFixed checks an optional fixed-size byte field.
func checkFixed(name string, b []byte, size int, required bool) error {
	switch {
	case len(b) == 0 && required:
		return badRequest("%s is missing (%d bytes required)", name, size)
	case len(b) != 0 && len(b) != size:
		return badRequest("%s is %d bytes, want %d", name, len(b), size)
	}
	return nil
}

// fromMillis turns a timeout_ms into a duration (0 = none), saturating
// instead of overflowing.
func fromMillis(ms uint64) time.Duration {
	if ms > uint64(math.MaxInt64/int64(time.Millisecond)) {
		return time.Duration(math.MaxInt64)
	}
	return time.Duration(ms) * time.Millisecond
}

func millis(d time.Duration) uint64 {
	if d <= 0 {
		return 0
	}
	return uint64(d / time.Millisecond)
}

func resultToProto(r engine.Result) *cuzkv1.AwaitProofResponse {
	return &cuzkv1.AwaitProofResponse{
		JobId:        r.JobID,
		Status:       cuzkv1.AwaitProofResponse_Status(r.Status),
		Proof:        r.Proof,
		ErrorMessage: r.Error,
		QueueWaitMs:  millis(r.QueueWait),
		SrsLoadMs:    millis(r.SRSLoad),
		SynthesisMs:  millis(r.Synthesis),
		GpuComputeMs: millis(r.GPUCompute),
		TotalMs:      millis(r.Total),
	}
}

func snapshotToProto(s engine.Snapshot) *cuzkv1.GetStatusResponse {
	out := &cuzkv1.GetStatusResponse{
		TotalProofsCompleted:   s.ProofsCompleted,
		TotalProofsFailed:      s.ProofsFailed,
		UptimeSeconds:          uint64(s.Uptime / time.Second),
		PinnedMemoryBytes:      s.MemoryUsed,
		PinnedMemoryLimitBytes: s.MemoryLimit,
	}
	for _, d := range s.Devices {
		out.Gpus = append(out.Gpus, &cuzkv1.GPUStatus{
			Ordinal:          d.Ordinal,
			Name:             d.Name,
			VramTotalBytes:   d.MemoryTotal,
			VramFreeBytes:    d.MemoryFree,
			CurrentJobId:     d.CurrentJobID,
			CurrentProofKind: d.CurrentProofKind,
		})
	}
	for _, e := range s.SRS {
		out.LoadedSrs = append(out.LoadedSrs, &cuzkv1.SRSStatus{
			CircuitId: e.CircuitID,
			Tier:      cuzkv1.SRSStatus_Tier(e.Tier),
			SizeBytes: e.SizeBytes,
			RefCount:  e.RefCount,
		})
	}
	for _, q := range s.Queues {
		out.Queues = append(out.Queues, &cuzkv1.QueueStatus{
			ProofKind:  q.ProofKind,
			Pending:    q.Pending,
			InProgress: q.InProgress,
		})
	}
	return out
}

func statusLabel(s engine.Status) string {
	switch s {
	case engine.StatusCompleted:
		return "completed"
	case engine.StatusFailed:
		return "failed"
	case engine.StatusCancelled:
		return "cancelled"
	case engine.StatusTimeout:
		return "timeout"
	}
	return "unknown"
}

func tierLabel(t engine.SRSTier) string {
	switch t {
	case engine.TierHot:
		return "hot"
	case engine.TierWarm:
		return "warm"
	case engine.TierCold:
		return "cold"
	}
	return "unknown"
}
