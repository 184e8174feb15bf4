package multipack

import (
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-project/cuzk/gadgets/boolean"
	"github.com/cuzk-project/cuzk/gadgets/num"
	"github.com/cuzk-project/cuzk/r1cs"
)

var one = func() fr.Element { var e fr.Element; e.SetOne(); return e }()

// PackIntoInputs allocates one public input per 254-bit chunk of bits and
// enforces that the chunk packs to it. It returns the inputs' variables.
func PackIntoInputs(cs r1cs.ConstraintSystem, bits []boolean.Boolean) []r1cs.Variable {
	var out []r1cs.Variable
	for start := 0; start < len(bits); start += boolean.FieldCapacity {
		end := min(start+boolean.FieldCapacity, len(bits))
		if r1cs.SkipsConstraints(cs) {
			out = append(out, cs.AllocInput(num.ValueFromBits(bits[start:end])))
			cs.Enforce(nil, nil, nil)
			continue
		}
		n := num.NumFromBits(bits[start:end])
		in := cs.AllocInput(n.Value)
		cs.Enforce(n.LC, r1cs.LinearCombination{{Var: r1cs.One, Coeff: one}},
			r1cs.LinearCombination{{Var: in, Coeff: one}})
		out = append(out, in)
	}
	return out
}

// PackBits packs the first 254 bits into one new aux number (pack_bits).
func PackBits(cs r1cs.ConstraintSystem, bits []boolean.Boolean) num.AllocatedNum {
	return num.PackBits(cs, bits)
}

// BytesToBits returns the bits of data, each byte most significant bit first.
func BytesToBits(data []byte) []bool {
	out := make([]bool, 0, 8*len(data))
	for _, b := range data {
		for i := 7; i >= 0; i-- {
			out = append(out, b>>uint(i)&1 == 1)
		}
	}
	return out
}

// BytesToBitsLE returns the bits of data, each byte least significant bit
// first.
func BytesToBitsLE(data []byte) []bool {
	out := make([]bool, 0, 8*len(data))
	for _, b := range data {
		for i := 0; i < 8; i++ {
			out = append(out, b>>uint(i)&1 == 1)
		}
	}
	return out
}

// ComputeMultipacking packs bits into field elements, 254 bits per element,
// least significant first: the values PackIntoInputs allocates.
func ComputeMultipacking(bits []bool) []fr.Element {
	var out []fr.Element
	for start := 0; start < len(bits); start += boolean.FieldCapacity {
		end := min(start+boolean.FieldCapacity, len(bits))
		var cur, coeff fr.Element
		coeff.SetOne()
		for _, b := range bits[start:end] {
			if b {
				cur.Add(&cur, &coeff)
			}
			coeff.Double(&coeff)
		}
		out = append(out, cur)
	}
	return out
}
