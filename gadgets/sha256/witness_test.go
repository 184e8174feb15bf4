package sha256_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-project/cuzk/gadgets/boolean"
	"github.com/cuzk-project/cuzk/gadgets/internal/gadgettest"
	"github.com/cuzk-project/cuzk/gadgets/num"
	"github.com/cuzk-project/cuzk/gadgets/sha256"
	u32 "github.com/cuzk-project/cuzk/gadgets/uint32"
	"github.com/cuzk-project/cuzk/r1cs"
)

// mixedBits allocates n bits of random values: a constant with probability
// pConst, else a negated allocated bit with probability pNot, else a plain
// one. The same seed gives the same allocations on every system.
func mixedBits(cs r1cs.ConstraintSystem, rng *rand.Rand, n int, pConst, pNot float64) []boolean.Boolean {
	out := make([]boolean.Boolean, n)
	for i := range out {
		v := rng.IntN(2) == 1
		switch r := rng.Float64(); {
		case r < pConst:
			out[i] = boolean.Constant(v)
		case r < pConst+pNot:
			out[i] = boolean.IsNot(boolean.Alloc(cs, !v))
		default:
			out[i] = boolean.AllocBoolean(cs, v)
		}
	}
	return out
}

func mixedWords(cs r1cs.ConstraintSystem, rng *rand.Rand, pConst, pNot float64) []u32.UInt32 {
	out := make([]u32.UInt32, 8)
	for i := range out {
		out[i] = u32.FromBits(mixedBits(cs, rng, 32, pConst, pNot))
	}
	return out
}

// The witness-only compression against the generic gadget: same aux, rows
// and returned words, for inputs and states of every kind mix.
func TestCompressionWitness(t *testing.T) {
	tests := []struct {
		name           string
		inConst, inNot float64
		state          string // "iv", "mixed", "allocated"
		stConst, stNot float64
	}{
		{"allocated input, IV", 0, 0, "iv", 0, 0},
		{"allocated input, allocated state", 0, 0, "allocated", 0, 0},
		{"mixed input, IV", 0.3, 0.3, "iv", 0, 0},
		{"mixed input, mixed state", 0.2, 0.3, "mixed", 0.2, 0.3},
		{"negated input, negated state", 0, 1, "mixed", 0, 1},
		{"mostly constant", 0.9, 0.05, "mixed", 0.9, 0.05},
		{"constant input, IV", 1, 0, "iv", 0, 0},
		{"constant input, constant state", 1, 0, "mixed", 1, 0},
	}
	for _, tc := range tests {
		for seed := range uint64(3) {
			t.Run(fmt.Sprintf("%s/%d", tc.name, seed), func(t *testing.T) {
				gadgettest.SameWitness(t, func(cs r1cs.ConstraintSystem) any {
					rng := rand.New(rand.NewPCG(seed, 77))
					in := mixedBits(cs, rng, 512, tc.inConst, tc.inNot)
					cur := sha256.IVConstants()
					switch tc.state {
					case "allocated":
						cur = mixedWords(cs, rng, 0, 0)
					case "mixed":
						cur = mixedWords(cs, rng, tc.stConst, tc.stNot)
					}
					return sha256.Compression(cs, in, cur)
				})
			})
		}
	}
}

// Whole hashes (padding constants, several blocks) and the SHA-254 node
// circuits built on them.
func TestHashWitness(t *testing.T) {
	tests := []struct {
		name  string
		build func(cs r1cs.ConstraintSystem, rng *rand.Rand) any
	}{}
	for _, n := range []int{0, 1, 32, 55, 56, 64, 100, 200} {
		tests = append(tests, struct {
			name  string
			build func(cs r1cs.ConstraintSystem, rng *rand.Rand) any
		}{fmt.Sprintf("hash of %d bytes", n), func(cs r1cs.ConstraintSystem, rng *rand.Rand) any {
			data := make([]byte, n)
			for i := range data {
				data[i] = byte(rng.Uint32())
			}
			return sha256.Hash(cs, boolean.BytesIntoBooleanVecBE(cs, data))
		}})
	}
	leaves := func(cs r1cs.ConstraintSystem, rng *rand.Rand, n int) []num.AllocatedNum {
		out := make([]num.AllocatedNum, n)
		for i := range out {
			var v fr.Element
			v.SetUint64(rng.Uint64())
			v.Mul(&v, &v)
			out[i] = num.Alloc(cs, v)
		}
		return out
	}
	tests = append(tests,
		struct {
			name  string
			build func(cs r1cs.ConstraintSystem, rng *rand.Rand) any
		}{"HashLeafBits", func(cs r1cs.ConstraintSystem, rng *rand.Rand) any {
			l, r := mixedBits(cs, rng, 256, 0.01, 0), mixedBits(cs, rng, 254, 0, 0)
			return sha256.HashLeafBits(cs, l, r)
		}},
		struct {
			name  string
			build func(cs r1cs.ConstraintSystem, rng *rand.Rand) any
		}{"HashMultiLeaf 2", func(cs r1cs.ConstraintSystem, rng *rand.Rand) any {
			return sha256.HashMultiLeaf(cs, leaves(cs, rng, 2))
		}},
		struct {
			name  string
			build func(cs r1cs.ConstraintSystem, rng *rand.Rand) any
		}{"HashMultiLeaf 8", func(cs r1cs.ConstraintSystem, rng *rand.Rand) any {
			return sha256.HashMultiLeaf(cs, leaves(cs, rng, 8))
		}},
	)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			gadgettest.SameWitness(t, func(cs r1cs.ConstraintSystem) any {
				return tc.build(cs, rand.New(rand.NewPCG(5, 6)))
			})
		})
	}
}
