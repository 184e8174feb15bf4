package circuits

import (
	"context"
	"errors"
	"fmt"
	"runtime"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	cpost "github.com/cuzk-project/cuzk/circuits/post"
	"github.com/cuzk-project/cuzk/engine"
	fpost "github.com/cuzk-project/cuzk/filecoin/post"
	"github.com/cuzk-project/cuzk/groth16"
	"github.com/cuzk-project/cuzk/r1cs"
)

// planPoSt turns a WINNING_POST or WINDOW_POST_PARTITION request into one
// unit: the vanilla proofs (one bincode FallbackPoStSectorProof per
// sector, as Curio sends them) decoded and verified against the
// randomness, the public inputs derived from the randomness, the sector
// ids and comm_rs (never from the prover's openings). A WindowPoSt
// request's sectors are its partition's; the partition index only enters
// the challenge index (API 1.0 and 1.1), as in the reference prover.
func (r *Registry) planPoSt(req *engine.Request) (*engine.Plan, error) {
	info, err := fpost.Proof(req.RegisteredProof).Info()
	if err != nil {
		return nil, invalid(fmt.Errorf("registered_proof: %w", err))
	}
	if winning := req.Kind == engine.KindWinningPoSt; winning != info.Winning {
		return nil, invalid(fmt.Errorf("registered_proof %v is not a %v proof", info.Proof, req.Kind))
	}
	if req.SectorSize != 0 && req.SectorSize != info.SectorSize {
		return nil, invalid(fmt.Errorf("sector_size %d is not %v's %d", req.SectorSize, info.Proof, info.SectorSize))
	}
	v, err := fpost.FromRequest(info, req.Randomness, req.VanillaProofs, int(req.PartitionIndex))
	if err != nil {
		return nil, invalid(err)
	}
	// Every check but the given openings' path hashes, which synthesis
	// computes anyway and fails on with the same error (CheckRoot).
	if err := v.VerifyUnhashed(); err != nil {
		return nil, invalid(err)
	}
	shape, err := cpost.ConfigFor(info).Shape()
	if err != nil {
		return nil, fmt.Errorf("circuits: %v partition shape: %w", info.Proof, err)
	}
	circuit := func() (r1cs.Circuit, r1cs.Shape, error) {
		c, err := cpost.NewPartition(v)
		if err == nil {
			c.CheckRoot = nil // the compiled system is the circuit's structure alone
		}
		return c, shape, err
	}
	part := footprint(shape)
	// One unit whose deadline matters: its sectors over every core.
	part.WitnessThreads = runtime.GOMAXPROCS(0)
	part.Synthesize = func(ctx context.Context) (*groth16.Assignment, error) {
		c, err := cpost.NewPartition(v)
		if err != nil {
			return nil, err
		}
		c.Ctx = ctx
		// The reference's synthesize_extendable: sector chunks in
		// parallel, the sequential system value for value.
		pa, err := c.Assign(runtime.GOMAXPROCS(0))
		if err != nil {
			return nil, badVanilla(err)
		}
		return groth16.FromProvingAssignment(pa), nil
	}
	part.Witness = func(ctx context.Context) (*r1cs.WitnessAssignment, error) {
		c, err := cpost.NewPartition(v)
		if err != nil {
			return nil, err
		}
		c.Ctx = ctx
		w, err := r1cs.FilledIn(ctx, func(w *r1cs.WitnessAssignment) error { return c.WitnessInto(w, part.WitnessThreads) })
		return w, badVanilla(err)
	}
	plan := &engine.Plan{
		CircuitID:    info.CircuitID(),
		PublicInputs: [][]fr.Element{v.PublicInputs()},
		Verify:       r.batchVerify,
		Partitions:   []engine.Partition{part},
	}
	if r.systems != nil {
		plan.System = r.systems.provider(plan.CircuitID, circuit)
	}
	return plan, nil
}

// badVanilla is err, an invalid request where it is a vanilla proof's
// fault (a path the circuit hashed that does not reach its root): the job
// fails as its submission would have.
func badVanilla(err error) error {
	if errors.Is(err, fpost.ErrBadVanillaProof) {
		return invalid(err)
	}
	return err
}
