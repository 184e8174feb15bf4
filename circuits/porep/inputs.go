package porep

import (
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// publicInputs is proof.rs generate_public_inputs for given challenges and
// their parents (6 DRG then 8 expander, the parent-cache order). Every
// inclusion proof's input is its leaf index, the packed little-endian path
// bits.
func publicInputs(replicaID, commD, commR fr.Element, challenges []uint64,
	parents func(c uint64, out *[DRGParents + ExpanderParents]uint32)) []fr.Element {
	in := make([]fr.Element, 0, 3+len(challenges)*InputsPerChallenge)
	in = append(in, replicaID, commD, commR)
	var ps [DRGParents + ExpanderParents]uint32
	for _, c := range challenges {
		var e fr.Element
		e.SetUint64(c)
		in = append(in, e) // comm_d index
		parents(c, &ps)
		for _, p := range ps {
			var pe fr.Element
			pe.SetUint64(uint64(p))
			in = append(in, pe) // parent column index in comm_c
		}
		in = append(in, e, e, e) // challenge, comm_r_last index, comm_c index
	}
	return in
}
