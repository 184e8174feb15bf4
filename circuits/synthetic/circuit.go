package synthetic

import (
	"fmt"
	"math"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-project/cuzk/r1cs"
)

// Circuit is a synthetic r1cs.Circuit; build it with New.
type Circuit struct {
	cfg Config
}

// New validates cfg and returns its circuit.
func New(cfg Config) (*Circuit, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return &Circuit{cfg: cfg}, nil
}

// Config returns the circuit's config.
func (c *Circuit) Config() Config { return c.cfg }

// Hint is a capacity hint for r1cs.NewProvingAssignment.
func (c *Circuit) Hint() r1cs.Shape {
	return r1cs.Shape{Inputs: c.cfg.Inputs + 1, Aux: c.cfg.CircuitConstraints(), Constraints: c.cfg.Constraints}
}

// PublicInputs returns the values of the public inputs, ONE excluded, in
// allocation order (what a verifier is given).
func (c *Circuit) PublicInputs() []fr.Element {
	out := make([]fr.Element, c.cfg.Inputs)
	for i := range out {
		out[i] = inputValue(c.cfg.Seed, i)
	}
	return out
}

// Synthesize allocates the inputs, then one aux variable and one constraint
// per circuit row (see the package comment).
func (c *Circuit) Synthesize(cs r1cs.ConstraintSystem) error {
	if err := c.cfg.Validate(); err != nil {
		return err
	}
	cfg := c.cfg
	inputs := make([]fr.Element, cfg.Inputs)
	for i := range inputs {
		inputs[i] = inputValue(cfg.Seed, i)
		if v := cs.AllocInput(inputs[i]); v.Index() != i+1 {
			return fmt.Errorf("synthetic: input %d allocated as %v: the system must hold only ONE before the circuit", i, v)
		}
	}
	n := cfg.CircuitConstraints()
	t := cfg.thresholds()
	var sl slab
	for j := 0; j < n; j++ {
		d := t.decide(cfg.Seed, j)
		xj := cs.Alloc(d.value)
		if xj.IsInput() || xj.Index() != j {
			return fmt.Errorf("synthetic: aux %d allocated as %v: the system must hold no aux before the circuit", j, xj)
		}
		a, aVal := c.rowA(&t, j, &d, xj, inputs, sl.carve(3))
		b, bVal := c.rowB(&t, j, &d, xj, sl.carve(3))

		// C = x_j + κ·ONE with κ = a·b − x_j.
		var kappa fr.Element
		kappa.Mul(&aVal, &bVal).Sub(&kappa, &d.value)
		cc := sl.carve(2)
		if !kappa.IsZero() {
			cc.AddCoeff(kappa, r1cs.One)
		}
		cc.Add(xj)

		cs.Enforce(a, b, cc)
	}
	return nil
}

// slab carves linear combinations from shared arrays that are never
// reused, so a system that keeps them (a recorder) stays correct.
type slab []r1cs.Term

func (s *slab) carve(k int) r1cs.LinearCombination {
	if len(*s) < k {
		*s = make([]r1cs.Term, 3*4096)
	}
	lc := r1cs.LinearCombination((*s)[:0:k])
	*s = (*s)[k:]
	return lc
}

// rowA fills a with row j's A (an input every 16th row, an earlier
// variable, x_j itself; ONE when none of them) and returns it with its
// value.
func (c *Circuit) rowA(t *thresholds, j int, d *decision, xj r1cs.Variable, inputs []fr.Element, a r1cs.LinearCombination) (r1cs.LinearCombination, fr.Element) {
	var aVal, t1 fr.Element
	if c.cfg.Inputs > 0 && j%16 == 0 {
		i := (j / 16) % c.cfg.Inputs
		a.Add(r1cs.InputVariable(i + 1))
		aVal.Add(&aVal, &inputs[i])
	}
	if k := j - d.backA; k >= 0 {
		if dk := t.decide(c.cfg.Seed, k); dk.inA {
			a.AddCoeff(d.coeffA, r1cs.AuxVariable(k))
			switch {
			case dk.value.IsZero():
			case dk.value.IsOne():
				aVal.Add(&aVal, &d.coeffA)
			default:
				t1.Mul(&d.coeffA, &dk.value)
				aVal.Add(&aVal, &t1)
			}
		}
	}
	if d.inA {
		a.Add(xj)
		aVal.Add(&aVal, &d.value)
	}
	if len(a) == 0 {
		a.Add(r1cs.One)
		aVal.SetOne()
	}
	return a, aVal
}

