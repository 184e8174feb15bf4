package num_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-project/cuzk/gadgets/boolean"
	"github.com/cuzk-project/cuzk/gadgets/internal/gadgettest"
	"github.com/cuzk-project/cuzk/gadgets/multipack"
	"github.com/cuzk-project/cuzk/gadgets/num"
	"github.com/cuzk-project/cuzk/r1cs"
)

// values near the edges of the field and random ones.
func edgeValues(rng *rand.Rand) []fr.Element {
	var minus1, half, r fr.Element
	minus1.SetOne()
	minus1.Neg(&minus1)
	half.SetString("26217937587563095239723870254092982918845276250263818911301829349969290592256")
	r.SetRandom()
	out := []fr.Element{{}, fr.One(), minus1, half, r}
	for range 5 {
		var v fr.Element
		v.SetUint64(rng.Uint64())
		v.Mul(&v, &minus1)
		v.Square(&v)
		out = append(out, v)
	}
	return out
}

// The bit decompositions and packings on the witness-only paths against
// the generic gadgets: aux, inputs, rows and returned bits or numbers.
func TestBitsWitness(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	vals := edgeValues(rng)
	mixed := func(cs r1cs.ConstraintSystem, n int, seed uint64) []boolean.Boolean {
		rr := rand.New(rand.NewPCG(seed, 9))
		out := make([]boolean.Boolean, n)
		for i := range out {
			v := rr.IntN(2) == 1
			switch rr.IntN(3) {
			case 0:
				out[i] = boolean.Constant(v)
			case 1:
				out[i] = boolean.IsNot(boolean.Alloc(cs, !v))
			default:
				out[i] = boolean.AllocBoolean(cs, v)
			}
		}
		return out
	}
	tests := []struct {
		name  string
		build func(cs r1cs.ConstraintSystem, v fr.Element) any
	}{
		{"FieldIntoAllocatedBitsLE", func(cs r1cs.ConstraintSystem, v fr.Element) any {
			return boolean.FieldIntoAllocatedBitsLE(cs, v)
		}},
		{"ToBitsLE", func(cs r1cs.ConstraintSystem, v fr.Element) any { return num.Alloc(cs, v).ToBitsLE(cs) }},
		{"ToBitsLEStrict", func(cs r1cs.ConstraintSystem, v fr.Element) any { return num.Alloc(cs, v).ToBitsLEStrict(cs) }},
		{"PackBits of ToBitsLE", func(cs r1cs.ConstraintSystem, v fr.Element) any {
			return num.PackBits(cs, num.Alloc(cs, v).ToBitsLE(cs))
		}},
		{"PackBits of mixed bits", func(cs r1cs.ConstraintSystem, v fr.Element) any {
			return num.PackBits(cs, mixed(cs, 254, v.Bits()[0]))
		}},
		{"PackIntoInputs of 600 mixed bits", func(cs r1cs.ConstraintSystem, v fr.Element) any {
			return multipack.PackIntoInputs(cs, mixed(cs, 600, v.Bits()[0]))
		}},
	}
	for _, tc := range tests {
		for i, v := range vals {
			t.Run(fmt.Sprintf("%s/%d", tc.name, i), func(t *testing.T) {
				gadgettest.SameWitness(t, func(cs r1cs.ConstraintSystem) any { return tc.build(cs, v) })
			})
		}
	}
}

// ValueFromBits equals the combination's value for every length, the
// reduced ones (more than 254 bits) included.
func TestValueFromBits(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, n := range []int{0, 1, 63, 64, 65, 253, 254, 255, 256, 257, 300} {
		for _, density := range []float64{0, 0.5, 1} {
			bits := make([]boolean.Boolean, n)
			for i := range bits {
				bits[i] = boolean.Constant(rng.Float64() < density)
			}
			want := num.NumFromBits(bits).Value
			if got := num.ValueFromBits(bits); got != want {
				t.Errorf("%d bits, density %v: %s, want %s", n, density, got.String(), want.String())
			}
		}
	}
}
