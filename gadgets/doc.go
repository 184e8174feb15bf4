// Package gadgets is the root of cuzk's circuit gadgets: pieces of R1CS that
// allocate and constrain exactly as bellpepper/bellperson, storage-proofs and
// neptune do, so that a circuit built from them matches the reference
// constraint by constraint and variable by variable (real Filecoin .params
// files pin that system).
//
// Layout (each subpackage has its own doc.go and a native twin for every
// gadget it offers):
//
//   - boolean:   AllocatedBit and Boolean (Is / Not / Constant), and, xor,
//     and-not, nor, or, sha256 ch and maj, enforce-equal, bit decompositions
//     of u64, bytes and field elements, reverse_bit_numbering.
//   - num:       AllocatedNum (alloc, inputize, add, mul, square,
//     to_bits_le, to_bits_le_strict, conditionally_reverse, pack_bits) and
//     Num, a linear combination carrying its value.
//   - uint32:    UInt32 with bellpepper's semantics, MultiEq (several
//     equalities packed into one constraint) and addmany.
//   - uint64:    storage-proofs-core's UInt64 (bits only; used for node
//     indices and challenges).
//   - sha256:    the SHA-256 compression function and hash as bellpepper
//     builds them, and the SHA-254 node / leaf hashes of filecoin-hashers.
//   - multipack: pack_into_inputs, pack_bits, bytes_to_bits(_le),
//     compute_multipacking.
//   - encoding:  the PoRep encoding step (replica = label + data) and its
//     inverse, as storage-proofs-core's encode gadget.
//   - label:     storage-proofs-porep's create_label circuit (SHA-256 over
//     replica_id ‖ layer ‖ node ‖ 37 parents).
//   - poseidon, merkle: owned separately (neptune's Poseidon circuit and
//     storage-proofs-core's por.rs inclusion proofs).
//
// Conventions: values are always known (a circuit computes its witness), so
// gadgets carry plain values rather than options; every gadget takes the
// r1cs.ConstraintSystem it writes to as its first argument. Gadgets never
// panic on values; they panic only on programming errors a circuit author
// makes (wrong slice lengths), which bellpepper asserts the same way.
package gadgets
