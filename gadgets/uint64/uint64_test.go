package uint64_test

import (
	"math/rand/v2"
	"testing"

	"github.com/cuzk-project/cuzk/gadgets/internal/gadgettest"
	"github.com/cuzk-project/cuzk/gadgets/multipack"
	u64 "github.com/cuzk-project/cuzk/gadgets/uint64"
)

func TestUInt64(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 3))
	for range 50 {
		v := rng.Uint64()
		r := gadgettest.NewRecorder()
		a := u64.Alloc(r, v)
		c := u64.Constant(v)
		for i := range 64 {
			if a.Bits[i].Value() != (v>>i&1 == 1) || c.Bits[i].Value() != a.Bits[i].Value() {
				t.Fatalf("bit %d", i)
			}
		}
		if u64.FromBitsBE(a.BitsBE()).Value != v || u64.FromBits(a.BitsLE()).Value != v {
			t.Fatal("bit order round trip")
		}
		in := a.PackIntoInput(r)
		want := multipack.ComputeMultipacking(multipack.BytesToBitsLE([]byte{
			byte(v), byte(v >> 8), byte(v >> 16), byte(v >> 24), byte(v >> 32), byte(v >> 40), byte(v >> 48), byte(v >> 56)}))[0]
		if got := r.Value(in); !got.Equal(&want) {
			t.Fatal("packed input is not the value")
		}
		if len(r.Constraints) != 65 || r.Unsatisfied() != -1 {
			t.Fatalf("%d constraints, unsatisfied %d", len(r.Constraints), r.Unsatisfied())
		}
		r.Flip(a.Bits[63].Bit.Var)
		if r.Unsatisfied() == -1 {
			t.Fatal("flipped bit satisfies")
		}
	}
}
