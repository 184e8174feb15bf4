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
	t := DeriveToxic(seed)
	opts := SetupOptions{}
	sc, err := scalarsOf(c, t, &opts, nil)
	if err != nil {
		return nil, nil, err
	}
	p, err := sc.params(t, &CPUFixedBase{}, opts.chunk())
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

// scalarsOf counts c (unless opts.Shape gives its size), evaluates its QAP
// at τ and turns the evaluations into the scalars of every query, recording
// the phases "count", "evaluate" and "scalars" in rec.
func scalarsOf(c r1cs.Circuit, t *Toxic, opts *SetupOptions, rec *setupRecorder) (*setupScalars, error) {
	var shape r1cs.Shape
	if opts.Shape != nil {
		shape = *opts.Shape
	} else {
		ph := rec.begin("count", 0)
		var cnt r1cs.Counter
		if err := r1cs.Synthesize(&cnt, c); err != nil {
			return nil, fmt.Errorf("setup: synthesis (count): %w", err)
		}
		shape = r1cs.Shape{Inputs: cnt.Inputs, Aux: cnt.Aux, Constraints: cnt.Constraints}
		ph.end()
	}
	ph := rec.begin("evaluate", shape.Constraints)
	kg, z, err := evaluate(c, shape, t)
	if err != nil {
		return nil, err
	}
	ph.end()
	ph = rec.begin("scalars", shape.Inputs+shape.Aux)
	sc := &setupScalars{}
	if err := sc.fromKeygen(kg, t); err != nil {
		return nil, err
	}
	sc.h.n = max(r1cs.DomainSize(shape.Constraints)-1, 0)
	var deltaInv fr.Element
	deltaInv.Inverse(&t.Delta)
	sc.h.x = t.Tau
	sc.h.c.Mul(z, &deltaInv)
	ph.end()
	return sc, nil
}

// params computes every point of the parameters in memory with fb, in
// chunks of chunk scalars.
func (sc *setupScalars) params(t *Toxic, fb FixedBase, chunk int) (*Params, error) {
	p := &Params{}
	vk, err := sc.verifyingKey(t, fb)
	if err != nil {
		return nil, err
	}
	p.VK = *vk
	_, _, gen1, gen2 := bls12381.Generators()
	for _, q := range sc.g1Queries() {
		out := make([]bls12381.G1Affine, q.src.Len())
		buf := make([]fr.Element, min(chunk, len(out)))
		for lo := 0; lo < len(out); lo += chunk {
			hi := min(lo+chunk, len(out))
			if err := fb.MulG1(gen1, q.src.chunk(lo, hi, buf), out[lo:hi]); err != nil {
				return nil, fmt.Errorf("setup: %s: %w", q.name, err)
			}
		}
		*q.dst(p) = out
	}
	b := concatScalars{sc.b[0], sc.b[1]}
	p.BG2 = make([]bls12381.G2Affine, b.Len())
	buf := make([]fr.Element, min(chunk, b.Len()))
	for lo := 0; lo < b.Len(); lo += chunk {
		hi := min(lo+chunk, b.Len())
		if err := fb.MulG2(gen2, b.chunk(lo, hi, buf), p.BG2[lo:hi]); err != nil {
			return nil, fmt.Errorf("setup: b_g2: %w", err)
		}
	}
	return p, nil
}

// verifyingKey computes the six fixed points and ic (with fb).
func (sc *setupScalars) verifyingKey(t *Toxic, fb FixedBase) (*VerifyingKey, error) {
	_, _, gen1, gen2 := bls12381.Generators()
	vk := &VerifyingKey{}
	fixed1 := newCombG1(&gen1).mul([]fr.Element{t.Alpha, t.Beta, t.Delta})
	fixed2 := newCombG2(&gen2).mul([]fr.Element{t.Beta, t.Gamma, t.Delta})
	vk.AlphaG1, vk.BetaG1, vk.DeltaG1 = fixed1[0], fixed1[1], fixed1[2]
	vk.BetaG2, vk.GammaG2, vk.DeltaG2 = fixed2[0], fixed2[1], fixed2[2]
	vk.IC = make([]bls12381.G1Affine, len(sc.ic))
	if err := fb.MulG1(gen1, sc.ic, vk.IC); err != nil {
		return nil, fmt.Errorf("setup: ic: %w", err)
	}
	return vk, nil
}

