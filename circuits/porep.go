package circuits

import (
	"context"
	"errors"
	"fmt"

	"github.com/cuzk-project/cuzk/circuits/porep"
	"github.com/cuzk-project/cuzk/engine"
	"github.com/cuzk-project/cuzk/filecoin"
	"github.com/cuzk-project/cuzk/filecoin/c1"
	"github.com/cuzk-project/cuzk/groth16"
	"github.com/cuzk-project/cuzk/r1cs"
)

// planPoRep turns a POREP_SEAL_COMMIT request into one unit per partition.
// Everything that can be wrong with the request is found here, before any
// synthesis or device time: the envelope and the C1 decode and have their
// proof's shape, the request's fields agree with them, and the vanilla
// proof verifies (paths, columns, labels, encoding, challenges from the
// seed, or from comm_r for non-interactive PoRep). The public inputs come
// from the seal's public data alone, through the code `cuzk verify
// --public` uses. A non-interactive PoRep's units are its partitions too;
// its plan's Finalize aggregates their proofs (niporep.go).
func (r *Registry) planPoRep(req *engine.Request) (*engine.Plan, error) {
	env, o, err := c1.DecodeEnvelopeOutput(req.VanillaProof)
	if err != nil {
		return nil, invalid(err)
	}
	info := o.Info()
	if err := checkPoRepRequest(req, env, info); err != nil {
		return nil, invalid(err)
	}
	ni := info.Feature == filecoin.NonInteractive
	if ni {
		// An NI C2 is the SnarkPack aggregate of its partition proofs.
		if r.aggSRS == nil {
			return nil, fmt.Errorf("%w: %v: a non-interactive PoRep C2 is a SnarkPack aggregate of its %d partition proofs, and this daemon has no SnarkPack SRS (%s) configured",
				engine.ErrParamsMissing, info.Proof, info.Partitions, AggregationSRSFile)
		}
		if err := r.aggSRS.Check(); err != nil {
			return nil, err
		}
	}
	if err := c1.Verify(o); err != nil {
		return nil, invalid(err)
	}
	seal := porep.Seal{Info: info, ReplicaID: o.ReplicaID, CommD: o.CommD, CommR: o.CommR, Seed: o.Seed}
	if req.MinerID != 0 {
		sector := req.SectorNumber
		if sector == 0 {
			sector = uint64(env.SectorNum)
		}
		want := filecoin.ReplicaID(filecoin.ProverID(req.MinerID), sector, o.Ticket, o.CommD, filecoin.PoRepID(info.Proof))
		if want != o.ReplicaID {
			return nil, invalid(fmt.Errorf("the C1's replica_id is not that of miner f0%d sector %d with its ticket, comm_d and %v (a C1 of another sector?)",
				req.MinerID, sector, info.Proof))
		}
	}
	inputs, err := seal.Inputs()
	if err != nil {
		return nil, invalid(err)
	}
	shape, err := porep.ConfigFor(info).Shape()
	if err != nil {
		return nil, fmt.Errorf("circuits: %v partition shape: %w", info.Proof, err)
	}
	fp := footprint(shape)
	fp.WitnessThreads = witnessWorkers()
	plan := &engine.Plan{CircuitID: info.CircuitID(), PublicInputs: inputs, Verify: r.batchVerify}
	if ni {
		plan.Finalize = niFinalize(r.aggSRS, o.CommR, inputs)
	}
	if r.systems != nil {
		plan.System = r.systems.provider(plan.CircuitID, func() (r1cs.Circuit, r1cs.Shape, error) {
			p, err := porep.NewPartition(o, 0)
			return p, shape, err
		})
	}
	for k := range info.Partitions {
		part := fp
		part.Synthesize = func(ctx context.Context) (*groth16.Assignment, error) {
			p, err := porep.NewPartition(o, k)
			if err != nil {
				return nil, err
			}
			p.Ctx = ctx
			return groth16.Synthesize(p, shape)
		}
		part.Witness = func(ctx context.Context) (*r1cs.WitnessAssignment, error) {
			return porepWitness(ctx, o, k, fp.WitnessThreads)
		}
		plan.Partitions = append(plan.Partitions, part)
	}
	return plan, nil
}

// porepWitness is partition k's witness, into the dead aux vector the
// engine hands over in ctx where it does (r1cs.WithAux).
func porepWitness(ctx context.Context, o *c1.Output, k, threads int) (*r1cs.WitnessAssignment, error) {
	p, err := porep.NewPartition(o, k)
	if err != nil {
		return nil, err
	}
	p.Ctx = ctx
	return r1cs.FilledIn(ctx, func(w *r1cs.WitnessAssignment) error { return p.WitnessInto(w, threads) })
}

// checkPoRepRequest compares what the request says with what its C1 says.
// Curio fills registered_proof, sector_size and sector_number; a client
// that leaves them zero is not contradicted (registered proof 0 is a real
// id, StackedDrg2KiBV1, so it is compared only with a sector size given).
func checkPoRepRequest(req *engine.Request, env *c1.Envelope, info filecoin.SealInfo) error {
	if req.SectorSize != 0 || req.RegisteredProof != 0 {
		if req.RegisteredProof != uint64(info.Proof) {
			return fmt.Errorf("registered_proof %d is not the C1's %v (%d)", req.RegisteredProof, info.Proof, info.Proof)
		}
	}
	if req.SectorSize != 0 && req.SectorSize != info.SectorSize {
		return fmt.Errorf("sector_size %d is not the C1's %d (%v)", req.SectorSize, info.SectorSize, info.Proof)
	}
	if req.SectorNumber != 0 && env.SectorNum != 0 && req.SectorNumber != uint64(env.SectorNum) {
		return fmt.Errorf("sector_number %d is not the envelope's SectorNum %d", req.SectorNumber, env.SectorNum)
	}
	return nil
}

// invalid marks a request error for the engine (InvalidArgument on the
// wire), keeping the cause for errors.Is.
func invalid(err error) error {
	if errors.Is(err, engine.ErrInvalidRequest) {
		return err
	}
	return fmt.Errorf("%w: %w", engine.ErrInvalidRequest, err)
}