// rowB fills b with row j's B (ONE, an earlier variable, x_j itself) and
// returns it with its value.
func (c *Circuit) rowB(t *thresholds, j int, d *decision, xj r1cs.Variable, b r1cs.LinearCombination) (r1cs.LinearCombination, fr.Element) {
	var bVal fr.Element
	b.Add(r1cs.One)
	bVal.SetOne()
	if k := j - d.backB; k >= 0 {
		if dk := t.decide(c.cfg.Seed, k); dk.inB {
			b.Add(r1cs.AuxVariable(k))
			bVal.Add(&bVal, &dk.value)
		}
	}
	if d.inB {
		b.Add(xj)
		bVal.Add(&bVal, &d.value)
	}
	return b, bVal
}

// thresholds turns the config's fractions into 64-bit comparison bounds.
type thresholds struct {
	bool_, a, b uint64
	all         [3]bool // fraction is exactly 1
}

func (c Config) thresholds() thresholds {
	bound := func(f float64) uint64 {
		if f >= 1 {
			return math.MaxUint64
		}
		return uint64(f * (1 << 63) * 2)
	}
	return thresholds{
		bool_: bound(c.BoolFraction), a: bound(c.ADensity), b: bound(c.BDensity),
		all: [3]bool{c.BoolFraction >= 1, c.ADensity >= 1, c.BDensity >= 1},
	}
}

// decision is everything about aux variable j that the seed fixes.
type decision struct {
	isBool, inA, inB bool
	value            fr.Element
	backA, backB     int // distance to the earlier variable mixed into A, B
	coeffA           fr.Element
}

func (t *thresholds) decide(seed uint64, j int) decision {
	r := newStream(seed, streamAux, uint64(j))
	var d decision
	d.isBool = r.next() < t.bool_ || t.all[0]
	d.inA = r.next() < t.a || t.all[1]
	d.inB = r.next() < t.b || t.all[2]
	if d.isBool {
		if r.next()&1 == 1 {
			d.value.SetOne()
		}
	} else {
		d.value = r.element()
	}
	x := r.next()
	d.backA = 1 + int(x&63)
	d.backB = 1 + int(x>>6&1023)
	d.coeffA = powersOfTwo[x>>16&7] // bit-packing-like powers of two
	return d
}

// powersOfTwo holds 2^0 … 2^7 (SetUint64 costs a multiplication per call).
var powersOfTwo = func() (p [8]fr.Element) {
	for i := range p {
		p[i].SetUint64(1 << i)
	}
	return p
}()

func inputValue(seed uint64, i int) fr.Element {
	r := newStream(seed, streamInput, uint64(i))
	return r.element()
}

const (
	streamAux   = 0x243f6a8885a308d3
	streamInput = 0x13198a2e03707344
)

// stream is splitmix64, keyed by (seed, stream, index) so any variable's
// decisions can be replayed in O(1).
type stream struct{ s uint64 }

func newStream(seed, kind, idx uint64) stream {
	s := stream{seed ^ kind}
	s.s ^= mix64(idx + 0x9e3779b97f4a7c15*(kind|1))
	return s
}

func mix64(z uint64) uint64 {
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

func (r *stream) next() uint64 {
	r.s += 0x9e3779b97f4a7c15
	return mix64(r.s)
}

// element returns a uniform-looking field element: four random limbs below
// 2^254 < r, taken as a Montgomery representation.
func (r *stream) element() fr.Element {
	return fr.Element{r.next(), r.next(), r.next(), r.next() >> 2}
}
