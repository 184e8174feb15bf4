package boolean

import (
	"errors"
	"fmt"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-project/cuzk/r1cs"
)

// ErrUnsatisfiable is returned when a gadget is asked to enforce something
// that is false between constants (bellpepper's SynthesisError::Unsatisfiable).
var ErrUnsatisfiable = errors.New("boolean: constraint unsatisfiable between constants")

// Kind says what a Boolean is.
type Kind uint8

const (
	// KindConstant is a constant; no variable.
	KindConstant Kind = iota
	// KindIs is an allocated bit.
	KindIs
	// KindNot is the negation of an allocated bit (1 − bit).
	KindNot
)

// Boolean is bellpepper's Boolean: an allocated bit (Is), its negation
// (Not) or a constant. The zero value is Constant(false).
type Boolean struct {
	Bit   AllocatedBit // meaningful for KindIs and KindNot
	Kind  Kind
	Const bool // meaningful for KindConstant
}

// Constant returns the constant b.
func Constant(b bool) Boolean { return Boolean{Kind: KindConstant, Const: b} }

// Is wraps an allocated bit.
func Is(bit AllocatedBit) Boolean { return Boolean{Kind: KindIs, Bit: bit} }

// IsNot is the negation of an allocated bit.
func IsNot(bit AllocatedBit) Boolean { return Boolean{Kind: KindNot, Bit: bit} }

// AllocBoolean allocates a bit (with its booleanity constraint) as a Boolean.
func AllocBoolean(cs r1cs.ConstraintSystem, value bool) Boolean { return Is(Alloc(cs, value)) }

// IsConstant reports whether b is a constant.
func (b Boolean) IsConstant() bool { return b.Kind == KindConstant }

// Value is b's value.
func (b Boolean) Value() bool {
	switch b.Kind {
	case KindIs:
		return b.Bit.Value
	case KindNot:
		return !b.Bit.Value
	}
	return b.Const
}

// Not negates b without touching the constraint system.
func (b Boolean) Not() Boolean {
	switch b.Kind {
	case KindIs:
		b.Kind = KindNot
	case KindNot:
		b.Kind = KindIs
	default:
		b.Const = !b.Const
	}
	return b
}

func (b Boolean) String() string {
	switch b.Kind {
	case KindIs:
		return fmt.Sprintf("Is(%v=%v)", b.Bit.Var, b.Bit.Value)
	case KindNot:
		return fmt.Sprintf("Not(%v=%v)", b.Bit.Var, b.Bit.Value)
	}
	return fmt.Sprintf("Constant(%v)", b.Const)
}

// AddTo adds coeff · b to lc, as bellpepper's `lc + &b.lc(ONE, coeff)`:
// a true constant adds coeff·ONE, a false one nothing, Is adds coeff·bit and
// Not adds coeff·ONE − coeff·bit.
func (b Boolean) AddTo(lc *r1cs.LinearCombination, coeff *fr.Element) {
	switch b.Kind {
	case KindConstant:
		if b.Const {
			lc.AddTerm(r1cs.One, coeff)
		}
	case KindIs:
		lc.AddTerm(b.Bit.Var, coeff)
	case KindNot:
		var neg fr.Element
		neg.Neg(coeff)
		lc.AddTerm(r1cs.One, coeff)
		lc.AddTerm(b.Bit.Var, &neg)
	}
}

// LC is coeff · b as a fresh linear combination.
func (b Boolean) LC(coeff fr.Element) r1cs.LinearCombination {
	var lc r1cs.LinearCombination
	b.AddTo(&lc, &coeff)
	return lc
}

// LCOne is 1 · b.
func (b Boolean) LCOne() r1cs.LinearCombination { return b.LC(one) }

// Xor returns a ⊕ b, folding constants and negations as bellpepper does;
// at most one xor constraint is added.
func Xor(cs r1cs.ConstraintSystem, a, b Boolean) Boolean {
	switch {
	case a.Kind == KindConstant && !a.Const:
		return b
	case b.Kind == KindConstant && !b.Const:
		return a
	case a.Kind == KindConstant: // true
		return b.Not()
	case b.Kind == KindConstant: // true
		return a.Not()
	case a.Kind == KindIs && b.Kind == KindNot:
		return Is(XorBits(cs, a.Bit, b.Bit)).Not()
	case a.Kind == KindNot && b.Kind == KindIs:
		return Is(XorBits(cs, b.Bit, a.Bit)).Not()
	default: // Is,Is or Not,Not
		return Is(XorBits(cs, a.Bit, b.Bit))
	}
}

// And returns a ∧ b, folding constants; Is∧Not uses and_not, Not∧Not nor.
func And(cs r1cs.ConstraintSystem, a, b Boolean) Boolean {
	switch {
	case a.Kind == KindConstant && !a.Const, b.Kind == KindConstant && !b.Const:
		return Constant(false)
	case a.Kind == KindConstant: // true
		return b
	case b.Kind == KindConstant: // true
		return a
	case a.Kind == KindIs && b.Kind == KindNot:
		return Is(AndNotBits(cs, a.Bit, b.Bit))
	case a.Kind == KindNot && b.Kind == KindIs:
		return Is(AndNotBits(cs, b.Bit, a.Bit))
	case a.Kind == KindNot: // Not,Not
		return Is(NorBits(cs, a.Bit, b.Bit))
	default: // Is,Is
		return Is(AndBits(cs, a.Bit, b.Bit))
	}
}

