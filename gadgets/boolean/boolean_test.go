package boolean_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-project/cuzk/gadgets/boolean"
	"github.com/cuzk-project/cuzk/gadgets/internal/gadgettest"
	"github.com/cuzk-project/cuzk/r1cs"
)

// all six kinds of Boolean: constant, allocated, negated, each false and true.
type kindSpec struct {
	kind boolean.Kind
	val  bool
}

var kinds = []kindSpec{
	{boolean.KindConstant, false}, {boolean.KindConstant, true},
	{boolean.KindIs, false}, {boolean.KindIs, true},
	{boolean.KindNot, false}, {boolean.KindNot, true},
}

func (k kindSpec) String() string {
	return fmt.Sprintf("%v/%v", []string{"const", "is", "not"}[k.kind], k.val)
}

func (k kindSpec) make(cs r1cs.ConstraintSystem) boolean.Boolean {
	switch k.kind {
	case boolean.KindIs:
		return boolean.Is(boolean.Alloc(cs, k.val))
	case boolean.KindNot:
		return boolean.IsNot(boolean.Alloc(cs, !k.val))
	}
	return boolean.Constant(k.val)
}

func lcString(lc r1cs.LinearCombination) string {
	s := ""
	for _, t := range lc {
		s += fmt.Sprintf("%s·%v ", t.Coeff.String(), t.Var)
	}
	return s
}

func TestAllocShape(t *testing.T) {
	r := gadgettest.NewRecorder()
	b := boolean.Alloc(r, true)
	if len(r.Constraints) != 1 {
		t.Fatalf("alloc: %d constraints, want 1", len(r.Constraints))
	}
	c := r.Constraints[0]
	// (1 − a) · a = 0, exactly as bellpepper writes it.
	var negOne fr.Element
	negOne.SetOne()
	negOne.Neg(&negOne)
	wantA := r1cs.LinearCombination{{Var: r1cs.One, Coeff: gadgettest.Fr(1)}, {Var: b.Var, Coeff: negOne}}
	if lcString(c.A) != lcString(wantA) {
		t.Fatalf("A = %s, want %s", lcString(c.A), lcString(wantA))
	}
	if len(c.B) != 1 || c.B[0].Var != b.Var || !c.B[0].Coeff.IsOne() || len(c.C) != 0 {
		t.Fatalf("B = %s C = %s, want a and empty", lcString(c.B), lcString(c.C))
	}
	if r.Unsatisfied() != -1 {
		t.Fatal("alloc(true) unsatisfied")
	}
	r.Set(b.Var, gadgettest.Fr(2))
	if r.Unsatisfied() != 0 {
		t.Fatal("a = 2 satisfies the booleanity constraint")
	}
}

func TestAllocConditionally(t *testing.T) {
	for _, tc := range []struct {
		must, val, ok bool
	}{{false, false, true}, {false, true, true}, {true, false, true}, {true, true, false}} {
		r := gadgettest.NewRecorder()
		m := boolean.Alloc(r, tc.must)
		boolean.AllocConditionally(r, tc.val, m)
		if got := r.Unsatisfied() == -1; got != tc.ok {
			t.Errorf("must_be_false=%v value=%v: satisfied=%v, want %v", tc.must, tc.val, got, tc.ok)
		}
	}
}

// binary operations against their native twins, with the constraint counts
// bellpepper gets for each kind combination.
func TestBinaryOps(t *testing.T) {
	ops := []struct {
		name   string
		gadget func(r1cs.ConstraintSystem, boolean.Boolean, boolean.Boolean) boolean.Boolean
		native func(a, b bool) bool
	}{
		{"xor", boolean.Xor, func(a, b bool) bool { return a != b }},
		{"and", boolean.And, func(a, b bool) bool { return a && b }},
		{"or", boolean.Or, func(a, b bool) bool { return a || b }},
	}
	for _, op := range ops {
		for _, ka := range kinds {
			for _, kb := range kinds {
				t.Run(fmt.Sprintf("%s(%v,%v)", op.name, ka, kb), func(t *testing.T) {
					r := gadgettest.NewRecorder()
					a, b := ka.make(r), kb.make(r)
					before := len(r.Constraints)
					out := op.gadget(r, a, b)
					if out.Value() != op.native(ka.val, kb.val) {
						t.Fatalf("value %v, want %v", out.Value(), op.native(ka.val, kb.val))
					}
					wantRows := 1
					if a.IsConstant() || b.IsConstant() {
						wantRows = 0
					}
					if got := len(r.Constraints) - before; got != wantRows {
						t.Fatalf("%d constraints, want %d", got, wantRows)
					}
					if r.Unsatisfied() != -1 {
						t.Fatal("unsatisfied")
					}
					if wantRows == 1 {
						r.Flip(out.Bit.Var)
						if r.Unsatisfied() == -1 {
							t.Fatal("flipped output still satisfies")
						}
					}
				})
			}
		}
	}
}

