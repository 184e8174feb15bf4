package poseidon

import (
	"math/big"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// grain is the Grain LFSR in self-shrinking mode that the Poseidon reference
// scripts (hadeshash generate_parameters_grain.sage) and neptune
// (round_constants.rs) use to draw round constants. The 80-bit state is kept
// as a ring: bit i of the sequence lives at (head + i) % 80.
type grain struct {
	state [80]bool
	head  int
}

// newGrain seeds the LFSR, MSB first: field type (2 bits, 1 = prime field),
// S-box (4 bits, neptune passes 1), field size in bits (12), t (12), RF (10),
// RP (10), then 30 ones; the first 160 output bits are discarded.
func newGrain(fieldSize, t, rf, rp int) *grain {
	g := &grain{}
	i := 0
	put := func(nbits int, v uint64) {
		for b := nbits - 1; b >= 0; b-- {
			g.state[i] = (v>>uint(b))&1 == 1
			i++
		}
	}
	put(2, 1)
	put(4, 1)
	put(12, uint64(fieldSize))
	put(12, uint64(t))
	put(10, uint64(rf))
	put(10, uint64(rp))
	put(30, 1<<30-1)
	for range 160 {
		g.step()
	}
	return g
}

// step computes b_{i+80} = b_{i+62} ⊕ b_{i+51} ⊕ b_{i+38} ⊕ b_{i+23} ⊕ b_{i+13} ⊕ b_i
// and shifts it in.
func (g *grain) step() bool {
	at := func(k int) bool { return g.state[(g.head+k)%80] }
	nb := at(62) != at(51) != at(38) != at(23) != at(13) != at(0)
	g.state[g.head] = nb
	g.head = (g.head + 1) % 80
	return nb
}

// bit is the self-shrinking output: bits are read in pairs and the second is
// emitted only when the first is 1.
func (g *grain) bit() bool {
	for !g.step() {
		g.step()
	}
	return g.step()
}

// roundConstants draws (rf + rp)·t field elements: each is fieldSize output
// bits read MSB first as a big-endian integer, redrawn while it is ≥ r.
func roundConstants(t, rf, rp int) []fr.Element {
	const fieldSize = 255
	g := newGrain(fieldSize, t, rf, rp)
	n := (rf + rp) * t
	out := make([]fr.Element, 0, n)
	modulus := fr.Modulus()
	v := new(big.Int)
	for len(out) < n {
		v.SetUint64(0)
		for range fieldSize {
			v.Lsh(v, 1)
			if g.bit() {
				v.SetBit(v, 0, 1)
			}
		}
		if v.Cmp(modulus) >= 0 {
			continue
		}
		var e fr.Element
		e.SetBigInt(v)
		out = append(out, e)
	}
	return out
}
