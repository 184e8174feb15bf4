// Package multipack packs bit strings into field elements the way
// bellpepper's gadgets/multipack.rs does: chunks of 254 (CAPACITY) bits,
// least significant first, each chunk one field element. PackIntoInputs
// exposes the chunks as public inputs (one alloc_input and one constraint
// Σ 2^i·bit_i · ONE = input per chunk); ComputeMultipacking is its native
// twin, what a verifier puts in the public-input vector.
package multipack
