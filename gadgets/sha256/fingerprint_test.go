package sha256_test

import (
	"testing"

	"github.com/cuzk-project/cuzk/gadgets/boolean"
	"github.com/cuzk-project/cuzk/gadgets/internal/gadgettest"
	"github.com/cuzk-project/cuzk/gadgets/sha256"
)

// nodeFingerprint pins the exact R1CS (every row's terms and coefficients,
// every allocated value, in order) of the SHA-254 node circuit on a fixed
// input. It is our own recorded value, not a reference one: the reference
// checks are the counts (45,387 here) and the outputs; this one catches a
// change that keeps the count but moves a variable or a coefficient.
// Update it only for a change meant to alter the R1CS, and say why.
const nodeFingerprint = "9e02d4576dc7fcac312a6ba21d5827d8f526f4dd13ac82e64aeaf4536d14cb04"

func TestNodeFingerprint(t *testing.T) {
	f := gadgettest.NewFingerprint()
	left, right := make([]byte, 32), make([]byte, 32)
	for i := range left {
		left[i], right[i] = byte(i*7+1), byte(255-i)
	}
	left[31] &= 0x3f
	right[31] &= 0x3f
	sha256.HashLeafBits(f, boolean.BytesIntoBooleanVec(f, left), boolean.BytesIntoBooleanVec(f, right))
	if f.Constraints != 45387 {
		t.Fatalf("%d constraints", f.Constraints)
	}
	if got := f.Sum(); got != nodeFingerprint {
		t.Fatalf("R1CS fingerprint %s (aux %d), pinned %s", got, f.Aux, nodeFingerprint)
	}
}
