package update

import (
	"fmt"

	"github.com/cuzk-project/cuzk/filecoin"
	"github.com/cuzk-project/cuzk/hash"
)

// ReplicaUpdateInfo is go-state-types proof.ReplicaUpdateInfo with the same
// JSON: UpdateProofType as a number, the CIDs as {"/":"<cid>"} (null when
// undefined) and Proof in base64 (null when nil). OldSealedSectorCID is
// comm_r_old, NewSealedSectorCID comm_r_new, NewUnsealedSectorCID
// comm_d_new; Proof is the partitions' Groth16 proofs concatenated, 192
// bytes each.
type ReplicaUpdateInfo struct {
	UpdateProofType      Proof
	OldSealedSectorCID   filecoin.CID
	NewSealedSectorCID   filecoin.CID
	NewUnsealedSectorCID filecoin.CID
	Proof                []byte
}

// NewReplicaUpdateInfo is the public data of an update with the given
// comms, without its proof.
func NewReplicaUpdateInfo(p Proof, commROld, commRNew, commDNew hash.Domain) ReplicaUpdateInfo {
	return ReplicaUpdateInfo{
		UpdateProofType:      p,
		OldSealedSectorCID:   filecoin.SealedCID(commROld),
		NewSealedSectorCID:   filecoin.SealedCID(commRNew),
		NewUnsealedSectorCID: filecoin.UnsealedCID(commDNew),
	}
}

// Comms returns comm_r_old, comm_r_new and comm_d_new from the CIDs,
// checking that each is a CID of its kind with a canonical digest.
func (r *ReplicaUpdateInfo) Comms() (commROld, commRNew, commDNew hash.Domain, err error) {
	for _, c := range []struct {
		name string
		cid  filecoin.CID
		get  func(filecoin.CID) ([32]byte, error)
		out  *hash.Domain
	}{
		{"OldSealedSectorCID", r.OldSealedSectorCID, filecoin.CID.CommR, &commROld},
		{"NewSealedSectorCID", r.NewSealedSectorCID, filecoin.CID.CommR, &commRNew},
		{"NewUnsealedSectorCID", r.NewUnsealedSectorCID, filecoin.CID.CommD, &commDNew},
	} {
		if !c.cid.Defined() {
			return commROld, commRNew, commDNew, fmt.Errorf("%w: %s is missing", filecoin.ErrBadCID, c.name)
		}
		d, err := c.get(c.cid)
		if err != nil {
			return commROld, commRNew, commDNew, fmt.Errorf("%s: %w", c.name, err)
		}
		if _, err := hash.Domain(d).Element(); err != nil {
			return commROld, commRNew, commDNew, fmt.Errorf("%w: %s: %w", filecoin.ErrBadCID, c.name, err)
		}
		*c.out = d
	}
	return commROld, commRNew, commDNew, nil
}
