package groth16

import (
	"crypto/sha256"
	"crypto/sha512"
	"encoding/binary"
	"errors"
	"fmt"
	"math/big"
	"runtime"
	"sync"

	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr/fft"

	"github.com/cuzk-project/cuzk/r1cs"
)

// ErrUnconstrained reports an aux variable that appears in no constraint:
// its l point would be the identity, which bellperson's reader rejects.
var ErrUnconstrained = errors.New("aux variable appears in no constraint")

// Toxic is the trapdoor of a setup. Whoever knows it can forge proofs.
type Toxic struct {
	Tau, Alpha, Beta, Gamma, Delta fr.Element
}

// Setup generates parameters for circuit c, deterministically from seed.
//
// FOR DEVELOPMENT AND TESTS ONLY. The trapdoor (τ, α, β, γ, δ) is derived
// from the seed, so anyone who knows the seed can forge proofs. Real
// Filecoin parameters come from the Filecoin trusted-setup ceremony and are
// read with ReadParams.
//
// The parameters follow bellperson's generator: with L_k the Lagrange basis
// of the domain of size m (the smallest power of two ≥ the number of rows,
// ω as bellperson and gnark use), u_i, v_i, w_i = Σ_k A/B/C[k][i]·L_k(τ):
//
//	ic_j = (β·u_j + α·v_j + w_j)/γ   for every input (ONE first)
//	l_j  = (β·u_j + α·v_j + w_j)/δ   for every aux variable
//	h_i  = τ^i·(τ^m − 1)/δ          for i = 0..m−2
//	a    = u_i·G1, b_g1 = v_i·G1, b_g2 = v_i·G2, inputs then aux, identity
//	       points left out (they are exactly the variables without density)
func Setup(c r1cs.Circuit, seed []byte) (*Params, error) {
	p, _, err := SetupWithToxic(c, seed)
	return p, err
}

// SetupWithToxic is Setup that also returns the trapdoor (for tests that
// need it, e.g. to simulate proofs). Development only, as Setup.
func SetupWithToxic(c r1cs.Circuit, seed []byte) (*Params, *Toxic, error) {
	var cnt r1cs.Counter
	if err := r1cs.Synthesize(&cnt, c); err != nil {
		return nil, nil, fmt.Errorf("setup: synthesis (count): %w", err)
	}
	t := DeriveToxic(seed)
	p, err := generate(c, &cnt, t)
	if err != nil {
		return nil, nil, err
	}
	return p, t, nil
}

// DeriveToxic expands seed into a trapdoor with a SHA-512 based DRBG
// (SHA-512(domain ‖ SHA-256(seed) ‖ label ‖ counter) reduced mod r,
// redrawn when zero).
func DeriveToxic(seed []byte) *Toxic {
	key := sha256.Sum256(append([]byte("cuzk groth16 dev setup v1\x00"), seed...))
	draw := func(label string) fr.Element {
		for ctr := uint64(0); ; ctr++ {
			h := sha512.New()
			h.Write([]byte("cuzk groth16 dev setup drbg\x00"))
			h.Write(key[:])
			h.Write([]byte(label))
			var c [8]byte
			binary.BigEndian.PutUint64(c[:], ctr)
			h.Write(c[:])
			var v big.Int
			v.SetBytes(h.Sum(nil))
			v.Mod(&v, fr.Modulus())
			var e fr.Element
			e.SetBigInt(&v)
			if !e.IsZero() {
				return e
			}
		}
	}
	return &Toxic{
		Tau:   draw("tau"),
		Alpha: draw("alpha"),
		Beta:  draw("beta"),
		Gamma: draw("gamma"),
		Delta: draw("delta"),
	}
}