func TestChMaj(t *testing.T) {
	for _, ka := range kinds {
		for _, kb := range kinds {
			for _, kc := range kinds {
				a0, b0, c0 := ka.val, kb.val, kc.val
				wantCh := (a0 && b0) != (!a0 && c0)
				wantMaj := (a0 && b0) != (a0 && c0) != (b0 && c0)
				for _, op := range []struct {
					name string
					f    func(r1cs.ConstraintSystem, boolean.Boolean, boolean.Boolean, boolean.Boolean) boolean.Boolean
					want bool
				}{{"ch", boolean.Sha256Ch, wantCh}, {"maj", boolean.Sha256Maj, wantMaj}} {
					r := gadgettest.NewRecorder()
					a, b, c := ka.make(r), kb.make(r), kc.make(r)
					before := len(r.Constraints)
					out := op.f(r, a, b, c)
					if out.Value() != op.want {
						t.Fatalf("%s(%v,%v,%v) = %v, want %v", op.name, ka, kb, kc, out.Value(), op.want)
					}
					if r.Unsatisfied() != -1 {
						t.Fatalf("%s(%v,%v,%v) unsatisfied", op.name, ka, kb, kc)
					}
					rows := len(r.Constraints) - before
					if rows > 0 && !out.IsConstant() && out.Bit.Var.Index() >= 3-countConst(ka, kb, kc) {
						r.Flip(out.Bit.Var)
						if r.Unsatisfied() == -1 {
							t.Fatalf("%s(%v,%v,%v): flipped output still satisfies", op.name, ka, kb, kc)
						}
					}
					// General case costs: ch 1, maj 2 (the b∧c and the maj row).
					allAlloc := !a.IsConstant() && !b.IsConstant() && !c.IsConstant()
					if allAlloc {
						want := map[string]int{"ch": 1, "maj": 2}[op.name]
						if rows != want {
							t.Fatalf("%s(%v,%v,%v): %d rows, want %d", op.name, ka, kb, kc, rows, want)
						}
					}
				}
			}
		}
	}
}

func countConst(ks ...kindSpec) int {
	n := 0
	for _, k := range ks {
		if k.kind == boolean.KindConstant {
			n++
		}
	}
	return n
}

// maj allocates its output before b ∧ c (bellpepper's order).
func TestMajAllocationOrder(t *testing.T) {
	r := gadgettest.NewRecorder()
	a, b, c := boolean.AllocBoolean(r, true), boolean.AllocBoolean(r, true), boolean.AllocBoolean(r, false)
	out := boolean.Sha256Maj(r, a, b, c)
	if out.Bit.Var != r1cs.AuxVariable(3) {
		t.Fatalf("maj is %v, want aux[3] (allocated before b∧c)", out.Bit.Var)
	}
	if len(r.Aux) != 5 {
		t.Fatalf("%d aux, want 5", len(r.Aux))
	}
}

func TestEnforceEqual(t *testing.T) {
	for _, ka := range kinds {
		for _, kb := range kinds {
			r := gadgettest.NewRecorder()
			a, b := ka.make(r), kb.make(r)
			err := boolean.EnforceEqual(r, a, b)
			equal := ka.val == kb.val
			if a.IsConstant() && b.IsConstant() {
				if equal != (err == nil) || (err != nil && !errors.Is(err, boolean.ErrUnsatisfiable)) {
					t.Fatalf("(%v,%v): err %v", ka, kb, err)
				}
				continue
			}
			if err != nil {
				t.Fatalf("(%v,%v): %v", ka, kb, err)
			}
			if got := r.Unsatisfied() == -1; got != equal {
				t.Fatalf("(%v,%v): satisfied=%v, want %v", ka, kb, got, equal)
			}
		}
	}
}

func TestDecompositions(t *testing.T) {
	r := gadgettest.NewRecorder()
	const v = uint64(0x8000_0000_dead_beef)
	bits := boolean.U64IntoBooleanVecLE(r, v)
	for i, b := range bits {
		if b.Value() != (v>>i&1 == 1) {
			t.Fatalf("u64 bit %d", i)
		}
	}
	data := []byte{0x01, 0x80, 0xa5}
	le := boolean.BytesIntoBooleanVec(r, data)
	be := boolean.BytesIntoBooleanVecBE(r, data)
	for i := range le {
		if le[i].Value() != (data[i/8]>>(i%8)&1 == 1) || be[i].Value() != (data[i/8]>>(7-i%8)&1 == 1) {
			t.Fatalf("byte bit %d", i)
		}
	}
	rev := boolean.ReverseBitNumbering(le)
	for i := range rev {
		if rev[i].Value() != be[i].Value() {
			t.Fatalf("reverse_bit_numbering bit %d", i)
		}
	}
	if got := len(boolean.ReverseBitNumbering(make([]boolean.Boolean, 254))); got != 256 {
		t.Fatalf("reverse_bit_numbering pads to %d, want 256", got)
	}
	var x fr.Element
	x.SetString("52435875175126190479447740508185965837690552500527637822603658699938581184512") // r − 1
	fb := boolean.FieldIntoBooleanVecLE(r, x)
	xb := x.Bits()
	for i, b := range fb {
		if b.Value() != (xb[i/64]>>(i%64)&1 == 1) {
			t.Fatalf("field bit %d", i)
		}
	}
	if len(fb) != 255 {
		t.Fatalf("%d field bits, want 255", len(fb))
	}
	if want := 64 + 48 + 255; len(r.Constraints) != want || r.Unsatisfied() != -1 {
		t.Fatalf("%d constraints (want %d), unsatisfied row %d", len(r.Constraints), want, r.Unsatisfied())
	}
}
