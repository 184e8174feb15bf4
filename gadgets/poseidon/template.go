package poseidon

import (
	"sync"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-project/cuzk/gadgets/num"
	native "github.com/cuzk-project/cuzk/hash/poseidon"
	"github.com/cuzk-project/cuzk/r1cs"
)

// A template is the constraint rows of one hash with its variables written
// as slots: slotOne for ONE, 0..arity−1 for the preimage, arity+k for the
// hash's k-th allocation. The coefficients depend only on the constants
// (not on values), so the rows are recorded once per parameter set and tag by the
// full linear-combination synthesis and reused by every later hash.
type template struct {
	allocs int
	rows   []row
}

const slotOne = -1

type slotTerm struct {
	slot  int32
	coeff fr.Element
}

type row struct{ a, b, c []slotTerm }

type templateKey struct {
	params *native.Params
	tag    fr.Element
}

var (
	templates   sync.Map   // templateKey → *template; read without locking
	templatesMu sync.Mutex // serializes recording
)

func templateFor(c *native.Constants) *template {
	key := templateKey{c.Params, c.Tag}
	if t, ok := templates.Load(key); ok {
		return t.(*template)
	}
	templatesMu.Lock()
	defer templatesMu.Unlock()
	if t, ok := templates.Load(key); ok {
		return t.(*template)
	}
	t := recordTemplate(c)
	templates.Store(key, t)
	return t
}

// slotRecorder is a ConstraintSystem whose aux variable k is slot k.
type slotRecorder struct {
	aux  int
	rows []row
}

func (r *slotRecorder) Alloc(fr.Element) r1cs.Variable {
	r.aux++
	return r1cs.AuxVariable(r.aux - 1)
}

func (r *slotRecorder) AllocInput(fr.Element) r1cs.Variable {
	panic("poseidon: the hash allocates no inputs")
}

func (r *slotRecorder) Enforce(a, b, c r1cs.LinearCombination) {
	r.rows = append(r.rows, row{slots(a), slots(b), slots(c)})
}

func slots(lc r1cs.LinearCombination) []slotTerm {
	out := make([]slotTerm, len(lc))
	for i, t := range lc {
		s := int32(slotOne)
		if t.Var != r1cs.One {
			s = int32(t.Var.Index())
		}
		out[i] = slotTerm{slot: s, coeff: t.Coeff}
	}
	return out
}

func recordTemplate(c *native.Constants) *template {
	r := &slotRecorder{}
	pre := make([]num.AllocatedNum, c.Arity)
	for i := range pre {
		pre[i] = num.AllocatedNum{Var: r.Alloc(fr.Element{})}
	}
	synthesize(r, pre, c, true)
	return &template{allocs: r.aux - c.Arity, rows: r.rows}
}

// binder forwards allocations to cs, remembering their variables, and
// replaces each (empty) row the value-only synthesis enforces by the next
// template row bound to those variables.
type binder struct {
	cs   r1cs.ConstraintSystem
	rows []row
	vars []r1cs.Variable // slot → variable
	next int
}

func (b *binder) Alloc(v fr.Element) r1cs.Variable {
	x := b.cs.Alloc(v)
	b.vars = append(b.vars, x)
	return x
}

func (b *binder) AllocInput(v fr.Element) r1cs.Variable { return b.cs.AllocInput(v) }

func (b *binder) Enforce(_, _, _ r1cs.LinearCombination) {
	r := &b.rows[b.next]
	b.next++
	b.cs.Enforce(b.bind(r.a), b.bind(r.b), b.bind(r.c))
}

// bind maps slots to variables. Slots are recorded in variable order; when
// the bound variables are still strictly increasing they are appended as
// they are, otherwise (a preimage given out of order or twice) they are
// merged through AddTerm, which keeps r1cs's sorted, merged invariant.
func (b *binder) bind(terms []slotTerm) r1cs.LinearCombination {
	if len(terms) == 0 {
		return nil
	}
	lc := make(r1cs.LinearCombination, 0, len(terms))
	for i := range terms {
		v := r1cs.One
		if s := terms[i].slot; s != slotOne {
			v = b.vars[s]
		}
		if n := len(lc); n > 0 && lc[n-1].Var >= v {
			lc.AddTerm(v, &terms[i].coeff)
			continue
		}
		lc = append(lc, r1cs.Term{Var: v, Coeff: terms[i].coeff})
	}
	return lc
}