// g1Query is one G1 vector of the parameters after ic, in file order.
type g1Query struct {
	name string
	src  scalarSource
	dst  func(*Params) *[]bls12381.G1Affine
}

// g1Queries lists h, l, a and b_g1, in the order of the file.
func (sc *setupScalars) g1Queries() []g1Query {
	return []g1Query{
		{"h", &sc.h, func(p *Params) *[]bls12381.G1Affine { return &p.H }},
		{"l", concatScalars{sc.l}, func(p *Params) *[]bls12381.G1Affine { return &p.L }},
		{"a", concatScalars{sc.a[0], sc.a[1]}, func(p *Params) *[]bls12381.G1Affine { return &p.A }},
		{"b_g1", concatScalars{sc.b[0], sc.b[1]}, func(p *Params) *[]bls12381.G1Affine { return &p.BG1 }},
	}
}

// evaluate synthesizes c into the QAP polynomials u, v, w of every variable
// evaluated at τ, over the domain that shape's constraints fix, and returns
// them with z = t(τ) = τ^m − 1. A circuit that differs from shape is an
// error.
func evaluate(c r1cs.Circuit, shape r1cs.Shape, t *Toxic) (*keygen, *fr.Element, error) {
	n := shape.Constraints
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
	kg.grow(shape.Inputs, shape.Aux)
	if err := r1cs.Synthesize(kg, c); err != nil {
		return nil, nil, fmt.Errorf("setup: synthesis: %w", err)
	}
	if kg.rows != n || len(kg.u[0]) != shape.Inputs || len(kg.u[1]) != shape.Aux {
		return nil, nil, fmt.Errorf("setup: the circuit synthesized %d rows, %d inputs, %d aux, its shape (given, or counted by a first pass) says %d, %d, %d",
			kg.rows, len(kg.u[0]), len(kg.u[1]), n, shape.Inputs, shape.Aux)
	}
	kg.lagrange = nil
	return kg, &z, nil
}

// setupScalars are the exponents of the parameters' G1 and G2 vectors:
// ic and l, a and b (inputs, then aux; b_g1 and b_g2 share b), and h.
// They take over the keygen's memory (ic and l replace w; a and b are u
// and v compacted in place), so that the scalars cost nothing beyond the
// evaluations.
type setupScalars struct {
	ic, l []fr.Element
	a, b  [2][]fr.Element
	h     powerScalars
}

// fromKeygen computes ic and l, (β·u + α·v + w)/γ over the inputs and /δ
// over aux, and the a and b queries (u and v filtered by density) from
// kg's evaluations, rejecting a degenerate trapdoor and an unconstrained
// aux variable. It consumes kg.
func (sc *setupScalars) fromKeygen(kg *keygen, t *Toxic) error {
	var gammaInv, deltaInv fr.Element
	gammaInv.Inverse(&t.Gamma)
	deltaInv.Inverse(&t.Delta)
	// combine replaces w[side][lo:hi] by (β·u + α·v + w)·inv and returns the
	// first index whose result is zero, or −1.
	combine := func(side, lo, hi int, inv *fr.Element) int {
		u, v, w := kg.u[side], kg.v[side], kg.w[side]
		first := -1
		for i := lo; i < hi; i++ {
			var r, x fr.Element
			r.Mul(&t.Beta, &u[i])
			x.Mul(&t.Alpha, &v[i])
			r.Add(&r, &x)
			r.Add(&r, &w[i])
			w[i].Mul(&r, inv)
			if first < 0 && w[i].IsZero() {
				first = i
			}
		}
		return first
	}
	if j := combine(0, 0, len(kg.w[0]), &gammaInv); j >= 0 {
		return fmt.Errorf("setup: ic[%d] is the identity (degenerate trapdoor); use another seed", j)
	}
	if j := firstInRanges(len(kg.w[1]), func(lo, hi int) int { return combine(1, lo, hi, &deltaInv) }); j >= 0 {
		if !kg.used(j) {
			return fmt.Errorf("setup: aux[%d]: %w (l[%d] would be the point at infinity)", j, ErrUnconstrained, j)
		}
		return fmt.Errorf("setup: l[%d] is the identity (degenerate trapdoor); use another seed", j)
	}
	sc.ic, sc.l = kg.w[0], kg.w[1]
	for j := range kg.u[0] {
		if kg.u[0][j].IsZero() {
			return fmt.Errorf("setup: a: input %d has u(τ) = 0", j)
		}
	}
	sc.a[0] = kg.u[0] // every input, as the input constraints make A dense over inputs
	var err error
	if sc.a[1], err = compactByDensity(kg.u[1], &kg.aAux, "a", "aux"); err != nil {
		return err
	}
	if sc.b[0], err = compactByDensity(kg.v[0], &kg.bIn, "b", "input"); err != nil {
		return err
	}
	if sc.b[1], err = compactByDensity(kg.v[1], &kg.bAux, "b", "aux"); err != nil {
		return err
	}
	*kg = keygen{}
	return nil
}