func generate(c r1cs.Circuit, cnt *r1cs.Counter, t *Toxic) (*Params, error) {
	kg, z, err := evaluate(c, cnt, t)
	if err != nil {
		return nil, err
	}
	var sc setupScalars
	if err := sc.fromKeygen(kg, cnt, t); err != nil {
		return nil, err
	}
	kg.u, kg.v, kg.w = [2][]fr.Element{}, [2][]fr.Element{}, [2][]fr.Element{}
	sc.h = make([]fr.Element, max(r1cs.DomainSize(cnt.Constraints)-1, 0))
	if len(sc.h) > 0 {
		var zd, deltaInv fr.Element
		deltaInv.Inverse(&t.Delta)
		zd.Mul(z, &deltaInv)
		powers(sc.h, &t.Tau, &zd)
	}

	_, _, g1, g2 := bls12381.Generators()
	p := &Params{}
	c1, c2 := newCombG1(&g1), newCombG2(&g2)
	fixed1 := c1.mul([]fr.Element{t.Alpha, t.Beta, t.Delta})
	fixed2 := c2.mul([]fr.Element{t.Beta, t.Gamma, t.Delta})
	p.VK.AlphaG1, p.VK.BetaG1, p.VK.DeltaG1 = fixed1[0], fixed1[1], fixed1[2]
	p.VK.BetaG2, p.VK.GammaG2, p.VK.DeltaG2 = fixed2[0], fixed2[1], fixed2[2]
	p.VK.IC = c1.mul(sc.ic)
	p.L = c1.mul(sc.l)
	p.H = c1.mul(sc.h)
	p.A = c1.mul(sc.a)
	p.BG1 = c1.mul(sc.b)
	p.BG2 = c2.mul(sc.b)
	return p, nil
}

// evaluate synthesizes c into the QAP polynomials u, v, w of every variable
// evaluated at τ, over the domain that cnt's constraints fix, and returns
// them with z = t(τ) = τ^m − 1.
func evaluate(c r1cs.Circuit, cnt *r1cs.Counter, t *Toxic) (*keygen, *fr.Element, error) {
	n := cnt.Constraints
	m := r1cs.DomainSize(n)
	if m > 1<<32 {
		return nil, nil, fmt.Errorf("setup: %d constraints exceed the 2^32 domain", n)
	}

	// τ must lie outside the domain.
	var z fr.Element
	one := fr.One()
	z.Exp(t.Tau, big.NewInt(int64(m)))
	z.Sub(&z, &one)
	if z.IsZero() {
		return nil, nil, errors.New("setup: τ lies in the evaluation domain; use another seed")
	}
	lag, err := lagrangeAt(&t.Tau, &z, m)
	if err != nil {
		return nil, nil, err
	}

	kg := &keygen{lagrange: lag[:n]}
	kg.grow(cnt.Inputs, cnt.Aux)
	if err := r1cs.Synthesize(kg, c); err != nil {
		return nil, nil, fmt.Errorf("setup: synthesis: %w", err)
	}
	if kg.rows != n || len(kg.u[0]) != cnt.Inputs || len(kg.u[1]) != cnt.Aux {
		return nil, nil, fmt.Errorf("setup: circuit is not deterministic: %d rows, %d inputs, %d aux on the second pass, %d, %d, %d on the first",
			kg.rows, len(kg.u[0]), len(kg.u[1]), n, cnt.Inputs, cnt.Aux)
	}
	kg.lagrange = nil
	return kg, &z, nil
}

// setupScalars are the exponents of the parameters' G1 and G2 vectors.
type setupScalars struct {
	ic, l, h, a, b []fr.Element
}

// fromKeygen computes ic and l, (β·u + α·v + w)/γ over the inputs and /δ
// over aux, and the a and b queries (u and v filtered by density) from
// kg's evaluations, rejecting a degenerate trapdoor and an unconstrained
// aux variable.
func (sc *setupScalars) fromKeygen(kg *keygen, cnt *r1cs.Counter, t *Toxic) error {
	var gammaInv, deltaInv fr.Element
	gammaInv.Inverse(&t.Gamma)
	deltaInv.Inverse(&t.Delta)
	combined := func(side int, i int, inv *fr.Element) fr.Element {
		var r, x fr.Element
		r.Mul(&t.Beta, &kg.u[side][i])
		x.Mul(&t.Alpha, &kg.v[side][i])
		r.Add(&r, &x)
		r.Add(&r, &kg.w[side][i])
		r.Mul(&r, inv)
		return r
	}
	nIn, nAux := cnt.Inputs, cnt.Aux
	sc.ic = make([]fr.Element, nIn)
	for j := range sc.ic {
		sc.ic[j] = combined(0, j, &gammaInv)
		if sc.ic[j].IsZero() {
			return fmt.Errorf("setup: ic[%d] is the identity (degenerate trapdoor); use another seed", j)
		}
	}
	sc.l = make([]fr.Element, nAux)
	for j := range sc.l {
		sc.l[j] = combined(1, j, &deltaInv)
		if sc.l[j].IsZero() {
			if !kg.used(j) {
				return fmt.Errorf("setup: aux[%d]: %w (l[%d] would be the point at infinity)", j, ErrUnconstrained, j)
			}
			return fmt.Errorf("setup: l[%d] is the identity (degenerate trapdoor); use another seed", j)
		}
	}
	return sc.queries(kg, cnt)
}

