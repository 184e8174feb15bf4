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
	st, tmp := sbuf[:], tbuf[:]
	if t > witnessBuf {
		st, tmp = make([]fr.Element, t), make([]fr.Element, t)
	}
	st, tmp = st[:t], tmp[:t]
	st[0] = c.Tag
	for i, x := range preimage {
		st[i+1] = x.Value
	}
	k, offset, round := 0, 0, 0
	mix := func() {
		switch r := round; {
		case r == half-1:
			mulMatrix(st, tmp, c.PreSparse)
		case r >= half && r < half+c.PartialRounds:
			mulSparse(st, &c.Sparse[r-half])
		default:
			mulMatrix(st, tmp, c.MDS)
		}
		round++
	}
	// sbox writes x, x², x⁴ and x⁵ (+ post) and leaves the last in *x.
	sbox := func(x *fr.Element, post *fr.Element) {
		v := vals[k : k+4 : k+4]
		k += 4
		v[0] = *x
		v[1].Square(x)
		v[2].Square(&v[1])
		v[3].Mul(&v[2], x)
		if post != nil {
			v[3].Add(&v[3], post)
		}
		*x = v[3]
	}

	// First round: constants before and after the S-boxes; the tag's S-box
	// is native.
	pre, post := c.Compressed[:t], c.Compressed[t:2*t]
	offset = 2 * t
	var x fr.Element
	st[0].Add(&st[0], &pre[0])
	x.Square(&st[0])
	x.Square(&x)
	st[0].Mul(&st[0], &x)
	st[0].Add(&st[0], &post[0])
	for i := 1; i < t; i++ {
		v := vals[k : k+3 : k+3]
		k += 3
		x.Add(&st[i], &pre[i])
		v[0].Square(&x)
		v[1].Square(&v[0])
		v[2].Mul(&v[1], &x)
		v[2].Add(&v[2], &post[i])
		st[i] = v[2]
	}
	mix()
	full := func(keys bool) {
		for i := range t {
			var p *fr.Element
			if keys {
				p = &c.Compressed[offset+i]
			}
			sbox(&st[i], p)
		}
		if keys {
			offset += t
		}
		mix()
	}
	for range half - 1 {
		full(true)
	}
	for range c.PartialRounds {
		sbox(&st[0], &c.Compressed[offset])
		offset++
		mix()
	}
	for range half - 1 {
		full(true)
	}
	full(false)
	vals[k] = st[1]
	cs.EnforceSkipped(n)
	return num.AllocatedNum{Var: first + r1cs.Variable(n-1), Value: st[1]}
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
