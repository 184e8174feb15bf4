package poseidon

import (
	"fmt"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-project/cuzk/gadgets/num"
	native "github.com/cuzk-project/cuzk/hash/poseidon"
	"github.com/cuzk-project/cuzk/r1cs"
)

var one = func() fr.Element { var e fr.Element; e.SetOne(); return e }()

// elt is a state element: an allocated number, or a linear combination with
// its value (neptune's Elt::Allocated / Elt::Num).
type elt struct {
	allocated bool
	v         num.AllocatedNum
	n         num.Num
}

func (e *elt) value() *fr.Element {
	if e.allocated {
		return &e.v.Value
	}
	return &e.n.Value
}

// addScaled adds coeff·e to dst; with lcs false only the value.
func (e *elt) addScaled(dst *num.Num, coeff *fr.Element, lcs bool) {
	var t fr.Element
	t.Mul(coeff, e.value())
	dst.Value.Add(&dst.Value, &t)
	if !lcs {
		return
	}
	if e.allocated {
		dst.LC.AddTerm(e.v.Var, coeff)
		return
	}
	dst.LC = mergeScaled(dst.LC, coeff, e.n.LC)
}

// mergeScaled returns dst + coeff·src as a new combination. Both inputs are
// sorted by variable with one term per variable (r1cs's invariant), so one
// linear merge replaces len(src) sorted insertions.
func mergeScaled(dst r1cs.LinearCombination, coeff *fr.Element, src r1cs.LinearCombination) r1cs.LinearCombination {
	out := make(r1cs.LinearCombination, 0, len(dst)+len(src))
	i, j := 0, 0
	var t fr.Element
	for i < len(dst) || j < len(src) {
		switch {
		case j == len(src) || (i < len(dst) && dst[i].Var < src[j].Var):
			out = append(out, dst[i])
			i++
		case i == len(dst) || src[j].Var < dst[i].Var:
			out = append(out, r1cs.Term{Var: src[j].Var})
			out[len(out)-1].Coeff.Mul(coeff, &src[j].Coeff)
			j++
		default:
			t.Mul(coeff, &src[j].Coeff)
			out = append(out, dst[i])
			out[len(out)-1].Coeff.Add(&out[len(out)-1].Coeff, &t)
			i++
			j++
		}
	}
	return out
}

func lc1(v r1cs.Variable) r1cs.LinearCombination {
	return r1cs.LinearCombination{{Var: v, Coeff: one}}
}

// plus is 1·v + k·ONE.
func plus(v r1cs.Variable, k *fr.Element) r1cs.LinearCombination {
	var lc r1cs.LinearCombination
	lc.AddTerm(r1cs.One, k)
	lc.AddTerm(v, &one)
	return lc
}

// circuit is one hash being synthesized. With lcs false (the system is an
// r1cs.WitnessAssignment, which ignores constraints) it allocates the same
// values in the same order and enforces empty rows, skipping every linear
// combination: the witness then costs about as much as the native hash.
type circuit struct {
	c        *native.Constants
	lcs      bool
	elements []elt
	offset   int // next compressed round constant
	round    int // rounds done, selects the MDS variant
}

// Hash synthesizes the Poseidon hash of preimage (exactly c.Arity numbers)
// and returns the allocated digest, equal to c.Hash of the values.
//
// The rows are those neptune's circuit builds; they are built once per
// arity and tag (see template) and bound to this call's variables, so a
// hash costs its values plus copying its rows. A system that ignores
// constraints gets empty rows; an r1cs.AuxBatcher (r1cs.WitnessAssignment)
// gets the values computed on plain field elements (hashWitness).
func Hash(cs r1cs.ConstraintSystem, preimage []num.AllocatedNum, c *native.Constants) (num.AllocatedNum, error) {
	if len(preimage) != c.Arity {
		return num.AllocatedNum{}, fmt.Errorf("%w: got %d numbers, arity %d", native.ErrPreimage, len(preimage), c.Arity)
	}
	if b, ok := r1cs.AsAuxBatcher(cs); ok {
		return hashWitness(b, preimage, c), nil
	}
	if r1cs.SkipsConstraints(cs) {
		return synthesize(cs, preimage, c, false), nil
	}
	tpl := templateFor(c)
	b := &binder{cs: cs, rows: tpl.rows, vars: make([]r1cs.Variable, 0, c.Arity+tpl.allocs)}
	for _, x := range preimage {
		b.vars = append(b.vars, x.Var)
	}
	out := synthesize(b, preimage, c, false)
	if b.next != len(tpl.rows) {
		panic("poseidon: template row count mismatch") // a bug in this package, not an input error
	}
	return out, nil
}

