package cpu

import (
	"bytes"
	"context"
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-project/cuzk/groth16"
	"github.com/cuzk-project/cuzk/r1cs"
)

// circuitFunc adapts a function to r1cs.Circuit.
type circuitFunc func(cs r1cs.ConstraintSystem) error

func (f circuitFunc) Synthesize(cs r1cs.ConstraintSystem) error { return f(cs) }

func fe(v uint64) fr.Element { var e fr.Element; e.SetUint64(v); return e }

func lcOf(vs ...r1cs.Variable) r1cs.LinearCombination {
	var lc r1cs.LinearCombination
	for _, v := range vs {
		lc.Add(v)
	}
	return lc
}

// TestProveVerifyDegenerateShapes runs setup → prove on this device →
// verify for the smallest and most lopsided systems: no circuit rows, no
// aux, no public inputs, one row, empty or full B density, an aux variable
// only in C, A without aux. Each proof must verify, and (where there is a
// public input) fail with a changed input.
func TestProveVerifyDegenerateShapes(t *testing.T) {
	cases := []struct {
		name string
		c    circuitFunc
	}{
		{"nothing: ONE's input row only", func(cs r1cs.ConstraintSystem) error { return nil }},
		{"inputs, no rows, no aux", func(cs r1cs.ConstraintSystem) error {
			cs.AllocInput(fe(5))
			cs.AllocInput(fe(0))
			cs.AllocInput(fe(1))
			return nil
		}},
		{"one row over ONE, no aux", func(cs r1cs.ConstraintSystem) error {
			cs.Enforce(lcOf(r1cs.One), lcOf(r1cs.One), lcOf(r1cs.One))
			return nil
		}},
		{"input squared, no aux", func(cs r1cs.ConstraintSystem) error {
			x := cs.AllocInput(fe(3))
			y := cs.AllocInput(fe(9))
			cs.Enforce(lcOf(x), lcOf(x), lcOf(y))
			return nil
		}},
		{"single aux row, no inputs", func(cs r1cs.ConstraintSystem) error {
			x := cs.Alloc(fe(1))
			cs.Enforce(lcOf(x), lcOf(x), lcOf(x))
			return nil
		}},
		{"aux only in C, B empty", func(cs r1cs.ConstraintSystem) error {
			y := cs.Alloc(fe(7))
			x := cs.Alloc(fe(0))
			cs.Enforce(lcOf(y), nil, lcOf(x)) // y·0 = x
			return nil
		}},
		{"aux only in C, B = ONE", func(cs r1cs.ConstraintSystem) error {
			in := cs.AllocInput(fe(11))
			x := cs.Alloc(fe(11))
			cs.Enforce(lcOf(in), lcOf(r1cs.One), lcOf(x))
			return nil
		}},
		{"A without aux", func(cs r1cs.ConstraintSystem) error {
			in := cs.AllocInput(fe(4))
			x := cs.Alloc(fe(2))
			z := cs.Alloc(fe(8))
			cs.Enforce(lcOf(in), lcOf(x), lcOf(z))
			return nil
		}},
		{"B full, A empty over aux", func(cs r1cs.ConstraintSystem) error {
			xs := []r1cs.Variable{cs.Alloc(fe(0)), cs.Alloc(fe(1)), cs.Alloc(fe(6))}
			for _, x := range xs {
				cs.Enforce(lcOf(r1cs.One), lcOf(x), lcOf(x))
			}
			return nil
		}},
		{"rows = power of two + 1", func(cs r1cs.ConstraintSystem) error {
			// 15 squarings + ONE's and the input's input rows = 17 rows.
			x, v := cs.AllocInput(fe(2)), fe(2)
			for i := 0; i < 15; i++ {
				var sq fr.Element
				sq.Square(&v)
				y := cs.Alloc(sq)
				cs.Enforce(lcOf(x), lcOf(x), lcOf(y))
				x, v = y, sq
			}
			return nil
		}},
	}
	d := New(2)
	ctx := context.Background()
	rnd := rand.NewChaCha8([32]byte{9})
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, err := groth16.Setup(c.c, []byte("edge "+c.name))
			if err != nil {
				t.Fatalf("Setup: %v", err)
			}
			// Empty vectors (h at m = 1, l without aux, b without density)
			// survive a checked write → read → write.
			enc, err := p.MarshalBinary()
			if err != nil {
				t.Fatal(err)
			}
			if p, err = groth16.DecodeParams(enc, groth16.ReadOptions{Checked: true}); err != nil {
				t.Fatalf("DecodeParams: %v", err)
			}
			if again, err := p.MarshalBinary(); err != nil || !bytes.Equal(again, enc) {
				t.Fatalf("params do not round-trip (err %v)", err)
			}
			var cnt r1cs.Counter
			if err := r1cs.Synthesize(&cnt, c.c); err != nil {
				t.Fatal(err)
			}
			if err := p.CheckShape(groth16.ShapeOfCounter(&cnt)); err != nil {
				t.Fatalf("counted shape: %v", err)
			}
			pvk, err := groth16.PrepareVerifyingKey(&p.VK)
			if err != nil {
				t.Fatal(err)
			}
			proof, inputs, err := groth16.Prove(ctx, d, p, c.c, rnd)
			if err != nil {
				t.Fatalf("Prove: %v", err)
			}
			if err := groth16.Verify(pvk, &proof, inputs); err != nil {
				t.Fatalf("Verify: %v", err)
			}
			if len(inputs) > 0 {
				inputs[0].SetUint64(1234567)
				if err := groth16.Verify(pvk, &proof, inputs); !errors.Is(err, groth16.ErrInvalidProof) {
					t.Fatalf("changed input: Verify = %v, want ErrInvalidProof", err)
				}
			}
		})
	}
}
