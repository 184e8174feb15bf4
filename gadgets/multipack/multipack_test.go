package multipack_test

import (
	"math/rand/v2"
	"testing"

	"github.com/cuzk-project/cuzk/gadgets/boolean"
	"github.com/cuzk-project/cuzk/gadgets/internal/gadgettest"
	"github.com/cuzk-project/cuzk/gadgets/multipack"
)

func TestBytesToBits(t *testing.T) {
	be := multipack.BytesToBits([]byte{0x80, 0x01})
	le := multipack.BytesToBitsLE([]byte{0x80, 0x01})
	for i, want := range []bool{true, false, false, false, false, false, false, false, false, false, false, false, false, false, false, true} {
		if be[i] != want || le[i] != (i == 7 || i == 8) {
			t.Fatalf("bit %d: be %v le %v", i, be[i], le[i])
		}
	}
}

func TestPackIntoInputs(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	for _, n := range []int{1, 253, 254, 255, 508, 600} {
		vals := make([]bool, n)
		for i := range vals {
			vals[i] = rng.Uint32()%2 == 1
		}
		r := gadgettest.NewRecorder()
		bits := make([]boolean.Boolean, n)
		for i, v := range vals {
			switch i % 3 {
			case 0:
				bits[i] = boolean.AllocBoolean(r, v)
			case 1:
				bits[i] = boolean.AllocBoolean(r, !v).Not()
			default:
				bits[i] = boolean.Constant(v)
			}
		}
		ins := multipack.PackIntoInputs(r, bits)
		want := multipack.ComputeMultipacking(vals)
		if len(ins) != len(want) || len(ins) != (n+253)/254 {
			t.Fatalf("n=%d: %d inputs, %d packed, want %d", n, len(ins), len(want), (n+253)/254)
		}
		for i, in := range ins {
			if got := r.Value(in); !got.Equal(&want[i]) {
				t.Fatalf("n=%d: input %d differs from compute_multipacking", n, i)
			}
		}
		if r.Unsatisfied() != -1 {
			t.Fatalf("n=%d: unsatisfied", n)
		}
		r.Flip(ins[0])
		if r.Unsatisfied() == -1 {
			t.Fatalf("n=%d: wrong public input satisfies", n)
		}
	}
}

func TestPackBitsTruncates(t *testing.T) {
	r := gadgettest.NewRecorder()
	bits := make([]boolean.Boolean, 256)
	for i := range bits {
		bits[i] = boolean.AllocBoolean(r, true)
	}
	p := multipack.PackBits(r, bits)
	want := multipack.ComputeMultipacking(boolean.Values(bits[:254]))[0]
	if !p.Value.Equal(&want) || r.Unsatisfied() != -1 {
		t.Fatal("pack_bits does not take the first 254 bits")
	}
}
