// Package uint32 holds bellpepper's UInt32 gadget (32 Booleans, least
// significant first, with the value) and MultiEq, which packs several
// equalities between linear combinations into one constraint.
//
// Rotations and shifts only re-index bits; xor, ch and maj work bit by bit
// through package boolean; AddMany allocates the bits of the full sum
// (carries included) and hands "Σ operands = Σ 2^i·result_i" to MultiEq, which
// shifts each equality into free bits of the field (CAPACITY = 254) and emits
// one constraint (lhs) · ONE = (rhs) when the next equality would not fit, or
// on Flush. bellpepper flushes when the MultiEq is dropped; the SHA-256
// compression function drops it at its end, and so must callers here.
package uint32
