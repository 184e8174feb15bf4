package aggregate

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"

	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// aggregateOf aggregates f's first n proofs under the shared SRS.
func aggregateOf(t *testing.T, f *fixture, n int) (*Proof, *VerifierKey) {
	t.Helper()
	pk, vk, err := f.srs.Specialize(n)
	if err != nil {
		t.Fatal(err)
	}
	proofs, _ := f.batch(n)
	agg, err := Aggregate(context.Background(), pk, testInclude, proofs)
	if err != nil {
		t.Fatal(err)
	}
	return agg, vk
}

// fieldRefs names every element of p: each GT, G1 and G2 value.
func fieldRefs(p *Proof) (gts map[string]*bls12381.GT, g1s map[string]*bls12381.G1Affine, g2s map[string]*bls12381.G2Affine) {
	gts = map[string]*bls12381.GT{
		"com_ab.0": &p.ComAB[0], "com_ab.1": &p.ComAB[1],
		"com_c.0": &p.ComC[0], "com_c.1": &p.ComC[1], "ip_ab": &p.IPAB,
	}
	g1s = map[string]*bls12381.G1Affine{
		"agg_c": &p.AggC, "final_a": &p.FinalA, "final_c": &p.FinalC,
		"final_wkey.0": &p.FinalWKey[0], "final_wkey.1": &p.FinalWKey[1],
		"wkey_opening.0": &p.WKeyOpening[0], "wkey_opening.1": &p.WKeyOpening[1],
	}
	g2s = map[string]*bls12381.G2Affine{
		"final_b": &p.FinalB, "final_vkey.0": &p.FinalVKey[0], "final_vkey.1": &p.FinalVKey[1],
		"vkey_opening.0": &p.VKeyOpening[0], "vkey_opening.1": &p.VKeyOpening[1],
	}
	for k := range p.ComsAB {
		for s, side := range []string{"l", "r"} {
			for j := 0; j < 2; j++ {
				gts[fmt.Sprintf("comms_ab[%d].%s.%d", k, side, j)] = &p.ComsAB[k][s][j]
				gts[fmt.Sprintf("comms_c[%d].%s.%d", k, side, j)] = &p.ComsC[k][s][j]
			}
			gts[fmt.Sprintf("z_ab[%d].%s", k, side)] = &p.ZAB[k][s]
			g1s[fmt.Sprintf("z_c[%d].%s", k, side)] = &p.ZC[k][s]
		}
	}
	return gts, g1s, g2s
}

// Every element of the aggregate is bound: replacing any one by another
// valid element of its group (GT squared, a point doubled) makes the
// aggregate invalid.
func TestTamperedElementInvalid(t *testing.T) {
	f := getFixture(t)
	const n = 8
	_, inputs := f.batch(n)
	agg, vk := aggregateOf(t, f, n)
	if err := Verify(vk, &f.vk, inputs, agg, testInclude, nil); err != nil {
		t.Fatalf("untampered: %v", err)
	}
	gts, g1s, g2s := fieldRefs(agg)
	try := func(name string, set func(), undo func()) {
		set()
		defer undo()
		if err := Verify(vk, &f.vk, inputs, agg, testInclude, nil); !errors.Is(err, ErrInvalid) {
			t.Errorf("%s changed: got %v, want ErrInvalid", name, err)
		}
	}
	for name, x := range gts {
		old := *x
		try(name, func() { x.Square(x) }, func() { *x = old })
	}
	for name, x := range g1s {
		old := *x
		try(name, func() { x.Double(x) }, func() { *x = old })
	}
	for name, x := range g2s {
		old := *x
		try(name, func() { x.Double(x) }, func() { *x = old })
	}
	if got := len(gts) + len(g1s) + len(g2s); got != 5+10*3+7+2*3+5 {
		t.Fatalf("covered %d fields", got)
	}
}

