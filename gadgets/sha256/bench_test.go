package sha256_test

import (
	stdsha "crypto/sha256"
	"testing"

	"github.com/cuzk-project/cuzk/gadgets/boolean"
	"github.com/cuzk-project/cuzk/gadgets/sha256"
	"github.com/cuzk-project/cuzk/r1cs"
)

// BenchmarkNodeSynthesis: the 45,387-constraint SHA-254 node into a
// ProvingAssignment, in constraints per second.
func BenchmarkNodeSynthesis(b *testing.B) {
	left, right := make([]byte, 32), make([]byte, 32)
	for i := range left {
		left[i], right[i] = byte(3*i), byte(5*i)
	}
	rows := 0
	for b.Loop() {
		p := r1cs.NewProvingAssignment(r1cs.Shape{Inputs: 1, Aux: 46000, Constraints: 45387})
		p.AllocInput(one())
		sha256.HashLeafBits(p, boolean.BytesIntoBooleanVec(p, left), boolean.BytesIntoBooleanVec(p, right))
		rows = p.NumConstraints()
	}
	b.ReportMetric(float64(rows)*float64(b.N)/b.Elapsed().Seconds(), "constraints/s")
}

// BenchmarkNative compares the native twin with crypto/sha256 on 64 KiB.
func BenchmarkNative(b *testing.B) {
	data := make([]byte, 64<<10)
	b.Run("twin", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			sha256.Sum(data)
		}
	})
	b.Run("crypto-sha256", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			stdsha.Sum256(data)
		}
	})
}
