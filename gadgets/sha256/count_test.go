package sha256_test

import (
	"testing"

	"github.com/cuzk-project/cuzk/gadgets/boolean"
	"github.com/cuzk-project/cuzk/gadgets/sha256"
	"github.com/cuzk-project/cuzk/r1cs"
)

// storage-proofs-core util.rs hash_leaf_bits_circuit: two 32-byte leaves
// decomposed with bytes_into_boolean_vec, then the SHA-254 node.
func TestNodeConstraintCount(t *testing.T) {
	var c r1cs.Counter
	c.AllocInput(one())
	left, right := make([]byte, 32), make([]byte, 32)
	for i := range left {
		left[i], right[i] = byte(i*7+1), byte(255-i)
	}
	left[31] &= 0x3f
	right[31] &= 0x3f
	lb := boolean.BytesIntoBooleanVec(&c, left)
	rb := boolean.BytesIntoBooleanVec(&c, right)
	sha256.HashLeafBits(&c, lb, rb)
	if c.Constraints != 45387 {
		t.Fatalf("SHA-256 2→1 node: %d constraints, want 45,387", c.Constraints)
	}
}
