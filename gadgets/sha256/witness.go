package sha256

import (
	"math/bits"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-project/cuzk/gadgets/boolean"
	u32 "github.com/cuzk-project/cuzk/gadgets/uint32"
	"github.com/cuzk-project/cuzk/r1cs"
)

// The witness-only compression. Under an r1cs.AuxBatcher (a system that
// ignores constraints) Compression computes with uint32 masks what the
// generic gadget allocates bit by bit: the same aux values in the same
// order, the same number of rows, and the same returned bits (variables,
// values, kinds). Each boolean gadget allocates one variable with one row,
// so rows follow allocations; MultiEq's packed rows are counted as the
// generic MultiEq emits them.
//
// Constant folding is structural (it depends on which bits are constants,
// never on values), so masks reproduce it: xor folds per bit with masks;
// ch and maj take the word-wide path only when no operand bit is a
// constant, and otherwise call the generic boolean gadgets bit by bit on
// the same system (only the first rounds after a constant IV do).

// word is a u32.UInt32 as masks: the Boolean values, which bits are
// constants, which are negations of their variable (boolean.KindNot), and
// the variables of the non-constant bits.
type word struct {
	val, consts, nots uint32
	vars              [32]r1cs.Variable
}

// bit01 holds the aux values of a false and a true bit.
var bit01 = [2]fr.Element{{}, fr.One()}

func constWord(v uint32) word { return word{val: v, consts: ^uint32(0)} }

func wordOf(u *u32.UInt32) word {
	var w word
	for i := range u.Bits {
		w.setBit(i, u.Bits[i])
	}
	return w
}

// wordFromBitsBE reads 32 bits, most significant first (u32.FromBitsBE).
func wordFromBitsBE(b []boolean.Boolean) word {
	var w word
	for j := range 32 {
		w.setBit(31-j, b[j])
	}
	return w
}

func (w *word) setBit(i int, b boolean.Boolean) {
	m := uint32(1) << uint(i)
	if b.Value() {
		w.val |= m
	}
	switch b.Kind {
	case boolean.KindConstant:
		w.consts |= m
	case boolean.KindNot:
		w.nots |= m
		w.vars[i] = b.Bit.Var
	default:
		w.vars[i] = b.Bit.Var
	}
}

// bit is bit i as the Boolean the generic gadget holds.
func (w *word) bit(i int) boolean.Boolean {
	m := uint32(1) << uint(i)
	v := w.val&m != 0
	switch {
	case w.consts&m != 0:
		return boolean.Constant(v)
	case w.nots&m != 0:
		return boolean.IsNot(boolean.AllocatedBit{Var: w.vars[i], Value: !v})
	}
	return boolean.Is(boolean.AllocatedBit{Var: w.vars[i], Value: v})
}

func (w *word) toUInt32() u32.UInt32 {
	u := u32.UInt32{Value: w.val}
	for i := range u.Bits {
		u.Bits[i] = w.bit(i)
	}
	return u
}

func (w *word) rotr(by int) word {
	out := word{
		val:    bits.RotateLeft32(w.val, -by),
		consts: bits.RotateLeft32(w.consts, -by),
		nots:   bits.RotateLeft32(w.nots, -by),
	}
	copy(out.vars[:], w.vars[by:])
	copy(out.vars[32-by:], w.vars[:by])
	return out
}

// shr shifts in constant zeros.
func (w *word) shr(by int) word {
	out := word{val: w.val >> by, consts: w.consts>>by | ^(^uint32(0) >> by), nots: w.nots >> by}
	copy(out.vars[:], w.vars[by:])
	return out
}

// compressor is one compression's witness state: the system and the
// MultiEq batch (bits used by the pending packed row).
type compressor struct {
	cs       r1cs.AuxBatcher
	rows     int // rows not yet reported to cs
	bitsUsed int
}

// alloc allocates n bits, one row each.
func (c *compressor) alloc(n int) (r1cs.Variable, []fr.Element) {
	c.rows += n
	return c.cs.AllocAuxBatch(n)
}

