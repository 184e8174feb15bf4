// Package filecoin owns the identities a Filecoin PoRep is named by: the
// registered seal proofs (abi.RegisteredSealProof numbering, the serde names
// of rust-filecoin-proofs-api), their parameters (sector size, nodes, layers,
// partitions, challenges, tree shapes, API version and feature), porep_id,
// prover_id and replica_id, the commitment CIDs (comm_d, comm_r), the
// parameter file names, and go-state-types' SealVerifyInfo as JSON.
//
// It knows nothing of circuits, graphs or proving; filecoin/sdr builds the
// SDR graph and challenges from a SealInfo, filecoin/c1 reads vanilla proofs.
package filecoin
