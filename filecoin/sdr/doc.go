// Package sdr is the Stacked DRG of Filecoin's PoRep, bit-compatible with
// rust-fil-proofs (storage-proofs-core drgraph.rs and crypto/feistel.rs,
// storage-proofs-porep stacked/vanilla): the graph's parents of any node,
// computed on the fly (no parent cache file), the label of a node, and the
// PoRep challenges of a partition, interactive, non-interactive or synthetic.
//
// A node v has 14 parents, in the order of the parent cache: 6 DRG parents
// (a bucket-sampled depth-robust graph over the same layer, seeded by
// ChaCha8) then 8 expander parents (a Feistel permutation over the previous
// layer). Node indices are uint32; a graph has at most 2^32−1 nodes.
//
// The package knows nothing of circuits or vanilla proof formats; it takes
// the registered proof's parameters from package filecoin.
package sdr
