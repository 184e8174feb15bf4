package circuits

import (
	"context"
	"errors"
	"fmt"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

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
// seed). The public inputs come from the seal's public data alone, through
// the code `cuzk verify --public` uses.
func (r *Registry) planPoRep(req *engine.Request) (*engine.Plan, error) {
	env, o, err := c1.DecodeEnvelopeOutput(req.VanillaProof)
	if err != nil {
		return nil, invalid(err)
	}
	info := o.Info()
	if err := checkPoRepRequest(req, env, info); err != nil {
		return nil, invalid(err)
	}
	if info.Feature == filecoin.NonInteractive {
		return nil, invalid(fmt.Errorf("%v: a non-interactive PoRep C2 is a SnarkPack aggregate of its %d partition proofs, and aggregation is not supported yet",
			info.Proof, info.Partitions))
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
	reserve, abc := partitionFootprint(shape)
	work, rows, vars := workFootprint(shape)
	wreserve, wdense := witnessFootprint(shape)
	plan := &engine.Plan{CircuitID: info.CircuitID(), PublicInputs: inputs, Verify: r.batchVerify}
	if r.systems != nil {
		plan.System = r.systems.provider(plan.CircuitID, func() (r1cs.Circuit, r1cs.Shape, error) {
			p, err := porep.NewPartition(o, 0)
			return p, shape, err
		})
	}
	for k := range info.Partitions {
		plan.Partitions = append(plan.Partitions, engine.Partition{
			Reserve:        reserve,
			ReserveABC:     abc,
			ReserveWork:    work,
			Rows:           rows,
			Vars:           vars,
			WitnessReserve: wreserve,
			WitnessDense:   wdense,
			WitnessThreads: witnessWorkers(),
			Synthesize: func(ctx context.Context) (*groth16.Assignment, error) {
				p, err := porep.NewPartition(o, k)
				if err != nil {
					return nil, err
				}
				p.Ctx = ctx
				return groth16.Synthesize(p, shape)
			},
			Witness: func(ctx context.Context) (*r1cs.WitnessAssignment, error) {
				p, err := porep.NewPartition(o, k)
				if err != nil {
					return nil, err
				}
				p.Ctx = ctx
				return p.Witness(witnessWorkers())
			},
		})
	}
	return plan, nil
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

// witnessFootprint is a partition's host memory on the witness-only path
// to a device that evaluates a, b and c itself (engine.Partition's
// WitnessReserve, reserved from before synthesis until Finish) and the
// dense witness within it (WitnessDense):
//
//   - the dense witness, 32 bytes per input and aux value, on the heap
//     from synthesis until the device has staged its copy in Prepare;
//   - the staging, at most a dense pinned copy of it: the CUDA device
//     stages an aux compact where its values other than 0 and 1 are at
//     most 60 % of it (2 bits a value and 32 bytes an other value; a
//     PoRep aux is about 75 % 0 and 1, so about a quarter of the dense
//     size), dense otherwise;
//   - where the device does not compute B_G2, the B split its Run reads
//     back for Finish beside the staging: at most 36 bytes a value.
//
// The dense witness and the B split are never held together: the engine
// drops the aux once the staging holds it, and gives back all but the
// inputs and what the device reports its staging and split hold
// (engine.StagedWitness). So the reservation is the staging's worst case
// (dense) and the larger of the dense witness and the inputs with the
// split: about 68 bytes a value, 8.9 GB for a 32 GiB PoRep partition.
// After Prepare it comes down to what the staging holds: about 17 bytes
// a value for a PoRep partition (2.3 GB at 32 GiB), 8 where B_G2 is
// resident (1.1 GB).
func witnessFootprint(s r1cs.Shape) (reserve, dense uint64) {
	const elem = uint64(fr.Bytes)
	n := uint64(s.Inputs + s.Aux)
	dense = n * elem
	// the tail's scalars and indices, the ones' bitmap, the word rounding
	split := n*(elem+4) + n/8 + 1<<12
	return dense + max(dense, uint64(s.Inputs)*elem+split), dense
}

// workFootprint is partitionFootprint's device part (engine.Partition's
// ReserveWork: the CPU device's, 16 field elements per domain row) and the
// shape a device's own HostWorkspace is given instead.
func workFootprint(s r1cs.Shape) (work uint64, rows, vars int) {
	domain := uint64(groth16.Shape{Constraints: s.Constraints}.DomainSize())
	return 16 * domain * uint64(fr.Bytes), s.Constraints, s.Inputs + s.Aux
}

// partitionFootprint estimates one partition's host memory from its shape:
// a, b and c (released after Run), the witness, and the device's working
// memory until Finish (workFootprint) — what the CPU device allocated per
// Prepare + Run at 2^14 and 2^16 rows (8 MB and 45 MB,
// runtime.MemStats.TotalAlloc, 2026-11-29).
func partitionFootprint(s r1cs.Shape) (reserve, abc uint64) {
	const elem = uint64(fr.Bytes)
	abc = 3 * uint64(s.Constraints) * elem
	witness := uint64(s.Inputs+s.Aux) * elem
	work, _, _ := workFootprint(s)
	return abc + witness + work, abc
}
