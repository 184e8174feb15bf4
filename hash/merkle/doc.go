// Package merkle builds Filecoin's Merkle trees natively and produces and
// checks their inclusion proofs, as filecoin-project/merkletree and
// rust-fil-proofs storage-proofs-core do:
//
//   - tree D: a binary SHA-254 tree (node = Sha254(left ‖ right));
//   - trees C and R: Poseidon trees (MerkleTree domain tag of each level's
//     arity) of shape base-sub-top, e.g. 8-0-0, 8-8-0 (32 GiB) and 8-8-2
//     (64 GiB). A compound tree is Sub·max(Top, 1) base trees of equal size;
//     the roots of each group of Sub base trees are hashed into a sub-tree
//     root, and the Top sub-tree roots into the root.
//
// Leaves are stored as given (they are already field elements; nothing is
// hashed at the leaf level). Leaf i lives in base tree i / baseLeaves at
// local index i % baseLeaves; its path is the base path (one element per
// base level, Index = the child position, Siblings in order without the
// node itself), then one sub element (Index = base tree within its group),
// then one top element (Index = group). Reading every Index as a digit in
// its level's arity, little-endian, gives i back.
//
// The package knows nothing of circuits; gadgets/merkle is the in-circuit
// twin of Proof.Verify.
package merkle