// Or returns a ∨ b as ¬(¬a ∧ ¬b).
func Or(cs r1cs.ConstraintSystem, a, b Boolean) Boolean {
	return And(cs, a.Not(), b.Not()).Not()
}

func isConstFalse(b Boolean) bool { return b.Kind == KindConstant && !b.Const }
func isConstTrue(b Boolean) bool  { return b.Kind == KindConstant && b.Const }

// Sha256Ch returns (a ∧ b) ⊕ (¬a ∧ c) with bellpepper's case analysis;
// in general one variable and the constraint (b − c) · a = ch − c.
func Sha256Ch(cs r1cs.ConstraintSystem, a, b, c Boolean) Boolean {
	av, bv, cv := a.Value(), b.Value(), c.Value()
	val := (av && bv) != (!av && cv)
	switch {
	case a.IsConstant() && b.IsConstant() && c.IsConstant():
		return Constant(val)
	case isConstFalse(a):
		return c
	case isConstFalse(b):
		return And(cs, a.Not(), c)
	case isConstFalse(c):
		return And(cs, a, b)
	case isConstTrue(c):
		return And(cs, a, b.Not()).Not()
	case isConstTrue(b):
		return And(cs, a.Not(), c.Not()).Not()
	}
	ch := cs.Alloc(field(val))
	if r1cs.SkipsConstraints(cs) {
		cs.Enforce(nil, nil, nil)
		return Is(AllocatedBit{Var: ch, Value: val})
	}
	t := terms(cs, 9)
	la, lb, lc := carve(t, 0, 4), carve(t, 4, 6), carve(t, 6, 9)
	b.AddTo(&la, &one)
	c.AddTo(&la, &minus1)
	a.AddTo(&lb, &one)
	lc.Add(ch)
	c.AddTo(&lc, &minus1)
	cs.Enforce(la, lb, lc)
	return Is(AllocatedBit{Var: ch, Value: val})
}

// Sha256Maj returns (a ∧ b) ⊕ (a ∧ c) ⊕ (b ∧ c) with bellpepper's case
// analysis; in general it allocates maj, then bc = b ∧ c, and enforces
// (2·bc − b − c) · a = bc − maj.
func Sha256Maj(cs r1cs.ConstraintSystem, a, b, c Boolean) Boolean {
	av, bv, cv := a.Value(), b.Value(), c.Value()
	val := (av && bv) != (av && cv) != (bv && cv)
	switch {
	case a.IsConstant() && b.IsConstant() && c.IsConstant():
		return Constant(val)
	case isConstFalse(a):
		return And(cs, b, c)
	case isConstFalse(b):
		return And(cs, a, c)
	case isConstFalse(c):
		return And(cs, a, b)
	case isConstTrue(c):
		return And(cs, a.Not(), b.Not()).Not()
	case isConstTrue(b):
		return And(cs, a.Not(), c.Not()).Not()
	case isConstTrue(a):
		return And(cs, b.Not(), c.Not()).Not()
	}
	maj := cs.Alloc(field(val))
	bc := And(cs, b, c)
	if r1cs.SkipsConstraints(cs) {
		cs.Enforce(nil, nil, nil)
		return Is(AllocatedBit{Var: maj, Value: val})
	}
	var two fr.Element
	two.Double(&one)
	t := terms(cs, 11)
	la, lb, lc := carve(t, 0, 6), carve(t, 6, 8), carve(t, 8, 11)
	bc.AddTo(&la, &two)
	b.AddTo(&la, &minus1)
	c.AddTo(&la, &minus1)
	a.AddTo(&lb, &one)
	bc.AddTo(&lc, &one)
	lc.Sub(maj)
	cs.Enforce(la, lb, lc)
	return Is(AllocatedBit{Var: maj, Value: val})
}

// EnforceEqual enforces a = b with one constraint 0 · 0 = (a − b) (or the
// constant-folded forms bellpepper uses). Two unequal constants return
// ErrUnsatisfiable; two equal constants add nothing.
func EnforceEqual(cs r1cs.ConstraintSystem, a, b Boolean) error {
	switch {
	case a.IsConstant() && b.IsConstant():
		if a.Const != b.Const {
			return fmt.Errorf("enforce_equal(%v, %v): %w", a.Const, b.Const, ErrUnsatisfiable)
		}
		return nil
	case isConstTrue(a), isConstTrue(b):
		x := a
		if isConstTrue(a) {
			x = b
		}
		var lc r1cs.LinearCombination
		lc.Add(r1cs.One)
		x.AddTo(&lc, &minus1)
		cs.Enforce(nil, nil, lc)
	case isConstFalse(a), isConstFalse(b):
		x := a
		if isConstFalse(a) {
			x = b
		}
		cs.Enforce(nil, nil, x.LCOne())
	default:
		var lc r1cs.LinearCombination
		a.AddTo(&lc, &one)
		b.AddTo(&lc, &minus1)
		cs.Enforce(nil, nil, lc)
	}
	return nil
}

// carve returns an empty combination over t[from:to], with no room beyond
// to, so appends past it reallocate instead of overwriting a neighbour.
func carve(t []r1cs.Term, from, to int) r1cs.LinearCombination {
	return r1cs.LinearCombination(t[from:from:to])
}