// synthesize runs neptune's poseidon_hash; with lcs false it computes the
// values and enforces empty rows.
func synthesize(cs r1cs.ConstraintSystem, preimage []num.AllocatedNum, c *native.Constants, lcs bool) num.AllocatedNum {
	p := &circuit{c: c, lcs: lcs, elements: make([]elt, c.Width)}
	p.elements[0] = p.constant(c.Tag)
	for i, x := range preimage {
		p.elements[i+1] = elt{allocated: true, v: x}
	}
	half := c.FullRounds / 2
	p.firstRound(cs)
	for range half - 1 {
		p.fullRound(cs, true)
	}
	for range c.PartialRounds {
		p.partialRound(cs)
	}
	for range half - 1 {
		p.fullRound(cs, true)
	}
	p.fullRound(cs, false)
	return p.ensureAllocated(cs, &p.elements[1])
}

// constant is k·ONE.
func (p *circuit) constant(k fr.Element) elt {
	e := elt{n: num.Num{Value: k}}
	if p.lcs {
		e.n.LC = r1cs.LinearCombination{{Var: r1cs.One, Coeff: k}}
	}
	return e
}

// ensureAllocated allocates a linear combination and enforces lc · ONE = v.
func (p *circuit) ensureAllocated(cs r1cs.ConstraintSystem, e *elt) num.AllocatedNum {
	if e.allocated {
		return e.v
	}
	v := num.Alloc(cs, e.n.Value)
	if p.lcs {
		cs.Enforce(e.n.LC, lc1(r1cs.One), lc1(v.Var))
	} else {
		cs.Enforce(nil, nil, nil)
	}
	return v
}

// square allocates x² and enforces x · x = x² (AllocatedNum::square).
func (p *circuit) square(cs r1cs.ConstraintSystem, x num.AllocatedNum) num.AllocatedNum {
	var v fr.Element
	v.Square(&x.Value)
	r := num.Alloc(cs, v)
	if p.lcs {
		cs.Enforce(lc1(x.Var), lc1(x.Var), lc1(r.Var))
	} else {
		cs.Enforce(nil, nil, nil)
	}
	return r
}

// firstRound adds the first Width constants before the S-boxes and the next
// Width after them. Element 0 is the constant tag: its S-box is native.
func (p *circuit) firstRound(cs r1cs.ConstraintSystem) {
	t := p.c.Width
	pre := p.c.Compressed[p.offset : p.offset+t]
	post := p.c.Compressed[p.offset+t : p.offset+2*t]
	p.offset += 2 * t

	tag := *p.elements[0].value()
	tag.Add(&tag, &pre[0])
	x := tag
	x.Square(&x)
	x.Square(&x)
	tag.Mul(&tag, &x)
	tag.Add(&tag, &post[0])
	p.elements[0] = p.constant(tag)

	for i := 1; i < t; i++ {
		l := p.elements[i].v // preimage elements are allocated
		// (l + pre)² = l2
		var s, v fr.Element
		s.Add(&l.Value, &pre[i])
		v.Square(&s)
		l2 := num.Alloc(cs, v)
		if p.lcs {
			cs.Enforce(plus(l.Var, &pre[i]), plus(l.Var, &pre[i]), lc1(l2.Var))
		} else {
			cs.Enforce(nil, nil, nil)
		}
		l4 := p.square(cs, l2)
		// (l + pre) · l4 = l5 + post  ⇔  C = res − post
		v.Mul(&l4.Value, &s)
		v.Add(&v, &post[i])
		res := num.Alloc(cs, v)
		var a r1cs.LinearCombination
		if p.lcs {
			a = plus(l.Var, &pre[i])
		}
		p.enforcePost(cs, a, l4.Var, res.Var, &post[i])
		p.elements[i] = elt{allocated: true, v: res}
	}
	p.mix()
}

