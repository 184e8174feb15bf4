// Package post is the FallbackPoSt circuit of rust-fil-proofs
// (storage-proofs-post fallback/circuit.rs FallbackPoStCircuit and Sector,
// compound.rs) built from this project's gadgets so that it yields the same
// R1CS row by row and variable by variable: Filecoin's .params index their
// l, a and b queries by aux variable, so the order of every allocation is
// part of the circuit. WinningPoSt and WindowPoSt are the same circuit with
// different shapes.
//
// Per circuit sector (circuit.rs Sector::synthesize), in this order:
//
//	comm_r_last, comm_c, comm_r (aux); comm_r inputized;
//	Poseidon₂(comm_c, comm_r_last), then comm_r · ONE = the hash;
//	per challenge a private PoR: the leaf allocated, its path in tree R
//	(bits packed into one public input, the leaf index), the computed root
//	· ONE = the comm_r_last variable.
//
// A partition has Config.Sectors circuit sectors; one with fewer sectors
// repeats its last sector up to that count (compound.rs), inputs included.
// WinningPoSt is 66 circuit sectors of one challenge each: the one
// challenged sector's 66 inclusion proofs unrolled (filecoin-proofs
// post_util.rs single_partition_vanilla_proofs). WindowPoSt is 10
// challenges per sector, 2 sectors per partition at the small sizes, 2349
// at 32 GiB and 2300 at 64 GiB.
//
// The circuit computes no challenge and does not use prover_id or the
// sector ids: the leaf challenges reach it only as public inputs. Public
// inputs per circuit sector: comm_r, then each challenge's leaf index.
//
// The reference prover synthesizes chunks of sectors in parallel, each
// into its own system with a temporary ONE input, and appends them in
// order (bellperson extend); the result is the sequential system.
// Partition.Assign does the same on several goroutines, each chunk writing
// straight into its place of one prover assignment, and is checked equal
// to the sequential synthesis value by value.
//
// A Partition carries plain values; BlankConfig gives the shape with zero
// values (counting and parameter setup). The package knows nothing of
// Groth16, parameters or devices.
package post
