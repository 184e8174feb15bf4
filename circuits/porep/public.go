package porep

import (
	"fmt"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-project/cuzk/filecoin"
	"github.com/cuzk-project/cuzk/filecoin/c1"
	"github.com/cuzk-project/cuzk/filecoin/sdr"
	"github.com/cuzk-project/cuzk/hash"
)

// PublicInputs is partition k's public input vector without ONE, as
// rust-fil-proofs StackedCompound::generate_public_inputs builds it:
// [replica_id, comm_d, comm_r], then per challenge its comm_d index (the
// challenge), its 6 DRG and 8 expander parents (their comm_c indices), the
// challenge, its comm_r_last index and its comm_c index (the challenge
// again). The challenges are derived from the request (replica_id, seed,
// comm_r, by the proof's feature) and the parents from g, never read from
// the vanilla proofs. Errors wrap c1.ErrBadVanillaProof.
func PublicInputs(o *c1.Output, k int, g *sdr.Graph) ([]fr.Element, error) {
	info := o.Info()
	if info.Name == "" {
		return nil, fmt.Errorf("%w: unknown registered proof %q", c1.ErrBadVanillaProof, o.RegisteredProof)
	}
	if k < 0 || k >= info.Partitions {
		return nil, fmt.Errorf("%w: partition %d of %d", c1.ErrBadVanillaProof, k, info.Partitions)
	}
	if g == nil || g.Nodes() != info.Nodes || g.PoRepID() != filecoin.PoRepID(info.Proof) {
		return nil, fmt.Errorf("porep: graph is not %s's", info.Name)
	}
	var vals [3]fr.Element
	for i, d := range []hash.Domain{o.ReplicaID, o.CommD, o.CommR} {
		var err error
		if vals[i], err = d.Element(); err != nil {
			return nil, fmt.Errorf("%w: %s: %w", c1.ErrBadVanillaProof, [...]string{"replica_id", "comm_d", "comm_r"}[i], err)
		}
	}
	challenges, err := sdr.Challenges(info, o.ReplicaID, o.Seed, o.CommR, k)
	if err != nil {
		return nil, fmt.Errorf("%w: partition %d challenges: %w", c1.ErrBadVanillaProof, k, err)
	}
	return publicInputs(vals[0], vals[1], vals[2], challenges,
		func(c uint64, out *[DRGParents + ExpanderParents]uint32) { g.Parents(uint32(c), out) }), nil
}
