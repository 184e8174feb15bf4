package cpu

import (
	"math/big"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-project/cuzk/groth16"
	"github.com/cuzk-project/cuzk/r1cs"
)

// rootOfUnity is blstrs' ROOT_OF_UNITY = 7^((r−1)/2^32) (src/scalar.rs),
// written out so the test does not take ω from gnark.
const rootOfUnity = "10238227357739495823651030575849232062558860180284477541189508159991286009131"

// omega is bellperson's ω for a domain of m = 2^k: ROOT_OF_UNITY^(2^(32−k)).
func omega(t *testing.T, m int) fr.Element {
	var w fr.Element
	if _, err := w.SetString(rootOfUnity); err != nil {
		t.Fatal(err)
	}
	for s := m; s < 1<<32; s *= 2 {
		w.Square(&w)
	}
	return w
}

// interpolate returns the coefficients of the polynomial of degree < m
// taking value v[i] at ω^i (v zero-padded to m), by the inverse DFT
// c_k = (1/m) Σ_i v_i ω^(−ik), in O(m²).
func interpolate(v []fr.Element, w fr.Element, m int) []fr.Element {
	var wInv, mInv fr.Element
	wInv.Inverse(&w)
	mInv.SetUint64(uint64(m)).Inverse(&mInv)
	c := make([]fr.Element, m)
	var wk fr.Element // ω^(−k)
	wk.SetOne()
	for k := 0; k < m; k++ {
		var x, t fr.Element // x = ω^(−ik)
		x.SetOne()
		for i := 0; i < len(v); i++ {
			t.Mul(&v[i], &x)
			c[k].Add(&c[k], &t)
			x.Mul(&x, &wk)
		}
		c[k].Mul(&c[k], &mInv)
		wk.Mul(&wk, &wInv)
	}
	return c
}

// slowH computes H = (A·B − C)/(x^m − 1) by schoolbook multiplication and
// long division, failing the test if the division leaves a remainder.
func slowH(t *testing.T, a, b, c []fr.Element) []fr.Element {
	m := r1cs.DomainSize(len(a))
	w := omega(t, m)
	pa, pb, pc := interpolate(a, w, m), interpolate(b, w, m), interpolate(c, w, m)
	// p = pa·pb − pc, degree ≤ 2m − 2.
	p := make([]fr.Element, 2*m-1)
	var tmp fr.Element
	for i := range pa {
		for j := range pb {
			tmp.Mul(&pa[i], &pb[j])
			p[i+j].Add(&p[i+j], &tmp)
		}
	}
	for i := range pc {
		p[i].Sub(&p[i], &pc[i])
	}
	// Divide by x^m − 1 from the top: q_k = p_{k+m}, then p_k += q_k.
	q := make([]fr.Element, max(m-1, 0))
	for k := len(p) - 1; k >= m; k-- {
		q[k-m] = p[k]
		p[k-m].Add(&p[k-m], &p[k])
		p[k].SetZero()
	}
	for k := range p {
		if !p[k].IsZero() {
			t.Fatalf("A·B − C is not divisible by Z: remainder coefficient %d is non-zero", k)
		}
	}
	return q
}

func randElement(r *rand.Rand) fr.Element {
	return fr.Element{r.Uint64(), r.Uint64(), r.Uint64(), r.Uint64() >> 2}
}

func TestHMatchesPolynomialDivision(t *testing.T) {
	t.Run("precomputed", func(t *testing.T) { testH(t) })
	t.Run("without-precompute", func(t *testing.T) {
		defer func(l int) { precomputeLimit = l }(precomputeLimit)
		precomputeLimit = 1
		testH(t)
	})
}

func testH(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var d Device
	for _, n := range []int{1, 2, 3, 4, 5, 7, 8, 9, 16, 17, 31, 64, 100} {
		a := make([]fr.Element, n)
		b := make([]fr.Element, n)
		c := make([]fr.Element, n)
		for i := range a {
			switch r.IntN(4) {
			case 0: // a boolean row, as in bit decompositions
				a[i].SetUint64(uint64(r.IntN(2)))
				b[i].SetOne()
			case 1:
				a[i] = randElement(r)
			default:
				a[i], b[i] = randElement(r), randElement(r)
			}
			c[i].Mul(&a[i], &b[i])
		}
		want := slowH(t, a, b, c)
		m := r1cs.DomainSize(n)
		// Exact capacity: pooled copies. Capacity m with stale values
		// beyond n: in place, and the tail must be cleared.
		roomy := func(v []fr.Element) []fr.Element {
			w := make([]fr.Element, m)
			for i := range w {
				w[i] = randElement(r)
			}
			return append(w[:0], v...)
		}
		for _, in := range []struct {
			how     string
			a, b, c []fr.Element
		}{
			{"copied", slices.Clone(a), slices.Clone(b), slices.Clone(c)},
			{"in place", roomy(a), roomy(b), roomy(c)},
		} {
			if n == 5 { // aliased: a, b and c are one array of bits
				bitsN := make([]fr.Element, n)
				for i := range bitsN {
					bitsN[i].SetUint64(uint64(r.IntN(2)))
				}
				x := roomy(bitsN)
				want := slowH(t, x, x, x)
				got, done, err := d.computeH(&groth16.Assignment{A: x, B: x, C: x}, m, 2)
				if err != nil {
					t.Fatal(err)
				}
				for i := range want {
					if !got[i].Equal(&want[i]) {
						t.Fatalf("aliased a = b = c: H coefficient %d differs", i)
					}
				}
				done()
			}
			got, done, err := d.computeH(&groth16.Assignment{A: in.a, B: in.b, C: in.c}, m, 2)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(want) || len(got) != m-1 {
				t.Fatalf("n=%d %s: %d coefficients, want %d (m − 1 = %d)", n, in.how, len(got), len(want), m-1)
			}
			for i := range want {
				if !got[i].Equal(&want[i]) {
					t.Fatalf("n=%d m=%d %s: H coefficient %d = %s, want %s", n, m, in.how, i, got[i].String(), want[i].String())
				}
			}
			done()
		}
	}
}

func TestOmegaIsGnarks(t *testing.T) {
	for _, m := range []int{2, 8, 1 << 10} {
		var d Device
		w := omega(t, m)
		if g := d.domain(m).dom.Generator; !g.Equal(&w) {
			t.Fatalf("m=%d: gnark ω %s, bellperson ω %s", m, g.String(), w.String())
		}
		var seven fr.Element
		seven.SetUint64(7)
		if g := d.domain(m).dom.FrMultiplicativeGen; !g.Equal(&seven) {
			t.Fatalf("coset generator %s, want 7", g.String())
		}
		var x fr.Element
		x.Exp(w, big.NewInt(int64(m)))
		if !x.IsOne() {
			t.Fatalf("ω^m ≠ 1 for m=%d", m)
		}
	}
}