// queries computes a (every input, as the input constraints make A dense
// over inputs, then aux with A density) and b (inputs and aux with B
// density).
func (sc *setupScalars) queries(kg *keygen, cnt *r1cs.Counter) error {
	nIn := cnt.Inputs
	sc.a = make([]fr.Element, 0, nIn+cnt.ADensityAuxCount())
	for j := 0; j < nIn; j++ {
		if kg.u[0][j].IsZero() {
			return fmt.Errorf("setup: a: input %d has u(τ) = 0", j)
		}
		sc.a = append(sc.a, kg.u[0][j])
	}
	sc.b = make([]fr.Element, 0, cnt.BDensityInputCount()+cnt.BDensityAuxCount())
	if err := filterByDensity(&sc.a, kg.u[1], &kg.aAux, "a", "aux"); err != nil {
		return err
	}
	if err := filterByDensity(&sc.b, kg.v[0], &kg.bIn, "b", "input"); err != nil {
		return err
	}
	if err := filterByDensity(&sc.b, kg.v[1], &kg.bAux, "b", "aux"); err != nil {
		return err
	}
	if len(sc.a) != nIn+cnt.ADensityAuxCount() || len(sc.b) != cnt.BDensityInputCount()+cnt.BDensityAuxCount() {
		return fmt.Errorf("setup: densities differ between passes (|a| = %d, |b| = %d)", len(sc.a), len(sc.b))
	}
	return nil
}

// filterByDensity appends vals[i] for every i with density d set; a set bit
// must come with a non-zero value and a clear bit with zero, so that
// filtering out identity points (bellperson) equals following the prover's
// densities.
func filterByDensity(dst *[]fr.Element, vals []fr.Element, d *r1cs.Bitmap, vec, side string) error {
	for i := range vals {
		set := d.Get(i)
		zero := vals[i].IsZero()
		switch {
		case set && zero:
			return fmt.Errorf("setup: %s: %s %d has a non-zero coefficient but evaluates to zero at τ (degenerate trapdoor); use another seed", vec, side, i)
		case !set && !zero:
			return fmt.Errorf("setup: %s: %s %d has no density but a non-zero evaluation", vec, side, i)
		case set:
			*dst = append(*dst, vals[i])
		}
	}
	return nil
}

// lagrangeAt returns L_k(τ) for k < m over the domain generated by ω =
// fft.Generator(m): L_k(τ) = (τ^m − 1)/m · ω^k/(τ − ω^k), with z = τ^m − 1.
func lagrangeAt(tau, z *fr.Element, m int) ([]fr.Element, error) {
	omega, err := fft.Generator(uint64(m))
	if err != nil {
		return nil, fmt.Errorf("setup: domain of size %d: %w", m, err)
	}
	var zm fr.Element
	zm.SetUint64(uint64(m))
	zm.Inverse(&zm)
	zm.Mul(&zm, z)

	out := make([]fr.Element, m)
	parallelChunks(m, func(lo, hi int) {
		var wk fr.Element
		wk.Exp(omega, big.NewInt(int64(lo)))
		den := make([]fr.Element, hi-lo)
		num := make([]fr.Element, hi-lo)
		for k := lo; k < hi; k++ {
			num[k-lo] = wk
			den[k-lo].Sub(tau, &wk)
			wk.Mul(&wk, &omega)
		}
		inv := fr.BatchInvert(den)
		for k := lo; k < hi; k++ {
			out[k].Mul(&num[k-lo], &inv[k-lo])
			out[k].Mul(&out[k], &zm)
		}
	})
	return out, nil
}

