package circuittest

import (
	"math/rand/v2"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-project/cuzk/hash"
)

// RandomDomain is a random canonical domain: the top two bits clear, as
// every SHA-254 and label value has them, so well below r.
func RandomDomain(r *rand.Rand) hash.Domain {
	var d hash.Domain
	for i := 0; i < 32; i += 8 {
		v := r.Uint64()
		for j := range 8 {
			d[i+j] = byte(v >> (8 * j))
		}
	}
	d[31] &= 0x3f
	return d
}

// Element is d as a field element; t fails when d is not canonical.
func Element(t testing.TB, d hash.Domain) fr.Element {
	t.Helper()
	e, err := d.Element()
	if err != nil {
		t.Fatal(err)
	}
	return e
}
