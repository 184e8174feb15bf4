// Package num holds bellpepper-core's number gadgets over the BLS12-381
// scalar field: AllocatedNum (one variable with its value) and Num (a linear
// combination carrying its value, used to pack bits), plus the few
// storage-proofs-core constraint helpers circuits use on numbers (equal, add,
// sub) and multipack's pack_bits.
//
// Constraint shapes (bellpepper-core gadgets/num.rs):
//
//	inputize:            input · ONE = num            (alloc_input first)
//	add:                 (a + b) · ONE = sum
//	mul / square:        a · b = ab
//	to_bits_le:          255 booleans, then 0 · 0 = Σ 2^i·bit_i − num
//	to_bits_le_strict:   booleans from the top, with the runs-of-ones range
//	                     check against r − 1, then the same packing row
//	conditionally_reverse: (a − b) · cond = a − c, then (b − a) · cond = b − d
//
// The package knows boolean but nothing of hashes or circuits.
package num
