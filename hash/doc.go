// Package hash owns the native (out-of-circuit) hashes Filecoin proofs are
// built on, bit-compatible with rust-fil-proofs (filecoin-hashers):
//
//   - SHA-256 and SHA-254: SHA-256 with the two top bits of the last digest
//     byte cleared (digest[31] &= 0x3f), so that a digest read as a
//     little-endian integer is a canonical BLS12-381 scalar;
//   - Domain, the 32-byte little-endian form every Filecoin commitment and
//     tree node takes on the wire.
//
// Poseidon lives in hash/poseidon and Merkle trees in hash/merkle.
//
// The package knows nothing of circuits; gadgets/* are the in-circuit twins.
package hash
