package engine

import (
	"context"
	"time"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-project/cuzk/groth16"
	"github.com/cuzk-project/cuzk/r1cs"
	"github.com/cuzk-project/cuzk/r1cs/compiled"
)

// Planner turns a request into a Plan: the circuits registry implements it.
// Plan must be cheap (parse and check the request, build closures); the
// heavy work happens in each Partition's Synthesize. A malformed request
// returns an error wrapping ErrInvalidRequest that says what is wrong.
type Planner interface {
	Plan(ctx context.Context, req *Request) (*Plan, error)
}

// Plan is one job's work: a parameter set and N independent partitions.
type Plan struct {
	// CircuitID names the parameter set (e.g. "porep-32g",
	// "synthetic-16-7-1").
	CircuitID string
	// Partitions are proved independently; their proofs are concatenated
	// in this order.
	Partitions []Partition
	// PublicInputs holds each partition's public inputs (ONE excluded) as
	// the verifier derives them from the request. Nil means "as
	// synthesized": the assignment's inputs are used.
	PublicInputs [][]fr.Element
	// Verify checks all partition proofs at once (batch verification)
	// against inputs[i] for proofs[i]. Required: no proof leaves the engine
	// unverified.
	Verify func(vk *groth16.VerifyingKey, proofs []groth16.Proof, inputs [][]fr.Element) error
	// System, when set, returns the circuit's pre-compiled constraint
	// system (its provider caches it: on disk, and opened once per
	// process). With it, and Config.WitnessSynthesis, the engine computes
	// only the partitions' witnesses (Partition.Witness) and the device
	// evaluates a, b and c.
	System func(ctx context.Context) (*compiled.System, error)
	// Finalize, when set, turns the verified concatenation of the
	// partition proofs into what the job returns (non-interactive PoRep:
	// their aggregate). The engine calls it once, after every partition
	// proof is in and Verify accepted them, with the job's context
	// (cancelled when the job is cancelled or fails) and the parameters'
	// verifying key, and returns its result instead of the concatenation. Invariant: Finalize verifies
	// what it returns before returning it, as Verify does for the
	// partitions, so that no unverified proof leaves the engine. An error
	// fails the job (ErrProofInvalid, "finalize: ...").
	Finalize func(ctx context.Context, vk *groth16.VerifyingKey, proof []byte) ([]byte, error)
}

// Partition is one unit of work.
type Partition struct {
	// Synthesize builds the partition's assignment. ctx is cancelled when
	// the job is cancelled or fails; a long synthesis may return early.
	Synthesize func(ctx context.Context) (*groth16.Assignment, error)
	// Witness, when set, computes the partition's witness only (inputs and
	// aux), for the witness-only path (Plan.System).
	Witness func(ctx context.Context) (*r1cs.WitnessAssignment, error)
	// Footprint is the partition's host memory (footprint.go).
	Footprint
	// WitnessThreads is the goroutines the Witness synthesis keeps busy
	// (0: 1). The engine starts syntheses while their threads add up to at
	// most Config.SynthesisWorkers, so that a partition whose witness is
	// computed over many cores is not slowed by many others beside it.
	WitnessThreads int
}

// ParamsSource provides parameters by circuit id (the srs package, or a
// simple map in tests). Acquire may block while it loads; release must be
// called exactly once when the caller no longer needs the parameters.
type ParamsSource interface {
	Acquire(ctx context.Context, circuitID string) (p *groth16.Params, release func(), err error)
}

// ParamsCache is what a residency-managing ParamsSource offers beyond
// Acquire; the engine forwards Preload, Evict and status to it when the
// configured source implements it.
type ParamsCache interface {
	Preload(ctx context.Context, circuitID string) (alreadyLoaded bool, loadTime time.Duration, err error)
	Evict(circuitID string) (wasLoaded bool, freedBytes uint64, err error)
	Status() []SRSStatus
}

// MapParams is a ParamsSource over a fixed map, for tests and for callers
// that hold their parameters themselves.
type MapParams map[string]*groth16.Params

// Acquire returns the entry for circuitID or ErrUnknownCircuit.
func (m MapParams) Acquire(ctx context.Context, circuitID string) (*groth16.Params, func(), error) {
	p, ok := m[circuitID]
	if !ok {
		return nil, nil, unknownCircuit(circuitID)
	}
	return p, func() {}, nil
}
