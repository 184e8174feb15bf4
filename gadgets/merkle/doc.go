// Package merkle is the Merkle inclusion circuit of rust-fil-proofs
// storage-proofs-core (gadgets/por.rs PoRCircuit and por_no_challenge_input)
// with the insertion gadgets of gadgets/insertion.rs, constraint for
// constraint:
//
//   - per path level: allocate log2(arity) index bits (little-endian, each a
//     boolean-constrained AllocatedBit), allocate the arity − 1 siblings,
//     insert the current node among them (insert_2 / insert_4 / insert_8,
//     the generic select otherwise), hash the level with the tree's node
//     hash (Poseidon of that arity, or SHA-254 for tree D);
//   - PoRCircuit then packs all path bits into public inputs with
//     multipack (one input for any Filecoin tree), allocates the root,
//     enforces computed root · ONE = root, and inputizes the root unless it
//     is private.
//
// Per-proof constraints on the trees storage-proofs-core/tests/por_circuit.rs
// uses (64 leaves per base tree, public root): 1,063 (8-0-0, 64 leaves),
// 1,593 (8-8-0, 512 leaves), 1,907 (8-8-2, 1,024 leaves).
//
// Pick enforces empty rows on an r1cs.WitnessAssignment (which ignores
// them); the Poseidon hash does the same.
//
// The native twin is hash/merkle's Proof.Verify.
package merkle
