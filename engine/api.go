package engine

import (
	"errors"
	"time"

	"github.com/cuzk-project/cuzk/groth16"
)

// ProofKind is what a request asks to prove. Values equal cuzk.v1.ProofKind.
type ProofKind int32

const (
	KindUnspecified         ProofKind = 0
	KindPoRepSealCommit     ProofKind = 1
	KindSnapDealsUpdate     ProofKind = 2
	KindWindowPoStPartition ProofKind = 3
	KindWinningPoSt         ProofKind = 4
)

// Priority orders jobs: CRITICAL > HIGH > NORMAL > LOW, FIFO within a level.
// Values equal cuzk.v1.Priority; Unspecified means the kind's default.
type Priority int32

const (
	PriorityUnspecified Priority = 0
	PriorityLow         Priority = 1
	PriorityNormal      Priority = 2
	PriorityHigh        Priority = 3
	PriorityCritical    Priority = 4
)

// Request is one proof request, field for field the cuzk.v1
// SubmitProofRequest.
type Request struct {
	RequestID       string // idempotency key; becomes the job id ("" → generated)
	Kind            ProofKind
	SectorSize      uint64
	RegisteredProof uint64
	Priority        Priority
	VanillaProof    []byte   // PoRep: C1 wrapper JSON (or a synthetic job descriptor)
	VanillaProofs   [][]byte // PoSt: one per sector; SnapDeals: one per partition
	SectorNumber    uint64
	MinerID         uint64
	Randomness      []byte
	PartitionIndex  uint32
	CommROld        []byte
	CommRNew        []byte
	CommDNew        []byte
}

// Status is a job's final state. Values equal cuzk.v1 AwaitProofResponse.Status.
type Status int32

const (
	StatusUnknown   Status = 0
	StatusCompleted Status = 1
	StatusFailed    Status = 2
	StatusCancelled Status = 3
	StatusTimeout   Status = 4
)

// Result is a job's outcome, field for field the cuzk.v1 AwaitProofResponse.
type Result struct {
	JobID  string
	Status Status
	Proof  []byte // 192 bytes per partition, in partition order (or what Plan.Finalize made of them: a non-interactive PoRep's aggregate); verified
	Error  string
	// Invalid: FAILED through the request's own fault (its error wraps
	// ErrInvalidRequest, e.g. a vanilla proof whose path the synthesis
	// found not to reach its root): no retry, here or elsewhere, can
	// succeed.
	Invalid bool
	// The parts of Total, which add up to at most Total (the rest is
	// "other": device Prepare/Finish, proof assembly, verification):
	// each moment counts once, for the most advanced thing a partition
	// was doing (a device Run, else synthesis, else other, else waiting).
	QueueWait  time.Duration // no partition at work: queued, waiting for memory or a device
	SRSLoad    time.Duration // loading the parameters
	Synthesis  time.Duration // a partition synthesizing, none on the device
	GPUCompute time.Duration // a partition in a device Run
	Total      time.Duration
}

// Snapshot is the engine's state for GetStatus and /status.
type Snapshot struct {
	Devices         []DeviceStatus
	SRS             []SRSStatus
	Queues          []QueueStatus
	ProofsCompleted uint64
	ProofsFailed    uint64
	Uptime          time.Duration
	MemoryUsed      uint64 // bytes reserved in the budget
	MemoryLimit     uint64 // the budget
	// Claims counts the units whose reservation took over a staging's
	// share: kept already (Claims.Kept), or the one the Run in flight
	// would keep, reserved ahead of it (Claims.Ahead; Missed: those whose
	// staging did not come, which reserved the rest themselves).
	Claims ClaimCounts
	// AuxKept is the bytes of the dead aux vector kept, and counted, for
	// the next witness synthesis; AuxReused counts the units that took
	// one (their synthesis filled it instead of a vector made anew).
	AuxKept, AuxReused uint64
	Cluster            *ClusterStatus // nil unless the daemon is in cluster mode
}

// ClaimCounts counts units that took over a staging's share of the memory
// budget (Snapshot.Claims).
type ClaimCounts struct {
	Kept, Ahead, Missed uint64
}

// DeviceStatus describes one proving device.
type DeviceStatus struct {
	Ordinal          uint32
	Name             string
	MemoryTotal      uint64
	MemoryFree       uint64
	CurrentJobID     string
	CurrentProofKind string // "porep-c2", "snap-update", "window-post", "winning-post"
	// Phases sums the timed parts of the device's Runs (groth16.RunReport),
	// by name; empty for a device that does not time them.
	Phases []PhaseTotal
	// PreparePhases sums the timed parts of the device's Prepares
	// (groth16.PrepareReport), by name.
	PreparePhases []PhaseTotal
	// KeptBytes is the memory budget held by buffers the device keeps for
	// the next partition (groth16.Profile.KeptBytes: the CUDA device's a, b
	// stagings).
	KeptBytes uint64
	// Lost is the error that took the device out of service
	// (groth16.ErrDeviceLost); "" while it works.
	Lost string
}

// SRSTier is an SRS entry's residency. Values equal cuzk.v1 SRSStatus.Tier.
type SRSTier int32

const (
	TierHot  SRSTier = 0
	TierWarm SRSTier = 1
	TierCold SRSTier = 2
)

// SRSStatus describes one parameter set known to the engine.
type SRSStatus struct {
	CircuitID string
	Tier      SRSTier
	SizeBytes uint64
	RefCount  uint32
	OnDevice  bool   // the points are in the devices' memory (the host keeps the verifying key)
	FromFile  bool   // OnDevice, but part of the points are read from their file at every proof
	HostCopy  uint64 // of SizeBytes, a page-locked copy of part of what streams (device.stream_cache)
	Kept      string // why the set is not evicted for other work (Engine.Urgent), "" when nothing keeps it
}

// QueueStatus counts the work of one proof kind.
type QueueStatus struct {
	ProofKind  string
	Pending    uint32
	InProgress uint32
}

// Sentinel errors callers branch on.
var (
	ErrInvalidRequest = errors.New("invalid request") // → gRPC InvalidArgument
	ErrNotFound       = errors.New("job not found")   // → gRPC NotFound
	ErrUnknownCircuit = groth16.ErrUnknownCircuit     // → gRPC InvalidArgument / NotFound
	ErrCancelled      = errors.New("job cancelled")
	ErrClosed         = errors.New("engine closed")
	// ErrParamsMissing: a circuit's parameter file is not in the
	// parameter cache (→ gRPC FailedPrecondition, the message names it).
	ErrParamsMissing = errors.New("parameter file missing")
)
