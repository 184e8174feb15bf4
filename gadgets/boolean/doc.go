// Package boolean holds bellpepper's boolean gadgets: AllocatedBit (a
// variable constrained to 0 or 1), Boolean (an allocated bit, its negation,
// or a constant), the logic operations SHA-256 needs, and the helpers that
// decompose u64 values, byte strings and field elements into allocated bits.
//
// Every operation allocates and constrains in bellpepper-core's order
// (gadgets/boolean.rs) so that circuits built from it keep the reference
// R1CS shape:
//
//	alloc:    (1 − a) · a = 0
//	xor:      (a + a) · b = a + b − c
//	and:      a · b = c
//	and_not:  a · (1 − b) = c
//	nor:      (1 − a) · (1 − b) = c
//
// A negated or constant Boolean costs nothing: Not flips a flag and
// constants fold. The package knows nothing of numbers bigger than a bit
// beyond the scalar field's bit decomposition.
package boolean
