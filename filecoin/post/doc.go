// Package post owns FallbackPoSt (WinningPoSt and WindowPoSt) on the native
// side: the registered PoSt proofs (abi.RegisteredPoStProof 0–14) and what
// each fixes, the vanilla proof bytes Curio sends (bincode
// FallbackPoStSectorProof), the sector selection and leaf challenges of both
// API versions, one circuit partition's sectors and challenges with the
// reference's padding, vanilla verification before synthesis, the public
// inputs, and go-state-types' WinningPoStVerifyInfo / WindowPoStVerifyInfo
// as JSON.
//
// A WinningPoSt proves one sector chosen from the miner's set with 66
// openings of its tree R; its circuit has 66 one-challenge sectors, the one
// vanilla sector unrolled. A WindowPoSt partition proves up to SectorCount
// sectors with 10 openings each; fewer sectors are padded by repeating the
// last. Per circuit sector the public inputs are comm_r and the challenged
// leaf indices.
//
// The partition index of a WindowPoSt request is the partition's position
// among the partitions of one proof, and a request carries only that
// partition's sectors. The reference (rust-fil-proofs filecoin-proofs
// window_post.rs generate_single_window_post_with_vanilla) uses the index
// for the vanilla check only: sector i has sector index
// index·SectorCount + i, which moves the challenges under ApiVersion 1.0
// and 1.1 (Window V1) and changes nothing under 1.2 (Window V1_1). The
// circuit is then built from partition 0 of the request's sectors, the only
// one there is. A Partition therefore holds exactly the sectors it proves
// and takes the index into the challenges alone; using it to pick the
// sectors too (as the Rust cuzk engine's pipelined WindowPoSt does) fails
// for every partition after the first.
//
// The package knows nothing of circuits: circuits/post reads Partition.
// Every rejection of outside input wraps ErrBadVanillaProof (or
// ErrUnknownProof) and names the sector, challenge and field.
package post
