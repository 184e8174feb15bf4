package num

import (
	"errors"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-project/cuzk/gadgets/boolean"
	"github.com/cuzk-project/cuzk/r1cs"
)

// ErrDivisionByZero is returned by AssertNonzero for a zero value.
var ErrDivisionByZero = errors.New("num: value is zero, no inverse")

var (
	one    = func() fr.Element { var e fr.Element; e.SetOne(); return e }()
	minus1 = func() fr.Element { var e fr.Element; e.SetOne(); e.Neg(&e); return e }()
)

func lc1(v r1cs.Variable) r1cs.LinearCombination {
	return r1cs.LinearCombination{{Var: v, Coeff: one}}
}

// AllocatedNum is one variable of the constraint system with its value.
type AllocatedNum struct {
	Var   r1cs.Variable
	Value fr.Element
}

// Alloc allocates an aux variable holding v (no constraint).
func Alloc(cs r1cs.ConstraintSystem, v fr.Element) AllocatedNum {
	return AllocatedNum{Var: cs.Alloc(v), Value: v}
}

// AllocInput allocates a public input holding v (no constraint).
func AllocInput(cs r1cs.ConstraintSystem, v fr.Element) AllocatedNum {
	return AllocatedNum{Var: cs.AllocInput(v), Value: v}
}

// AllocMaybeInput allocates an input when isInput, an aux variable otherwise.
func AllocMaybeInput(cs r1cs.ConstraintSystem, isInput bool, v fr.Element) AllocatedNum {
	if isInput {
		return AllocInput(cs, v)
	}
	return Alloc(cs, v)
}

// Inputize exposes n as a new public input: it allocates the input and
// enforces input · ONE = n. It returns the input's variable.
func (n AllocatedNum) Inputize(cs r1cs.ConstraintSystem) r1cs.Variable {
	in := cs.AllocInput(n.Value)
	cs.Enforce(lc1(in), lc1(r1cs.One), lc1(n.Var))
	return in
}

// LC is 1 · n.
func (n AllocatedNum) LC() r1cs.LinearCombination { return lc1(n.Var) }

// Add allocates a + b and enforces (a + b) · ONE = sum.
func (n AllocatedNum) Add(cs r1cs.ConstraintSystem, other AllocatedNum) AllocatedNum {
	var v fr.Element
	v.Add(&n.Value, &other.Value)
	sum := cs.Alloc(v)
	var a r1cs.LinearCombination
	a.Add(n.Var)
	a.Add(other.Var)
	cs.Enforce(a, lc1(r1cs.One), lc1(sum))
	return AllocatedNum{Var: sum, Value: v}
}

// Mul allocates a · b and enforces a · b = ab.
func (n AllocatedNum) Mul(cs r1cs.ConstraintSystem, other AllocatedNum) AllocatedNum {
	var v fr.Element
	v.Mul(&n.Value, &other.Value)
	ab := cs.Alloc(v)
	cs.Enforce(lc1(n.Var), lc1(other.Var), lc1(ab))
	return AllocatedNum{Var: ab, Value: v}
}

// Square allocates a² and enforces a · a = aa.
func (n AllocatedNum) Square(cs r1cs.ConstraintSystem) AllocatedNum {
	var v fr.Element
	v.Square(&n.Value)
	aa := cs.Alloc(v)
	cs.Enforce(lc1(n.Var), lc1(n.Var), lc1(aa))
	return AllocatedNum{Var: aa, Value: v}
}

// AssertNonzero allocates the inverse of n and enforces n · inv = ONE. A zero
// value returns ErrDivisionByZero before anything is allocated.
func (n AllocatedNum) AssertNonzero(cs r1cs.ConstraintSystem) error {
	if n.Value.IsZero() {
		return ErrDivisionByZero
	}
	var inv fr.Element
	inv.Inverse(&n.Value)
	iv := cs.Alloc(inv)
	cs.Enforce(lc1(n.Var), lc1(iv), lc1(r1cs.One))
	return nil
}

// packingConstraint enforces 0 · 0 = Σ 2^i·bits[i] − n.
func (n AllocatedNum) packingConstraint(cs r1cs.ConstraintSystem, bits []boolean.AllocatedBit) {
	if r1cs.SkipsConstraints(cs) {
		cs.Enforce(nil, nil, nil)
		return
	}
	lc := make(r1cs.LinearCombination, 0, len(bits)+1)
	coeff := one
	for _, b := range bits {
		lc.AddTerm(b.Var, &coeff)
		coeff.Double(&coeff)
	}
	lc.Sub(n.Var)
	cs.Enforce(nil, nil, lc)
}

// ToBitsLE allocates n's 255 bits, least significant first, and enforces
// that they pack to n. It does not check that the bits are below the
// modulus (use ToBitsLEStrict for that).
func (n AllocatedNum) ToBitsLE(cs r1cs.ConstraintSystem) []boolean.Boolean {
	bits := boolean.FieldIntoAllocatedBitsLE(cs, n.Value)
	n.packingConstraint(cs, bits)
	out := make([]boolean.Boolean, len(bits))
	for i, b := range bits {
		out[i] = boolean.Is(b)
	}
	return out
}

// modulusMinusOne is r − 1, little-endian limbs.
var modulusMinusOne = func() [4]uint64 { return minus1.Bits() }()