// xor is u32.UInt32.Xor: a bit of two variables allocates their xor
// (negated when exactly one operand is negated); a constant operand folds
// (false: the other bit, true: its negation).
func (c *compressor) xor(a, b *word) word {
	both := ^a.consts & ^b.consts
	onlyA := ^a.consts & b.consts // a's bit, negated when b's constant is true
	onlyB := a.consts & ^b.consts
	out := word{
		val:    a.val ^ b.val,
		consts: a.consts & b.consts,
		nots:   both&(a.nots^b.nots) | onlyA&(a.nots^b.val) | onlyB&(b.nots^a.val),
	}
	vars := (a.val ^ a.nots) ^ (b.val ^ b.nots) // the allocated variables' values
	if both == ^uint32(0) {
		first, vals := c.alloc(32)
		for i := range 32 {
			vals[i] = bit01[vars>>uint(i)&1]
			out.vars[i] = first + r1cs.Variable(i)
		}
		return out
	}
	first, vals := c.alloc(bits.OnesCount32(both))
	k := 0
	for i := range 32 {
		m := uint32(1) << uint(i)
		switch {
		case both&m != 0:
			vals[k] = bit01[vars>>uint(i)&1]
			out.vars[i] = first + r1cs.Variable(k)
			k++
		case onlyA&m != 0:
			out.vars[i] = a.vars[i]
		case onlyB&m != 0:
			out.vars[i] = b.vars[i]
		}
	}
	return out
}

// ch is u32.Sha256Ch.
func (c *compressor) ch(a, b, d *word) word {
	val := a.val&b.val ^ ^a.val&d.val
	if a.consts|b.consts|d.consts != 0 {
		return c.perBit(a, b, d, boolean.Sha256Ch)
	}
	out := word{val: val}
	first, vals := c.alloc(32)
	for i := range 32 {
		vals[i] = bit01[val>>uint(i)&1]
		out.vars[i] = first + r1cs.Variable(i)
	}
	return out
}

// maj is u32.Sha256Maj: per bit, maj and then b ∧ c.
func (c *compressor) maj(a, b, d *word) word {
	val := a.val&b.val ^ a.val&d.val ^ b.val&d.val
	if a.consts|b.consts|d.consts != 0 {
		return c.perBit(a, b, d, boolean.Sha256Maj)
	}
	bd := b.val & d.val
	out := word{val: val}
	first, vals := c.alloc(64)
	for i := range 32 {
		vals[2*i] = bit01[val>>uint(i)&1]
		vals[2*i+1] = bit01[bd>>uint(i)&1]
		out.vars[i] = first + r1cs.Variable(2*i)
	}
	return out
}

// perBit runs a generic boolean gadget bit by bit on the system; its rows
// are counted there.
func (c *compressor) perBit(a, b, d *word, f func(r1cs.ConstraintSystem, boolean.Boolean, boolean.Boolean, boolean.Boolean) boolean.Boolean) word {
	var out word
	for i := range 32 {
		out.setBit(i, f(c.cs, a.bit(i), b.bit(i), d.bit(i)))
	}
	return out
}

// addMany is u32.AddMany: unless every operand bit is a constant, it
// allocates the sum's bits (carries included) and records one MultiEq
// equality of that width.
func (c *compressor) addMany(ops ...*word) word {
	var sum uint64
	allConstants := true
	for _, op := range ops {
		sum += uint64(op.val)
		allConstants = allConstants && op.consts == ^uint32(0)
	}
	if allConstants {
		return constWord(uint32(sum))
	}
	n := bits.Len64(uint64(len(ops)) * uint64(^uint32(0)))
	first, vals := c.alloc(n)
	for k := range vals {
		vals[k] = bit01[sum>>uint(k)&1]
	}
	out := word{val: uint32(sum)}
	for i := range out.vars {
		out.vars[i] = first + r1cs.Variable(i)
	}
	if boolean.FieldCapacity <= c.bitsUsed+n {
		c.rows++
		c.bitsUsed = 0
	}
	c.bitsUsed += n
	return out
}

