package groth16

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"
)

// readDeferred opens path with OpenParams and reads every query in
// ranges of chunk points into a decoded Params, as a device would.
func readDeferred(path string, opts ReadOptions, chunk int) (*Params, error) {
	p, err := OpenParams(path, opts)
	if err != nil {
		return nil, err
	}
	d := p.Deferred
	out := &Params{VK: p.VK}
	g1 := map[Query]*[]bls12381.G1Affine{QueryH: &out.H, QueryL: &out.L, QueryA: &out.A, QueryBG1: &out.BG1}
	for q := QueryH; q <= QueryBG1; q++ {
		v := make([]bls12381.G1Affine, d.Len(q))
		for lo := 0; lo < len(v); lo += chunk {
			if err := d.ReadG1(q, lo, v[lo:min(lo+chunk, len(v))], nil); err != nil {
				return nil, err
			}
		}
		*g1[q] = v
	}
	out.BG2 = make([]bls12381.G2Affine, d.Len(QueryBG2))
	buf := make([]byte, chunk*G2Size)
	for lo := 0; lo < len(out.BG2); lo += chunk {
		if err := d.ReadG2(lo, out.BG2[lo:min(lo+chunk, len(out.BG2))], buf); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func writeTemp(t testing.TB, b []byte) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "p.params")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestOpenParamsEqualsReadParams(t *testing.T) {
	want, good := mustSmall(t)
	path := writeTemp(t, good)
	for _, chunk := range []int{1, 7, 1 << 20} {
		got, err := readDeferred(path, ReadOptions{Checked: true, Workers: 3}, chunk)
		if err != nil {
			t.Fatalf("chunk %d: %v", chunk, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("chunk %d: the deferred reads differ from DecodeParams", chunk)
		}
	}
	p, err := OpenParams(path, ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.H)+len(p.L)+len(p.A)+len(p.BG1)+len(p.BG2) != 0 {
		t.Fatal("OpenParams decoded points")
	}
	for q, n := range map[Query]int{QueryH: len(want.H), QueryL: len(want.L), QueryA: len(want.A), QueryBG1: len(want.BG1), QueryBG2: len(want.BG2)} {
		if p.Len(q) != n || want.Len(q) != n {
			t.Fatalf("Len(%v) = %d (deferred), %d (decoded); want %d", q, p.Len(q), want.Len(q), n)
		}
	}
	if err := p.CheckShape(shapeOf(want)); err != nil {
		t.Fatalf("CheckShape of deferred parameters: %v", err)
	}
	d := p.Deferred
	for _, bad := range []struct {
		name string
		err  error
	}{
		{"past the end", d.ReadG1(QueryL, d.Len(QueryL)-1, make([]bls12381.G1Affine, 2), nil)},
		{"negative start", d.ReadG1(QueryA, -1, make([]bls12381.G1Affine, 1), nil)},
		{"G2 query as G1", d.ReadG1(QueryBG2, 0, make([]bls12381.G1Affine, 1), nil)},
		{"B_G2 past the end", d.ReadG2(d.Len(QueryBG2), make([]bls12381.G2Affine, 1), nil)},
	} {
		if bad.err == nil {
			t.Errorf("%s: read succeeded", bad.name)
		}
	}
}

// shapeOf is the shape p's query lengths imply (for CheckShape).
func shapeOf(p *Params) Shape {
	return Shape{Inputs: len(p.VK.IC), Aux: len(p.L), ADensityAuxPop: len(p.A) - len(p.VK.IC),
		BDensityAuxPop: len(p.BG1), Constraints: len(p.H) + 1}
}

func TestOpenParamsRejectsBadPoints(t *testing.T) {
	_, good := mustSmall(t)
	lay := paramsLayout(t, good)
	for _, tc := range badPoints {
		t.Run(badPointName(tc), func(t *testing.T) {
			path := writeTemp(t, spoil(t, good, lay, tc))
			_, err := readDeferred(path, ReadOptions{Checked: tc.checked}, 2)
			checkBadPointErr(t, tc, err)
		})
	}
}

func TestOpenParamsRejectsMalformed(t *testing.T) {
	_, good := mustSmall(t)
	for _, tc := range malformedImages(good, paramsLayout(t, good)) {
		t.Run(tc.name, func(t *testing.T) {
			_, err := OpenParams(writeTemp(t, tc.b), ReadOptions{})
			if err == nil {
				t.Fatal("OpenParams accepted a malformed file")
			}
			if !errors.Is(err, ErrMalformed) {
				t.Fatalf("error %v is not ErrMalformed", err)
			}
			if tc.want != "" && !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %q does not mention %q", err, tc.want)
			}
		})
	}
	if _, err := OpenParams(filepath.Join(t.TempDir(), "missing.params"), ReadOptions{}); err == nil {
		t.Fatal("OpenParams(missing) succeeded")
	}
}

// FuzzOpenParams: a file OpenParams and the deferred reads accept is one
// DecodeParams accepts, with the same points, and the other way round.
func FuzzOpenParams(f *testing.F) {
	good := fuzzParamsSeeds(f)
	addMutations(f, good)
	f.Fuzz(func(t *testing.T, b []byte) {
		want, werr := DecodeParams(b, ReadOptions{Workers: 2})
		got, gerr := readDeferred(writeTemp(t, b), ReadOptions{Workers: 2}, 3)
		if (werr == nil) != (gerr == nil) {
			t.Fatalf("DecodeParams: %v; OpenParams and reads: %v", werr, gerr)
		}
		if werr == nil && !reflect.DeepEqual(got, want) {
			t.Fatal("the deferred reads differ from DecodeParams")
		}
	})
}
