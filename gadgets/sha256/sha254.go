package sha256

import (
	"github.com/cuzk-project/cuzk/gadgets/boolean"
	"github.com/cuzk-project/cuzk/gadgets/num"
	"github.com/cuzk-project/cuzk/r1cs"
)

// reverseBytes pads bits to whole bytes with constant false and reverses the
// bit order inside each byte, appending to dst.
func reverseBytes(dst, bits []boolean.Boolean) []boolean.Boolean {
	return append(dst, boolean.ReverseBitNumbering(bits)...)
}

// HashBits is filecoin-hashers' Sha256Function::hash_circuit: SHA-256 of
// bits, the digest read with each byte's bits reversed (so bit i is bit i of
// the little-endian digest), its first 254 bits packed into one number.
// That number equals Sha254 of the input read as a little-endian field
// element.
func HashBits(cs r1cs.ConstraintSystem, bits []boolean.Boolean) num.AllocatedNum {
	digest := Hash(cs, bits)
	le := boolean.ReverseBitNumbering(digest)
	return num.PackBits(cs, le[:boolean.FieldCapacity])
}

// HashLeafBits is hash_leaf_bits_circuit: left and right are little-endian
// bit strings (bit 0 of byte 0 first), each padded to whole bytes and put in
// SHA-256's bit order, then hashed with HashBits. This is the SHA-254 tree
// node on already decomposed children.
func HashLeafBits(cs r1cs.ConstraintSystem, left, right []boolean.Boolean) num.AllocatedNum {
	pre := make([]boolean.Boolean, 0, len(left)+len(right)+16)
	pre = reverseBytes(pre, left)
	pre = reverseBytes(pre, right)
	return HashBits(cs, pre)
}

// HashMultiLeaf is hash_multi_leaf_circuit (and, for two leaves,
// hash2_circuit): each leaf is decomposed with to_bits_le (255 bits and a
// packing row, in leaf order), padded to 256 bits, bytes put in SHA-256's
// bit order, and the concatenation hashed with HashBits.
func HashMultiLeaf(cs r1cs.ConstraintSystem, leaves []num.AllocatedNum) num.AllocatedNum {
	pre := make([]boolean.Boolean, 0, 256*len(leaves))
	for _, leaf := range leaves {
		pre = reverseBytes(pre, leaf.ToBitsLE(cs))
	}
	return HashBits(cs, pre)
}
