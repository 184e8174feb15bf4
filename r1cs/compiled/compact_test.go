package compiled_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-project/cuzk/r1cs/compiled"
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

// TestCountCompact: the two passes into arrays the caller owns (not
// cleared) give Compress's form, on one goroutine or several.
func TestCountCompact(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	v := make([]fr.Element, 2*compiled.CompactGrain+45)
	for i := range v {
		switch x := rng.IntN(4); {
		case x == 0:
			v[i] = randElement(rng)
		case x == 1:
			v[i].SetOne()
		}
	}
	for _, tc := range []struct {
		name  string
		n     int
		tasks int
	}{
		{"empty", 0, 1},
		{"one word short", 31, 1},
		{"one range", compiled.CompactGrain, 2},
		{"ranges, partial last word", len(v), 3},
		{"ranges, GOMAXPROCS", len(v), 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := v[:tc.n]
			want := compiled.Compress(v)
			words := (tc.n + 31) / 32
			small, ones := make([]uint32, words+1), make([]uint32, words+1)
			for i := range small {
				small[i], ones[i] = ^uint32(0), ^uint32(0)
			}
			k, err := compiled.CountCompact(v, small, ones, tc.tasks)
			if err != nil {
				t.Fatal(err)
			}
			if k.Others() != len(want.Others) {
				t.Fatalf("%d others, Compress found %d", k.Others(), len(want.Others))
			}
			others := make([]fr.Element, k.Others())
			if err := k.Fill(v, others, tc.tasks); err != nil {
				t.Fatal(err)
			}
			got := &compiled.Compact{N: tc.n, Small: small[:words], Ones: ones[:words], Others: others}
			if err := got.Validate(); err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got.Small, want.Small) || !slices.Equal(got.Ones, want.Ones) {
				t.Fatal("bitmaps differ from Compress's")
			}
			equalVec(t, "others", got.Others, want.Others)
			if small[words] != ^uint32(0) {
				t.Fatal("a word past the bitmap was written")
			}
		})
	}
}

// TestCountCompactErrors: arrays of the wrong size are refused.
func TestCountCompactErrors(t *testing.T) {
	v := make([]fr.Element, 70)
	v[5].SetUint64(7)
	if _, err := compiled.CountCompact(v, make([]uint32, 2), make([]uint32, 3), 1); !errors.Is(err, compiled.ErrBadWitness) {
		t.Errorf("short small bitmap: %v", err)
	}
	if _, err := compiled.CountCompact(v, make([]uint32, 3), make([]uint32, 2), 1); !errors.Is(err, compiled.ErrBadWitness) {
		t.Errorf("short ones bitmap: %v", err)
	}
	k, err := compiled.CountCompact(v, make([]uint32, 3), make([]uint32, 3), 1)
	if err != nil {
		t.Fatal(err)
	}
	if err := k.Fill(v, make([]fr.Element, 2), 1); !errors.Is(err, compiled.ErrBadWitness) {
		t.Errorf("others of the wrong length: %v", err)
	}
	if err := k.Fill(v[:69], make([]fr.Element, 1), 1); !errors.Is(err, compiled.ErrBadWitness) {
		t.Errorf("another vector: %v", err)
	}
}

// BenchmarkCountCompact compacts a PoRep-like vector (40 % zeros, 35 %
// ones, the rest other values) of 2^27 values, a 32 GiB partition's aux
// (2^20 with -short), into arrays allocated once, as a device staging it
// into pinned memory does: both passes per op, on one goroutine and on
// GOMAXPROCS.
func BenchmarkCountCompact(b *testing.B) {
	n := 1 << 27
	if testing.Short() {
		n = 1 << 20
	}
	rng := rand.New(rand.NewPCG(5, 6))
	v := make([]fr.Element, n)
	for i := range v {
		switch x := rng.IntN(20); {
		case x < 7:
			v[i].SetOne()
		case x >= 15: // below the modulus, not reduced: the passes only compare
			v[i] = fr.Element{rng.Uint64(), rng.Uint64(), rng.Uint64(), rng.Uint64() >> 2}
		}
	}
	words := (n + 31) / 32
	small, ones := make([]uint32, words), make([]uint32, words)
	k, err := compiled.CountCompact(v, small, ones, 0)
	if err != nil {
		b.Fatal(err)
	}
	others := make([]fr.Element, k.Others())
	if err := k.Fill(v, others, 0); err != nil { // and the pages are mapped, as pinned memory's are
		b.Fatal(err)
	}
	b.Logf("%d values, %.1f %% 0/1", n, 100*float64(n-k.Others())/float64(n))
	for _, tasks := range []int{1, runtime.GOMAXPROCS(0)} {
		b.Run(fmt.Sprintf("values=%d/tasks=%d", n, tasks), func(b *testing.B) {
			for b.Loop() {
				k, err := compiled.CountCompact(v, small, ones, tasks)
				if err == nil {
					err = k.Fill(v, others, tasks)
				}
				if err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/value")
			b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "values/s")
		})
	}
	// What the compaction replaces: the dense copy into the staging buffer.
	dst := make([]fr.Element, n)
	copy(dst, v)
	tasks := runtime.GOMAXPROCS(0)
	b.Run(fmt.Sprintf("values=%d/dense-copy/tasks=%d", n, tasks), func(b *testing.B) {
		for b.Loop() {
			var wg sync.WaitGroup
			for t := range tasks {
				lo, hi := t*n/tasks, (t+1)*n/tasks
				wg.Go(func() { copy(dst[lo:hi], v[lo:hi]) })
			}
			wg.Wait()
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/value")
	})
}

// TestMontOne: the limbs the compaction compares with are fr.One()'s.
func TestMontOne(t *testing.T) {
	if one := fr.One(); [4]uint64(one) != compiled.MontOne {
		t.Fatalf("1 in Montgomery form is %x, the compaction compares with %x", one, compiled.MontOne)
	}
}
