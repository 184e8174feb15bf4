package groth16

import (
	"math/rand/v2"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-project/cuzk/r1cs"
)

// randCircuit is a random satisfiable circuit, deterministic from Seed.
// Rows is the total row count wanted (ONE's and the inputs' input
// constraints included); Inputs counts the public inputs (ONE excluded).
// BitHeavy makes most witness values 0 or 1. Witness varies the values
// (inputs included) without changing the constraints.
type randCircuit struct {
	Seed     uint64
	Witness  uint64
	Inputs   int
	Rows     int
	BitHeavy bool
}

type wire struct {
	v r1cs.Variable
	x fr.Element
}

func randElement(rng *rand.Rand) fr.Element {
	var b [32]byte
	for i := 0; i < 32; i += 8 {
		u := rng.Uint64()
		for k := 0; k < 8; k++ {
			b[i+k] = byte(u >> (8 * k))
		}
	}
	var e fr.Element
	e.SetBytes(b[:])
	return e
}

func (c *randCircuit) Synthesize(cs r1cs.ConstraintSystem) error {
	rng := rand.New(rand.NewPCG(c.Seed, 0x9e3779b97f4a7c15))            // structure
	vrng := rand.New(rand.NewPCG(c.Seed, 0x5851f42d4c957f2d^c.Witness)) // values
	var one fr.Element
	one.SetOne()
	value := func() fr.Element {
		if c.BitHeavy && vrng.IntN(4) != 0 {
			var e fr.Element
			e.SetUint64(uint64(vrng.IntN(2)))
			return e
		}
		return randElement(vrng)
	}
	coeff := func() fr.Element {
		if c.BitHeavy && rng.IntN(4) != 0 {
			return one
		}
		switch rng.IntN(4) {
		case 0:
			return one
		case 1:
			var e fr.Element
			e.Neg(&one)
			return e
		default:
			return randElement(rng)
		}
	}
	vals := map[r1cs.Variable]fr.Element{r1cs.One: one}
	pool := []wire{{r1cs.One, one}}
	add := func(w wire) {
		pool = append(pool, w)
		vals[w.v] = w.x
	}
	for i := 0; i < c.Inputs; i++ {
		x := value()
		add(wire{cs.AllocInput(x), x})
	}
	pick := func() wire { return pool[rng.IntN(len(pool))] }
	// lc returns a small random combination of pool wires and its value;
	// sometimes with a term that cancels to a zero coefficient.
	lc := func(terms int) (r1cs.LinearCombination, fr.Element) {
		var l r1cs.LinearCombination
		for k := 0; k < terms; k++ {
			w := pick()
			co := coeff()
			l.AddCoeff(co, w.v)
			if rng.IntN(10) == 0 {
				w := pick()
				co := coeff()
				var neg fr.Element
				neg.Neg(&co)
				l.AddCoeff(co, w.v)
				l.AddCoeff(neg, w.v)
			}
		}
		var sum, t fr.Element
		for _, term := range l {
			x := vals[term.Var]
			t.Mul(&term.Coeff, &x)
			sum.Add(&sum, &t)
		}
		return l, sum
	}
	oneLC := r1cs.LinearCombination{{Var: r1cs.One, Coeff: one}}
	gates := max(c.Rows-(c.Inputs+1), 1)
	for g := 0; g < gates; g++ {
		k := rng.IntN(10)
		if c.BitHeavy && k >= 8 && rng.IntN(2) == 0 {
			k = 6 // fewer linear gates: their sums are rarely bits
		}
		switch {
		case k < 5: // multiplication: (Σ)·(Σ) = z
			la, xa := lc(1 + rng.IntN(2))
			lb, xb := lc(1 + rng.IntN(2))
			var z fr.Element
			z.Mul(&xa, &xb)
			zv := cs.Alloc(z)
			cs.Enforce(la, lb, r1cs.LinearCombination{{Var: zv, Coeff: one}})
			add(wire{zv, z})
		case k < 8: // boolean: b·(1 − b) = 0
			var b fr.Element
			b.SetUint64(uint64(vrng.IntN(2)))
			bv := cs.Alloc(b)
			notB := oneLC.Clone()
			notB.Sub(bv)
			cs.Enforce(r1cs.LinearCombination{{Var: bv, Coeff: one}}, notB, nil)
			add(wire{bv, b})
		default: // linear: (Σ)·1 = s
			la, xa := lc(1 + rng.IntN(4))
			sv := cs.Alloc(xa)
			cs.Enforce(la, oneLC.Clone(), r1cs.LinearCombination{{Var: sv, Coeff: one}})
			add(wire{sv, xa})
		}
		if len(pool) > 4096 { // keep lookups cheap
			pool = append(pool[:1+c.Inputs], pool[len(pool)-2048:]...)
		}
	}
	return nil
}