// enforcePost enforces a · b = res − post·ONE (neptune mul_sum with a
// post-add), or an empty row when constraints are ignored.
func (p *circuit) enforcePost(cs r1cs.ConstraintSystem, a r1cs.LinearCombination, b, res r1cs.Variable, post *fr.Element) {
	if !p.lcs {
		cs.Enforce(nil, nil, nil)
		return
	}
	var neg fr.Element
	neg.Neg(post)
	var c r1cs.LinearCombination
	c.AddTerm(r1cs.One, &neg)
	c.AddTerm(res, &one)
	cs.Enforce(a, lc1(b), c)
}

// sbox allocates e if needed and returns e⁵ (+ post when given) allocated.
func (p *circuit) sbox(cs r1cs.ConstraintSystem, e *elt, post *fr.Element) elt {
	l := p.ensureAllocated(cs, e)
	l2 := p.square(cs, l)
	l4 := p.square(cs, l2)
	var v fr.Element
	v.Mul(&l4.Value, &l.Value)
	if post == nil {
		res := num.Alloc(cs, v)
		if p.lcs {
			cs.Enforce(lc1(l.Var), lc1(l4.Var), lc1(res.Var))
		} else {
			cs.Enforce(nil, nil, nil)
		}
		return elt{allocated: true, v: res}
	}
	v.Add(&v, post)
	res := num.Alloc(cs, v)
	var a r1cs.LinearCombination
	if p.lcs {
		a = lc1(l.Var)
	}
	p.enforcePost(cs, a, l4.Var, res.Var, post)
	return elt{allocated: true, v: res}
}

func (p *circuit) fullRound(cs r1cs.ConstraintSystem, withKeys bool) {
	t := p.c.Width
	for i := range t {
		var post *fr.Element
		if withKeys {
			post = &p.c.Compressed[p.offset+i]
		}
		p.elements[i] = p.sbox(cs, &p.elements[i], post)
	}
	if withKeys {
		p.offset += t
	}
	p.mix()
}

func (p *circuit) partialRound(cs r1cs.ConstraintSystem) {
	post := &p.c.Compressed[p.offset]
	p.offset++
	p.elements[0] = p.sbox(cs, &p.elements[0], post)
	p.mix()
}

// mix applies the round's matrix as neptune's product_mds does: MDS, the
// pre-sparse matrix after the last initial full round, sparse matrices
// after the partial rounds.
func (p *circuit) mix() {
	half := p.c.FullRounds / 2
	switch r := p.round; {
	case r == half-1:
		p.mulMatrix(p.c.PreSparse)
	case r >= half && r < half+p.c.PartialRounds:
		p.mulSparse(&p.c.Sparse[r-half])
	default:
		p.mulMatrix(p.c.MDS)
	}
	p.round++
}

// mulMatrix sets element j to Σ_i m[i][j]·element i (row vector times m).
func (p *circuit) mulMatrix(m native.Matrix) {
	out := make([]elt, len(p.elements))
	for j := range out {
		var n num.Num
		for i := range p.elements {
			p.elements[i].addScaled(&n, &m[i][j], p.lcs)
		}
		out[j] = elt{n: n}
	}
	p.elements = out
}

// mulSparse: element 0 becomes Σ_i WHat[i]·element i, element j ≥ 1 becomes
// element j + VRest[j−1]·element 0.
func (p *circuit) mulSparse(m *native.SparseMatrix) {
	var first num.Num
	for i := range p.elements {
		p.elements[i].addScaled(&first, &m.WHat[i], p.lcs)
	}
	for j := 1; j < len(p.elements); j++ {
		e := &p.elements[j]
		if e.allocated { // cannot happen after the pre-sparse round; keep it general
			v := e.v
			*e = elt{n: num.Num{Value: v.Value}}
			if p.lcs {
				e.n.LC = lc1(v.Var)
			}
		}
		p.elements[0].addScaled(&e.n, &m.VRest[j-1], p.lcs)
	}
	p.elements[0] = elt{n: first}
}

// HashMerkleTree is Hash with the MerkleTree constants of len(preimage)
// (tree nodes, column hashes, comm_r = H(comm_c, comm_r_last)).
func HashMerkleTree(cs r1cs.ConstraintSystem, preimage []num.AllocatedNum) (num.AllocatedNum, error) {
	c, err := native.MerkleTree(len(preimage))
	if err != nil {
		return num.AllocatedNum{}, err
	}
	return Hash(cs, preimage, c)
}
