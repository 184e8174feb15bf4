package circuits

import (
	"context"
	"fmt"

	cupdate "github.com/cuzk-project/cuzk/circuits/update"
	"github.com/cuzk-project/cuzk/engine"
	fupdate "github.com/cuzk-project/cuzk/filecoin/update"
	"github.com/cuzk-project/cuzk/groth16"
	"github.com/cuzk-project/cuzk/r1cs"
)

// planSnap turns a SNAP_DEALS_UPDATE request into one unit per partition:
// one bincode PartitionProof each, as Curio sends them, decoded and
// verified against the request's comm_r_old, comm_d_new and comm_r_new,
// whose public inputs are [k_and_h_select, comm_r_old, comm_d_new,
// comm_r_new].
func (r *Registry) planSnap(req *engine.Request) (*engine.Plan, error) {
	info, err := fupdate.Proof(req.RegisteredProof).Info()
	if err != nil {
		return nil, invalid(fmt.Errorf("registered_proof: %w", err))
	}
	if req.SectorSize != 0 && req.SectorSize != info.SectorSize {
		return nil, invalid(fmt.Errorf("sector_size %d is not %v's %d", req.SectorSize, info.Proof, info.SectorSize))
	}
	if len(req.VanillaProofs) != info.Partitions {
		return nil, invalid(fmt.Errorf("vanilla_proofs: %d partition proofs, %v has %d partitions", len(req.VanillaProofs), info.Proof, info.Partitions))
	}
	p := &fupdate.Partition{} // the request's comms
	if p.CommROld, err = fupdate.ParseCommR(req.CommROld, "comm_r_old"); err != nil {
		return nil, invalid(err)
	}
	if p.CommDNew, err = fupdate.ParseCommD(req.CommDNew, "comm_d_new"); err != nil {
		return nil, invalid(err)
	}
	if p.CommRNew, err = fupdate.ParseCommR(req.CommRNew, "comm_r_new"); err != nil {
		return nil, invalid(err)
	}
	shape, err := cupdate.ConfigFor(info).Shape()
	if err != nil {
		return nil, fmt.Errorf("circuits: %v partition shape: %w", info.Proof, err)
	}
	fp := footprint(shape)
	fp.WitnessThreads = witnessWorkers()
	plan := &engine.Plan{CircuitID: info.CircuitID(), Verify: r.batchVerify}
	for k, b := range req.VanillaProofs {
		proof, err := fupdate.DecodePartitionProof(b, info)
		if err != nil {
			return nil, invalid(fmt.Errorf("vanilla_proofs[%d]: %w", k, err))
		}
		v := &fupdate.Partition{Info: info, K: k, CommROld: p.CommROld, CommDNew: p.CommDNew, CommRNew: p.CommRNew, Proof: proof}
		if err := v.Verify(); err != nil {
			return nil, invalid(err)
		}
		in, err := v.PublicInputs()
		if err != nil {
			return nil, invalid(err)
		}
		plan.PublicInputs = append(plan.PublicInputs, in)
		part := fp
		part.Synthesize = func(ctx context.Context) (*groth16.Assignment, error) {
			c, err := cupdate.NewPartition(v)
			if err != nil {
				return nil, err
			}
			c.Ctx = ctx
			return groth16.Synthesize(c, shape)
		}
		part.Witness = func(ctx context.Context) (*r1cs.WitnessAssignment, error) {
			c, err := cupdate.NewPartition(v)
			if err != nil {
				return nil, err
			}
			c.Ctx = ctx
			return r1cs.FilledIn(ctx, func(w *r1cs.WitnessAssignment) error { return c.WitnessInto(w, fp.WitnessThreads) })
		}
		plan.Partitions = append(plan.Partitions, part)
		if r.systems != nil && plan.System == nil {
			plan.System = r.systems.provider(plan.CircuitID, func() (r1cs.Circuit, r1cs.Shape, error) {
				c, err := cupdate.NewPartition(v)
				return c, shape, err
			})
		}
	}
	return plan, nil
}