// One flipped bit anywhere in the encoding is either rejected by the
// decoder or makes the aggregate invalid. Positions: the first and last
// byte of every field, the sign flag of every point (which decodes to the
// negated point), and random bits.
func TestFlippedBitInvalid(t *testing.T) {
	f := getFixture(t)
	const n = 4
	_, inputs := f.batch(n)
	agg, vk := aggregateOf(t, f, n)
	enc, err := agg.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	type flip struct {
		off  int
		mask byte
	}
	var flips []flip
	for _, fl := range fieldLayout(n) {
		flips = append(flips, flip{fl.off, 0x01}, flip{fl.off + fl.size - 1, 0x80})
		if fl.size == G1Size || fl.size == G2Size {
			flips = append(flips, flip{fl.off, flagLargest})
		}
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for i := 0; i < 24; i++ {
		flips = append(flips, flip{rng.IntN(len(enc)), byte(1) << rng.IntN(8)})
	}
	decodedBad, verifiedBad := 0, 0
	for _, fl := range flips {
		b := append([]byte(nil), enc...)
		b[fl.off] ^= fl.mask
		p, err := DecodeProof(b)
		if err != nil {
			if !errors.Is(err, ErrMalformed) {
				t.Errorf("byte %d ^%#x: decode error %v does not wrap ErrMalformed", fl.off, fl.mask, err)
			}
			decodedBad++
			continue
		}
		if err := Verify(vk, &f.vk, inputs, p, testInclude, nil); !errors.Is(err, ErrInvalid) {
			t.Errorf("byte %d ^%#x: decoded and verified: %v", fl.off, fl.mask, err)
		}
		verifiedBad++
	}
	if verifiedBad == 0 {
		t.Fatalf("no flip reached the verifier (%d rejected by the decoder)", decodedBad)
	}
	t.Logf("%d flips rejected by the decoder, %d by the verifier", decodedBad, verifiedBad)
}

type field struct{ off, size int }

// fieldLayout lists the encoded fields of an aggregate of n proofs.
func fieldLayout(n int) []field {
	var fs []field
	off := 0
	add := func(size, count int) {
		for i := 0; i < count; i++ {
			fs = append(fs, field{off, size})
			off += size
		}
	}
	l := log2(n)
	add(GTSize, 5)
	add(G1Size, 1)
	add(4, 1)
	add(GTSize, 8*l+2*l)
	add(G1Size, 2*l)
	add(G1Size, 1)
	add(G2Size, 1)
	add(G1Size, 1)
	add(G2Size, 2)
	add(G1Size, 2)
	add(G2Size, 2)
	add(G1Size, 2)
	if off != Size(n) {
		panic("fieldLayout disagrees with Size")
	}
	return fs
}

// The transcript bytes and every public input are bound.
func TestChangedStatementInvalid(t *testing.T) {
	f := getFixture(t)
	const n = 8
	agg, vk := aggregateOf(t, f, n)
	cases := []struct {
		name    string
		include []byte
		change  func(in [][]fr.Element)
	}{
		{"include one byte changed", append([]byte{'S'}, testInclude[1:]...), nil},
		{"include empty", nil, nil},
		{"include one byte longer", append(append([]byte(nil), testInclude...), 0), nil},
		{"first input of first proof", testInclude, func(in [][]fr.Element) { in[0][0].SetUint64(1) }},
		{"last input of last proof", testInclude, func(in [][]fr.Element) { in[n-1][len(in[n-1])-1].SetUint64(1) }},
		{"an inner input of one proof doubled", testInclude, func(in [][]fr.Element) {
			in[2][1].Double(&in[2][1])
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, inputs := f.batch(n)
			if tc.change != nil {
				tc.change(inputs)
			}
			if err := Verify(vk, &f.vk, inputs, agg, tc.include, nil); !errors.Is(err, ErrInvalid) {
				t.Fatalf("got %v, want ErrInvalid", err)
			}
		})
	}
}
