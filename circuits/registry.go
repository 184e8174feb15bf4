package circuits

import (
	"context"
	"fmt"
	"sync"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-project/cuzk/circuits/synthetic"
	"github.com/cuzk-project/cuzk/engine"
	"github.com/cuzk-project/cuzk/groth16"
	"github.com/cuzk-project/cuzk/r1cs"
	"github.com/cuzk-project/cuzk/r1cs/compiled"
)

// Registry turns requests into plans. It implements engine.Planner and is
// safe for concurrent use.
type Registry struct {
	systems *Systems       // nil: no witness-only path
	aggSRS  AggregationSRS // nil: non-interactive PoRep refused

	mu   sync.Mutex
	pvks map[*groth16.VerifyingKey]*groth16.PreparedVerifyingKey // a few; cleared when full
}

// maxPrepared bounds the prepared-key cache (parameters reloaded after an
// eviction come with a new key pointer).
const maxPrepared = 16

// New returns a registry.
func New() *Registry { return &Registry{} }

var _ engine.Planner = (*Registry)(nil)

// Plan reads req's vanilla proof. A synthetic descriptor gives its
// partitions; a real request its kind's units: PoRep C2 (Curio's envelope
// around a C1 output) and SnapDeals one per partition, WinningPoSt and a
// WindowPoSt partition one.
func (r *Registry) Plan(ctx context.Context, req *engine.Request) (*engine.Plan, error) {
	job, ok, err := parseSynthetic(req.VanillaProof)
	if err != nil {
		return nil, err
	}
	if ok {
		return r.planSynthetic(job)
	}
	if len(req.VanillaProof) == 0 && len(req.VanillaProofs) == 0 {
		return nil, fmt.Errorf("%w: %v request has an empty vanilla proof", engine.ErrInvalidRequest, req.Kind)
	}
	switch req.Kind {
	case engine.KindPoRepSealCommit:
		return r.planPoRep(req)
	case engine.KindWinningPoSt, engine.KindWindowPoStPartition:
		return r.planPoSt(req)
	case engine.KindSnapDealsUpdate:
		return r.planSnap(req)
	}
	return nil, fmt.Errorf("%w: proof kind %v", engine.ErrInvalidRequest, req.Kind)
}

// IsSynthetic reports whether a vanilla proof is a synthetic job
// descriptor (well-formed or not): the family a daemon serves only in
// development mode.
func IsSynthetic(vanilla []byte) bool {
	_, ok, _ := parseSynthetic(vanilla)
	return ok
}

func (r *Registry) planSynthetic(job SyntheticJob) (*engine.Plan, error) {
	cfg := job.Config()
	c, err := synthetic.New(cfg)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", engine.ErrInvalidRequest, err)
	}
	fp := footprint(c.Hint())
	inputs := c.PublicInputs()
	plan := &engine.Plan{CircuitID: SyntheticID(cfg), Verify: r.batchVerify}
	// A synthetic row's C holds its own constant (κ·ONE, κ = a·b − x_j), so
	// a circuit of more rows than the compiled system's coefficient table
	// holds goes through the prover's synthesis.
	if r.systems != nil && cfg.Constraints < syntheticCompiledRows {
		plan.System = r.systems.provider(plan.CircuitID, func() (r1cs.Circuit, r1cs.Shape, error) { return c, c.Hint(), nil })
	}
	for i := 0; i < job.Partitions; i++ {
		part := fp
		part.Synthesize = func(ctx context.Context) (*groth16.Assignment, error) {
			return groth16.Synthesize(c, c.Hint())
		}
		part.Witness = func(ctx context.Context) (*r1cs.WitnessAssignment, error) {
			return witnessOf(c, c.Hint())
		}
		plan.Partitions = append(plan.Partitions, part)
		plan.PublicInputs = append(plan.PublicInputs, inputs)
	}
	return plan, nil
}

// syntheticCompiledRows bounds the synthetic circuits offered the
// witness-only path: each row's C constant is a distinct coefficient, and
// the compiled system holds at most compiled.MaxCoeffs of them.
const syntheticCompiledRows = compiled.MaxCoeffs - 1024

// SyntheticFootprint estimates one synthetic partition's host memory
// (partitionFootprint of its shape).
func SyntheticFootprint(cfg synthetic.Config) (reserve, abc uint64) {
	return partitionFootprint(r1cs.Shape{Inputs: cfg.Inputs + 1, Aux: cfg.CircuitConstraints(), Constraints: cfg.Constraints})
}

// batchVerify checks all partitions with one final exponentiation.
func (r *Registry) batchVerify(vk *groth16.VerifyingKey, proofs []groth16.Proof, inputs [][]fr.Element) error {
	pvk, err := r.prepared(vk)
	if err != nil {
		return err
	}
	return groth16.BatchVerify(pvk, proofs, inputs, nil)
}

func (r *Registry) prepared(vk *groth16.VerifyingKey) (*groth16.PreparedVerifyingKey, error) {
	r.mu.Lock()
	pvk := r.pvks[vk]
	r.mu.Unlock()
	if pvk != nil {
		return pvk, nil
	}
	pvk, err := groth16.PrepareVerifyingKey(vk)
	if err != nil {
		return nil, err
	}
	r.mu.Lock()
	if r.pvks == nil || len(r.pvks) >= maxPrepared {
		r.pvks = make(map[*groth16.VerifyingKey]*groth16.PreparedVerifyingKey)
	}
	r.pvks[vk] = pvk
	r.mu.Unlock()
	return pvk, nil
}
