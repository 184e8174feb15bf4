package shape

import (
	"errors"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-project/cuzk/r1cs"
)

// units writes an input and n units of two aux and one row each.
func units(cs r1cs.ConstraintSystem, n int) {
	var v fr.Element
	x := cs.AllocInput(v)
	for range n {
		a, b := cs.Alloc(v), cs.Alloc(v)
		cs.Enforce(r1cs.LC(r1cs.Term{Var: a}), r1cs.LC(r1cs.Term{Var: b}), r1cs.LC(r1cs.Term{Var: x}))
	}
}

func TestExtrapolate(t *testing.T) {
	count := func(n int) r1cs.Shape {
		s, err := Count(func(cs r1cs.ConstraintSystem) error { units(cs, n); return nil })
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	base, first := count(0), count(1)
	for _, n := range []int{0, 1, 7, 1000} {
		if got, want := Extrapolate(base, first, n), count(n); got != want {
			t.Errorf("n = %d: Extrapolate %+v, count %+v", n, got, want)
		}
	}
}

// config is a circuit of n units; a negative n is invalid.
type config int

func (c config) Validate() error {
	if c < 0 {
		return errors.New("negative")
	}
	return nil
}

func TestUnits(t *testing.T) {
	for _, n := range []int{0, 1, 7} {
		got, err := Units(func(cs r1cs.ConstraintSystem, k int) error { units(cs, k); return nil }, n)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := Count(func(cs r1cs.ConstraintSystem) error { units(cs, n); return nil })
		if got != want {
			t.Errorf("n = %d: Units %+v, count %+v", n, got, want)
		}
	}
	bad := errors.New("bad")
	if _, err := Units(func(r1cs.ConstraintSystem, int) error { return bad }, 3); !errors.Is(err, bad) {
		t.Errorf("err = %v, want the synthesis error", err)
	}
}

func TestMemo(t *testing.T) {
	var m Memo[config]
	calls := 0
	count := func(c config) (r1cs.Shape, error) {
		calls++
		if c == 5 {
			return r1cs.Shape{}, errors.New("count failed")
		}
		return Count(func(cs r1cs.ConstraintSystem) error { units(cs, int(c)); return nil })
	}
	for range 2 {
		s, err := m.Shape(3, count)
		if err != nil {
			t.Fatal(err)
		}
		// ONE + 1 input, 6 aux, 3 rows + 2 input rows.
		if want := (r1cs.Shape{Inputs: 2, Aux: 6, Constraints: 5}); s != want {
			t.Fatalf("Shape = %+v, want %+v", s, want)
		}
	}
	if calls != 1 {
		t.Fatalf("%d counts for one configuration", calls)
	}
	if _, err := m.Shape(-1, count); err == nil || calls != 1 {
		t.Fatalf("invalid configuration: err %v, %d counts", err, calls)
	}
	for range 2 {
		if _, err := m.Shape(5, count); err == nil {
			t.Fatal("failed count succeeded")
		}
	}
	if calls != 3 {
		t.Fatalf("%d counts, want 3 (a failure is not cached)", calls)
	}
}
