// Package gen makes synthetic PoRep C1 outputs: vanilla proofs that
// c1.Verify accepts and whose partition circuits are satisfied, for any
// registered seal proof, deterministic from a 64-bit seed, without sealing a
// sector.
//
// The sector holds zero data, so tree D is the all-zero SHA-254 tree and
// comm_d the zero-piece commitment of the sector size. For interactive
// proofs the challenges depend only on replica_id and the seed, both known
// before any label, so only the challenged nodes and their parents are
// materialised:
//
//   - every parent (6 DRG + 8 expander) of a challenged node that is not
//     itself challenged gets a chosen column: one canonical field element
//     per layer drawn from the seed;
//   - the challenged nodes' labels are computed layer by layer, and within a
//     layer in increasing node order, from their parents' values (a DRG
//     parent is a smaller node of the same layer, an expander parent lives
//     in the layer below), so a node that is both challenged and a parent
//     carries one column everywhere;
//   - trees C and R are sparse (hash/merkle.Sparse): tree C holds the
//     touched nodes' column hashes, tree R the challenged nodes' replicas
//     (the last label: the data is zero), every other leaf is zero.
//
// The vanilla verifier checks only what it opens, so such a sector is as
// good as a sealed one for C2. Synthetic and non-interactive challenges
// depend on comm_r, i.e. on every leaf of trees C and R, so those proofs
// are generated densely (every label of every node, full trees) and only
// for sectors small enough to label in seconds.
//
// The package owns the generator; the C1 types are filecoin/c1's, the graph
// and labels filecoin/sdr's. It prints nothing: progress goes to a callback.
package gen