// powers sets dst[i] = c·x^i.
func powers(dst []fr.Element, x, c *fr.Element) {
	parallelChunks(len(dst), func(lo, hi int) {
		var p fr.Element
		p.Exp(*x, big.NewInt(int64(lo)))
		p.Mul(&p, c)
		for i := lo; i < hi; i++ {
			dst[i] = p
			p.Mul(&p, x)
		}
	})
}

// parallelChunks splits [0, n) into one chunk per CPU, of at least 1024.
func parallelChunks(n int, f func(lo, hi int)) { parallelRange(n, 1024, f) }

// parallelRange runs f over [0, n) split into one range per CPU, each of
// at least grain indices (one range, on this goroutine, when n is small).
func parallelRange(n, grain int, f func(lo, hi int)) {
	workers := min(runtime.NumCPU(), (n+grain-1)/grain)
	if workers <= 1 {
		if n > 0 {
			f(0, n)
		}
		return
	}
	var wg sync.WaitGroup
	for c := 0; c < workers; c++ {
		lo, hi := n*c/workers, n*(c+1)/workers
		wg.Add(1)
		go func() {
			defer wg.Done()
			f(lo, hi)
		}()
	}
	wg.Wait()
}

// keygen is the constraint system of the setup: it accumulates, per
// variable, the evaluations at τ of its A, B and C column polynomials,
// u_i(τ), v_i(τ), w_i(τ) = Σ_k coeff·L_k(τ) over the rows k where it
// appears, and tracks densities exactly as r1cs.ProvingAssignment does.
type keygen struct {
	lagrange []fr.Element
	rows     int
	// index 0: inputs, 1: aux
	u, v, w         [2][]fr.Element
	aAux, bIn, bAux r1cs.Bitmap
	cAux            r1cs.Bitmap // aux used in C (for error messages only)
}

func (k *keygen) grow(inputs, aux int) {
	for s, n := range [2]int{inputs, aux} {
		k.u[s] = make([]fr.Element, 0, n)
		k.v[s] = make([]fr.Element, 0, n)
		k.w[s] = make([]fr.Element, 0, n)
	}
}

func (k *keygen) alloc(side int) {
	var zero fr.Element
	k.u[side] = append(k.u[side], zero)
	k.v[side] = append(k.v[side], zero)
	k.w[side] = append(k.w[side], zero)
}

func (k *keygen) Alloc(fr.Element) r1cs.Variable {
	k.alloc(1)
	k.aAux.Grow()
	k.bAux.Grow()
	k.cAux.Grow()
	return r1cs.AuxVariable(len(k.u[1]) - 1)
}

func (k *keygen) AllocInput(fr.Element) r1cs.Variable {
	k.alloc(0)
	k.bIn.Grow()
	return r1cs.InputVariable(len(k.u[0]) - 1)
}

func (k *keygen) Enforce(a, b, c r1cs.LinearCombination) {
	row := k.rows
	k.rows++
	if row >= len(k.lagrange) {
		return // more rows than counted: reported after synthesis
	}
	l := &k.lagrange[row]
	k.accumulate(a, &k.u, l, nil, &k.aAux)
	k.accumulate(b, &k.v, l, &k.bIn, &k.bAux)
	k.accumulate(c, &k.w, l, nil, &k.cAux)
}

func (k *keygen) accumulate(lc r1cs.LinearCombination, dst *[2][]fr.Element, l *fr.Element, in, aux *r1cs.Bitmap) {
	var t fr.Element
	for i := range lc {
		term := &lc[i]
		if term.Coeff.IsZero() {
			continue
		}
		side, idx := 1, term.Var.Index()
		d := aux
		if term.Var.IsInput() {
			side, d = 0, in
		}
		if idx >= len(dst[side]) {
			continue // unknown variable: the counts will disagree
		}
		if d != nil {
			d.Set(idx)
		}
		t.Mul(&term.Coeff, l)
		dst[side][idx].Add(&dst[side][idx], &t)
	}
}

func (k *keygen) used(j int) bool {
	return k.aAux.Get(j) || k.bAux.Get(j) || k.cAux.Get(j)
}

func (k *keygen) NumInputs() int      { return len(k.u[0]) }
func (k *keygen) NumAux() int         { return len(k.u[1]) }
func (k *keygen) NumConstraints() int { return k.rows }