// flush is MultiEq.Flush.
func (c *compressor) flush() {
	if c.bitsUsed > 0 {
		c.rows++
		c.bitsUsed = 0
	}
	c.cs.EnforceSkipped(c.rows)
	c.rows = 0
}

// deferred is maybe for words: the operands of a pending addition, or a
// word already computed.
type deferred struct {
	ops      [7]*word
	n        int
	concrete *word
}

// compute is maybe.compute with at most one more operand; a computed word
// is stored in dst. It consumes m.
func (c *compressor) compute(m *deferred, dst *word, other *word) *word {
	if m.concrete != nil {
		return m.concrete
	}
	var ops [8]*word
	n := m.n
	for i := range n {
		ops[i] = m.ops[i]
	}
	if other != nil {
		ops[n] = other
		n++
	}
	*dst = c.addMany(ops[:n]...)
	return dst
}

// compressionWitness is Compression on an AuxBatcher.
func compressionWitness(cs r1cs.AuxBatcher, input []boolean.Boolean, current []u32.UInt32) []u32.UInt32 {
	c := &compressor{cs: cs}
	var w [64]word
	for i := range 16 {
		w[i] = wordFromBitsBE(input[32*i : 32*i+32])
	}
	for i := 16; i < 64; i++ {
		x, y, z := w[i-15].rotr(7), w[i-15].rotr(18), w[i-15].shr(3)
		s0 := c.xor(&x, &y)
		s0 = c.xor(&s0, &z)
		x, y, z = w[i-2].rotr(17), w[i-2].rotr(19), w[i-2].shr(10)
		s1 := c.xor(&x, &y)
		s1 = c.xor(&s1, &z)
		w[i] = c.addMany(&w[i-16], &s0, &w[i-7], &s1)
	}

	var cur [8]word
	for i := range cur {
		cur[i] = wordOf(&current[i])
	}
	// Every word a round makes lives in these arrays, so the eight working
	// variables are pointers into them.
	var es, as, s1s, chs, s0s, majs, ks [64]word
	a := deferred{concrete: &cur[0]}
	b, cc, d := &cur[1], &cur[2], &cur[3]
	e := deferred{concrete: &cur[4]}
	f, g, h := &cur[5], &cur[6], &cur[7]
	for i := range 64 {
		newE := c.compute(&e, &es[i], nil)
		x, y, z := newE.rotr(6), newE.rotr(11), newE.rotr(25)
		s1 := c.xor(&x, &y)
		s1s[i] = c.xor(&s1, &z)
		chs[i] = c.ch(newE, f, g)
		ks[i] = constWord(RoundConstants[i])

		newA := c.compute(&a, &as[i], nil)
		x, y, z = newA.rotr(2), newA.rotr(13), newA.rotr(22)
		s0 := c.xor(&x, &y)
		s0s[i] = c.xor(&s0, &z)
		majs[i] = c.maj(newA, b, cc)

		// temp1 = h + s1 + ch + K[i] + w[i]; e = temp1 + d, a = temp1 + s0 + maj.
		e = deferred{ops: [7]*word{h, &s1s[i], &chs[i], &ks[i], &w[i], d}, n: 6}
		a = deferred{ops: [7]*word{h, &s1s[i], &chs[i], &ks[i], &w[i], &s0s[i], &majs[i]}, n: 7}
		h, g, f = g, f, newE
		d, cc, b = cc, b, newA
	}
	// The generic gadget adds the state back in output order.
	var sums [8]word
	out := [8]*word{c.compute(&a, &sums[0], &cur[0])}
	for i, x := range [3]*word{b, cc, d} {
		sums[i+1] = c.addMany(&cur[i+1], x)
		out[i+1] = &sums[i+1]
	}
	out[4] = c.compute(&e, &sums[4], &cur[4])
	for i, x := range [3]*word{f, g, h} {
		sums[i+5] = c.addMany(&cur[i+5], x)
		out[i+5] = &sums[i+5]
	}
	c.flush()
	res := make([]u32.UInt32, 8)
	for i, o := range out {
		res[i] = o.toUInt32()
	}
	return res
}