// firstInRanges runs f over [0, n) split into one range per CPU and
// returns the lowest index any range reported (f returns −1 for none).
func firstInRanges(n int, f func(lo, hi int) int) int {
	var mu sync.Mutex
	first := -1
	parallelChunks(n, func(lo, hi int) {
		if j := f(lo, hi); j >= 0 {
			mu.Lock()
			if first < 0 || j < first {
				first = j
			}
			mu.Unlock()
		}
	})
	return first
}

// compactByDensity keeps vals[i] for every i with density d set, moved to
// the front of vals (in place), and returns that prefix; a set bit must
// come with a non-zero value and a clear bit with zero, so that filtering
// out identity points (bellperson) equals following the prover's
// densities.
func compactByDensity(vals []fr.Element, d *r1cs.Bitmap, vec, side string) ([]fr.Element, error) {
	k := 0
	for i := range vals {
		set := d.Get(i)
		zero := vals[i].IsZero()
		switch {
		case set && zero:
			return nil, fmt.Errorf("setup: %s: %s %d has a non-zero coefficient but evaluates to zero at τ (degenerate trapdoor); use another seed", vec, side, i)
		case !set && !zero:
			return nil, fmt.Errorf("setup: %s: %s %d has no density but a non-zero evaluation", vec, side, i)
		case set:
			vals[k] = vals[i]
			k++
		}
	}
	return vals[:k:k], nil
}

// scalarSource is the scalars of one query, read in chunks in order.
type scalarSource interface {
	Len() int
	// chunk returns scalars lo..hi, in buf (len(buf) ≥ hi − lo) or in
	// the source's own memory; the caller only reads them.
	chunk(lo, hi int, buf []fr.Element) []fr.Element
}

// concatScalars is the concatenation of its parts.
type concatScalars [][]fr.Element

func (c concatScalars) Len() int {
	n := 0
	for _, p := range c {
		n += len(p)
	}
	return n
}

func (c concatScalars) chunk(lo, hi int, buf []fr.Element) []fr.Element {
	off := 0
	for _, p := range c {
		if lo >= off && hi <= off+len(p) {
			return p[lo-off : hi-off] // within one part: no copy
		}
		off += len(p)
	}
	out := buf[:hi-lo]
	off = 0
	for _, p := range c {
		a, b := max(lo, off), min(hi, off+len(p))
		if a < b {
			copy(out[a-lo:b-lo], p[a-off:b-off])
		}
		off += len(p)
	}
	return out
}

// powerScalars is c·x^i for i < n (the h query: x = τ, c = (τ^m − 1)/δ).
type powerScalars struct {
	n    int
	x, c fr.Element
}

func (p *powerScalars) Len() int { return p.n }

func (p *powerScalars) chunk(lo, hi int, buf []fr.Element) []fr.Element {
	out := buf[:hi-lo]
	var c fr.Element
	c.Exp(p.x, big.NewInt(int64(lo)))
	c.Mul(&c, &p.c)
	powers(out, &p.x, &c)
	return out
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
