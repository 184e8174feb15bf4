package compiled_test

import (
	"errors"
	"github.com/cuzk-project/cuzk/r1cs/compiled"
	"math/rand/v2"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

func TestCompactRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	mixed := func(n int, pSmall float64) []fr.Element {
		v := make([]fr.Element, n)
		for i := range v {
			switch {
			case rng.Float64() >= pSmall:
				v[i] = randElement(rng)
			case rng.IntN(2) == 1:
				v[i].SetOne()
			}
		}
		return v
	}
	two := make([]fr.Element, 100)
	for i := range two {
		two[i].SetUint64(2)
	}
	tests := []struct {
		name string
		v    []fr.Element
	}{
		{"empty", nil},
		{"one zero", make([]fr.Element, 1)},
		{"31", mixed(31, 0.5)},
		{"33", mixed(33, 0.5)},
		{"all others", two},
		{"porep-like", mixed(3*compiled.CompactGrain+77, 0.75)},
		{"all small", mixed(2*compiled.CompactGrain, 1)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := compiled.Compress(tc.v)
			if err := c.Validate(); err != nil {
				t.Fatal(err)
			}
			others := 0
			for i := range tc.v {
				if !tc.v[i].IsZero() && !tc.v[i].IsOne() {
					others++
				}
			}
			if len(c.Others) != others {
				t.Fatalf("%d others, want %d", len(c.Others), others)
			}
			dst := make([]fr.Element, len(tc.v))
			for i := range dst {
				dst[i].SetUint64(9) // Expand must overwrite everything
			}
			if err := c.Expand(dst); err != nil {
				t.Fatal(err)
			}
			equalVec(t, "expanded", dst, tc.v)
		})
	}
}

func TestCompactErrors(t *testing.T) {
	v := make([]fr.Element, 40)
	v[3].SetUint64(5)
	v[4].SetOne()
	tests := []struct {
		name string
		f    func(c *compiled.Compact) []fr.Element
	}{
		{"short dst", func(c *compiled.Compact) []fr.Element { return make([]fr.Element, 39) }},
		{"missing word", func(c *compiled.Compact) []fr.Element { c.Small = c.Small[:1]; return make([]fr.Element, 40) }},
		{"one outside small", func(c *compiled.Compact) []fr.Element { c.Ones[0] |= 1 << 3; return make([]fr.Element, 40) }},
		{"bit past N", func(c *compiled.Compact) []fr.Element { c.Small[1] |= 1 << 9; return make([]fr.Element, 40) }},
		{"missing other", func(c *compiled.Compact) []fr.Element { c.Others = nil; return make([]fr.Element, 40) }},
		{"negative N", func(c *compiled.Compact) []fr.Element { c.N = -1; return nil }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := compiled.Compress(v)
			dst := tc.f(c)
			if err := c.Expand(dst); !errors.Is(err, compiled.ErrBadWitness) {
				t.Fatalf("error %v, want compiled.ErrBadWitness", err)
			}
		})
	}
}
