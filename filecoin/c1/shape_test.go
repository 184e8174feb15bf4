package c1

import (
	"math/big"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-project/cuzk/hash"
)

// TestIsCanonical compares the word-wise check with the field's own at the
// edges: 0, r − 1, r, r + 1, 2^256 − 1, and values differing from r in one
// word.
func TestIsCanonical(t *testing.T) {
	le := func(v *big.Int) hash.Domain {
		var b [32]byte
		v.FillBytes(b[:])
		var d hash.Domain
		for i := range b {
			d[i] = b[31-i]
		}
		return d
	}
	r := fr.Modulus()
	one := big.NewInt(1)
	cases := []*big.Int{new(big.Int), new(big.Int).Sub(r, one), r, new(big.Int).Add(r, one),
		new(big.Int).Sub(new(big.Int).Lsh(one, 256), one)}
	for w := range 4 {
		shift := new(big.Int).Lsh(one, uint(64*w))
		cases = append(cases, new(big.Int).Sub(r, shift), new(big.Int).Add(r, shift))
	}
	for _, v := range cases {
		d := le(v)
		_, err := d.Element()
		if got, want := isCanonical(&d), err == nil; got != want {
			t.Errorf("isCanonical(%x) = %v, want %v", v, got, want)
		}
	}
}
