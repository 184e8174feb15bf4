// Package c1 owns the PoRep commit-phase-1 output (SealCommitPhase1Output of
// rust-filecoin-proofs-api), the input of C2: its Go types, its JSON exactly
// as filecoin-ffi writes it with serde_json, Curio's envelope around it, and
// vanilla verification of it.
//
// The JSON is
//
//	{"registered_proof":"StackedDrg32GiBV1_1",
//	 "vanilla_proofs":{"StackedDrg32GiBV1":[[<Proof> × challenges] × partitions]},
//	 "comm_r":[32 numbers],"comm_d":[…],"replica_id":[…],"seed":[…],"ticket":[…]}
//
// where every 32-byte value (a domain) is a JSON array of 32 integers,
// little-endian for field elements, and <Proof> is storage-proofs-porep's
// stacked vanilla Proof: the tree D opening of the challenged node, its tree
// R (comm_r_last) opening, the tree C column openings of the node and of its
// 6 DRG and 8 expander parents, one labeling proof per layer and an
// encoding proof. Merkle openings are storage-proofs-core's MerkleProof, an
// externally tagged enum Single / Sub / Top by tree shape.
//
// Decode reads that JSON in one pass with a small hand-written scanner (any
// key order, unknown keys skipped, as serde does) and checks every shape
// against the registered proof's parameters; Verify re-derives the
// challenges and checks every opening, column hash, label and encoding, with
// no parameters and no device. Every rejection of outside input wraps
// ErrBadVanillaProof and names the partition, challenge and field. Every
// registered proof decodes and verifies, non-interactive ones included;
// which of them may be proven is the planner's business.
//
// The package knows nothing of circuits: circuits/porep reads these types.
package c1
