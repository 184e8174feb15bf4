package poseidon

import (
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-project/cuzk/gadgets/num"
	native "github.com/cuzk-project/cuzk/hash/poseidon"
	"github.com/cuzk-project/cuzk/r1cs"
)

// witnessAllocs is the number of variables (and rows: each comes with one)
// a hash allocates: 3 per preimage element in the first round, 4 per S-box
// afterwards (its input, x², x⁴, x⁵ + k: after a matrix product every
// element is a combination, so each S-box allocates its input first), and
// the output.
func witnessAllocs(c *native.Constants) int {
	t := c.Width
	return 3*(t-1) + 4*t*(c.FullRounds-1) + 4*c.PartialRounds + 1
}

// witnessBuf bounds the state kept on the stack.
const witnessBuf = 17

// hashWitness is Hash on an r1cs.AuxBatcher: the permutation on plain field
// elements, writing the values synthesize allocates, in its order, into one
// run of aux variables.
func hashWitness(cs r1cs.AuxBatcher, preimage []num.AllocatedNum, c *native.Constants) num.AllocatedNum {
	t, half := c.Width, c.FullRounds/2
	n := witnessAllocs(c)
	first, vals := cs.AllocAuxBatch(n)
	var sbuf, tbuf [witnessBuf]fr.Element
	w := witness{c: c, half: half, vals: vals, st: sbuf[:], tmp: tbuf[:]}
	if t > witnessBuf {
		w.st, w.tmp = make([]fr.Element, t), make([]fr.Element, t)
	}
	w.st, w.tmp = w.st[:t], w.tmp[:t]
	w.st[0] = c.Tag
	for i, x := range preimage {
		w.st[i+1] = x.Value
	}
	w.firstRound()
	for range half - 1 {
		w.fullRound(true)
	}
	for range c.PartialRounds {
		w.sbox(&w.st[0], &c.Compressed[w.offset])
		w.offset++
		w.mix()
	}
	for range half - 1 {
		w.fullRound(true)
	}
	w.fullRound(false)
	vals[w.k] = w.st[1]
	cs.EnforceSkipped(n)
	return num.AllocatedNum{Var: first + r1cs.Variable(n-1), Value: w.st[1]}
}

// witness is hashWitness's permutation state: st the width-t state, tmp
// the matrix product's scratch, vals the aux run written from k on,
// offset the next round constant in c.Compressed, round the rounds mixed
// so far.
type witness struct {
	c       *native.Constants
	half    int
	st, tmp []fr.Element
	vals    []fr.Element
	k       int
	offset  int
	round   int
}

// mix applies the round's matrix: the pre-sparse one before the partial
// rounds, a sparse one in each, the MDS matrix otherwise.
func (w *witness) mix() {
	switch r := w.round; {
	case r == w.half-1:
		mulMatrix(w.st, w.tmp, w.c.PreSparse)
	case r >= w.half && r < w.half+w.c.PartialRounds:
		mulSparse(w.st, &w.c.Sparse[r-w.half])
	default:
		mulMatrix(w.st, w.tmp, w.c.MDS)
	}
	w.round++
}

// sbox writes x, x², x⁴ and x⁵ (+ post) and leaves the last in *x.
func (w *witness) sbox(x *fr.Element, post *fr.Element) {
	v := w.vals[w.k : w.k+4 : w.k+4]
	w.k += 4
	v[0] = *x
	v[1].Square(x)
	v[2].Square(&v[1])
	v[3].Mul(&v[2], x)
	if post != nil {
		v[3].Add(&v[3], post)
	}
	*x = v[3]
}

// firstRound: constants before and after the S-boxes; the tag's S-box is
// native, each preimage element's writes x², x⁴ and x⁵ + post.
func (w *witness) firstRound() {
	t, st, vals := len(w.st), w.st, w.vals
	pre, post := w.c.Compressed[:t], w.c.Compressed[t:2*t]
	w.offset = 2 * t
	var x fr.Element
	st[0].Add(&st[0], &pre[0])
	x.Square(&st[0])
	x.Square(&x)
	st[0].Mul(&st[0], &x)
	st[0].Add(&st[0], &post[0])
	for i := 1; i < t; i++ {
		v := vals[w.k : w.k+3 : w.k+3]
		w.k += 3
		x.Add(&st[i], &pre[i])
		v[0].Square(&x)
		v[1].Square(&v[0])
		v[2].Mul(&v[1], &x)
		v[2].Add(&v[2], &post[i])
		st[i] = v[2]
	}
	w.mix()
}

// fullRound puts every element through an S-box, adding the round's
// constants when keys (every full round but the last), then mixes.
func (w *witness) fullRound(keys bool) {
	for i := range w.st {
		var p *fr.Element
		if keys {
			p = &w.c.Compressed[w.offset+i]
		}
		w.sbox(&w.st[i], p)
	}
	if keys {
		w.offset += len(w.st)
	}
	w.mix()
}

// mulMatrix sets s to s·m (row vector times m), using tmp.
func mulMatrix(s, tmp []fr.Element, m native.Matrix) {
	var p fr.Element
	for j := range tmp {
		tmp[j].SetZero()
		for i := range s {
			p.Mul(&m[i][j], &s[i])
			tmp[j].Add(&tmp[j], &p)
		}
	}
	copy(s, tmp)
}

// mulSparse sets s to s·M″.
func mulSparse(s []fr.Element, m *native.SparseMatrix) {
	var first, p fr.Element
	for i := range s {
		p.Mul(&m.WHat[i], &s[i])
		first.Add(&first, &p)
	}
	for j := 1; j < len(s); j++ {
		p.Mul(&m.VRest[j-1], &s[0])
		s[j].Add(&s[j], &p)
	}
	s[0] = first
}