// ToBitsLEStrict allocates n's 255 bits and range-checks them against r − 1
// the way bellpepper does: walking r − 1 from its top bit, a bit under a one
// of r − 1 is a plain boolean and joins the current run; at the first zero
// after a run, the run (and the previous run's AND) are ANDed together; a bit
// under a zero of r − 1 must be 0 whenever that AND is 1. Bits are
// allocated most significant first; the result is least significant first.
func (n AllocatedNum) ToBitsLEStrict(cs r1cs.ConstraintSystem) []boolean.Boolean {
	a := n.Value.Bits()
	bit := func(limbs *[4]uint64, i int) bool { return limbs[i/64]>>(uint(i)%64)&1 == 1 }

	result := make([]boolean.AllocatedBit, 0, boolean.FieldBits)
	var current []boolean.AllocatedBit
	var lastRun boolean.AllocatedBit
	haveLast := false
	found := false
	for i := 255; i >= 0; i-- {
		rb := bit(&modulusMinusOne, i)
		found = found || rb
		if !found {
			continue // n < r, so n's bit here is 0 as well
		}
		ab := bit(&a, i)
		if rb {
			b := boolean.Alloc(cs, ab)
			current = append(current, b)
			result = append(result, b)
			continue
		}
		if len(current) > 0 {
			if haveLast {
				current = append(current, lastRun)
			}
			lastRun = karyAnd(cs, current)
			haveLast = true
			current = current[:0]
		}
		result = append(result, boolean.AllocConditionally(cs, ab, lastRun))
	}
	// result is most significant first; pack and return least significant first.
	le := make([]boolean.AllocatedBit, len(result))
	for i, b := range result {
		le[len(result)-1-i] = b
	}
	n.packingConstraint(cs, le)
	out := make([]boolean.Boolean, len(le))
	for i, b := range le {
		out[i] = boolean.Is(b)
	}
	return out
}

// karyAnd folds v with AND from the left; a single bit is returned as is.
func karyAnd(cs r1cs.ConstraintSystem, v []boolean.AllocatedBit) boolean.AllocatedBit {
	cur := v[0]
	for _, b := range v[1:] {
		cur = boolean.AndBits(cs, cur, b)
	}
	return cur
}

// ConditionallyReverse returns (b, a) when cond is true and (a, b)
// otherwise: it allocates c, enforces (a − b) · cond = a − c, then allocates
// d and enforces (b − a) · cond = b − d.
func ConditionallyReverse(cs r1cs.ConstraintSystem, a, b AllocatedNum, cond boolean.Boolean) (AllocatedNum, AllocatedNum) {
	swap := cond.Value()
	cv, dv := a.Value, b.Value
	if swap {
		cv, dv = b.Value, a.Value
	}
	condLC := cond.LCOne()

	c := Alloc(cs, cv)
	var la, lc r1cs.LinearCombination
	la.Add(a.Var)
	la.Sub(b.Var)
	lc.Add(a.Var)
	lc.Sub(c.Var)
	cs.Enforce(la, condLC, lc)

	d := Alloc(cs, dv)
	var lb, ld r1cs.LinearCombination
	lb.Add(b.Var)
	lb.Sub(a.Var)
	ld.Add(b.Var)
	ld.Sub(d.Var)
	cs.Enforce(lb, condLC.Clone(), ld)
	return c, d
}

// Equal enforces a · ONE = b (storage-proofs-core constraint::equal).
func Equal(cs r1cs.ConstraintSystem, a, b AllocatedNum) {
	cs.Enforce(lc1(a.Var), lc1(r1cs.One), lc1(b.Var))
}

// EnforceSum enforces (a + b) · ONE = sum (constraint::sum).
func EnforceSum(cs r1cs.ConstraintSystem, a, b, sum AllocatedNum) {
	var la r1cs.LinearCombination
	la.Add(a.Var)
	la.Add(b.Var)
	cs.Enforce(la, lc1(r1cs.One), lc1(sum.Var))
}

// Sub allocates a − b and enforces (diff + b) · ONE = a
// (storage-proofs-core constraint::sub / difference).
func Sub(cs r1cs.ConstraintSystem, a, b AllocatedNum) AllocatedNum {
	var v fr.Element
	v.Sub(&a.Value, &b.Value)
	d := Alloc(cs, v)
	var la r1cs.LinearCombination
	la.Add(d.Var)
	la.Add(b.Var)
	cs.Enforce(la, lc1(r1cs.One), lc1(a.Var))
	return d
}

// PackBits packs the first 254 (CAPACITY) bits, least significant first,
// into one new aux variable: Σ 2^i·bits[i] · ONE = packed (bellpepper
// multipack::pack_bits).
func PackBits(cs r1cs.ConstraintSystem, bits []boolean.Boolean) AllocatedNum {
	if len(bits) > boolean.FieldCapacity {
		bits = bits[:boolean.FieldCapacity]
	}
	if r1cs.SkipsConstraints(cs) {
		packed := Alloc(cs, ValueFromBits(bits))
		cs.Enforce(nil, nil, nil)
		return packed
	}
	num := NumFromBits(bits)
	packed := Alloc(cs, num.Value)
	cs.Enforce(num.LC, lc1(r1cs.One), lc1(packed.Var))
	return packed
}
