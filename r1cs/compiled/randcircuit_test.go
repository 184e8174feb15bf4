package compiled_test

import (
	"math/rand/v2"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-project/cuzk/r1cs"
)

// randCircuit is a random satisfiable circuit, deterministic from Seed,
// with what a recorder must get right beyond well-formed combinations:
// inputs allocated between aux variables, inputs in B, combinations given
// as raw term slices (unsorted, repeated variables, terms summing to zero,
// zero coefficients), and a few rows whose combinations are all empty.
// Witness varies the values without changing the constraints.
type randCircuit struct {
	Seed     uint64
	Witness  uint64
	Inputs   int
	Rows     int
	BitHeavy bool
	Raw      bool // some combinations as raw, unmerged term slices
}

type wire struct {
	v r1cs.Variable
	x fr.Element
}

func randElement(rng *rand.Rand) fr.Element {
	var e fr.Element
	var b [32]byte
	for i := 0; i < 32; i += 8 {
		u := rng.Uint64()
		for k := range 8 {
			b[i+k] = byte(u >> (8 * k))
		}
	}
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
	// A small set of "other" coefficients so that values repeat, as powers
	// of two and constants do in real gadgets.
	consts := make([]fr.Element, 8)
	for i := range consts {
		consts[i] = randElement(rng)
	}
	coeff := func() fr.Element {
		switch k := rng.IntN(8); {
		case k < 3 || c.BitHeavy && k < 6:
			return one
		case k < 5:
			var e fr.Element
			e.Neg(&one)
			return e
		case k < 7 || rng.IntN(16) != 0:
			return consts[rng.IntN(len(consts))]
		default: // rare enough that a large circuit stays below MaxCoeffs
			return randElement(rng)
		}
	}
	vals := map[r1cs.Variable]fr.Element{r1cs.One: one}
	pool := []wire{{r1cs.One, one}}
	add := func(w wire) {
		pool = append(pool, w)
		vals[w.v] = w.x
	}
	inputsLeft := c.Inputs
	allocInput := func() {
		x := value()
		add(wire{cs.AllocInput(x), x})
		inputsLeft--
	}
	for range c.Inputs / 2 {
		allocInput()
	}
	pick := func() wire { return pool[rng.IntN(len(pool))] }
	eval := func(l r1cs.LinearCombination) fr.Element {
		var sum, t fr.Element
		for _, term := range l {
			x := vals[term.Var]
			t.Mul(&term.Coeff, &x)
			sum.Add(&sum, &t)
		}
		return sum
	}
	lc := func(terms int) (r1cs.LinearCombination, fr.Element) {
		var l r1cs.LinearCombination
		if c.Raw && rng.IntN(3) == 0 {
			for range terms {
				w, co := pick(), coeff()
				l = append(l, r1cs.Term{Var: w.v, Coeff: co})
				switch rng.IntN(6) {
				case 0: // the same variable again
					l = append(l, r1cs.Term{Var: w.v, Coeff: coeff()})
				case 1: // a pair that cancels
					w2 := pick()
					var neg fr.Element
					neg.Neg(&co)
					l = append(l, r1cs.Term{Var: w2.v, Coeff: co}, r1cs.Term{Var: w2.v, Coeff: neg})
				case 2: // a zero coefficient
					l = append(l, r1cs.Term{Var: pick().v})
				}
			}
			rng.Shuffle(len(l), func(i, j int) { l[i], l[j] = l[j], l[i] })
			return l, eval(l)
		}
		for range terms {
			w := pick()
			l.AddCoeff(coeff(), w.v)
			if rng.IntN(10) == 0 {
				w := pick()
				co := coeff()
				var neg fr.Element
				neg.Neg(&co)
				l.AddCoeff(co, w.v)
				l.AddCoeff(neg, w.v)
			}
		}
		return l, eval(l)
	}
	oneLC := r1cs.LinearCombination{{Var: r1cs.One, Coeff: one}}
	gates := max(c.Rows-(c.Inputs+1), 1)
	for g := range gates {
		if inputsLeft > 0 && rng.IntN(gates-g) < inputsLeft {
			allocInput()
		}
		k := rng.IntN(20)
		if c.BitHeavy && k >= 16 && rng.IntN(2) == 0 {
			k = 12
		}
		switch {
		case k == 0: // an empty row
			cs.Enforce(nil, nil, nil)
		case k < 10: // (Σ)·(Σ) = z
			la, xa := lc(1 + rng.IntN(3))
			lb, xb := lc(1 + rng.IntN(3))
			var z fr.Element
			z.Mul(&xa, &xb)
			zv := cs.Alloc(z)
			cs.Enforce(la, lb, r1cs.LinearCombination{{Var: zv, Coeff: one}})
			add(wire{zv, z})
		case k < 16: // b·(1 − b) = 0
			var b fr.Element
			b.SetUint64(uint64(vrng.IntN(2)))
			bv := cs.Alloc(b)
			notB := oneLC.Clone()
			notB.Sub(bv)
			cs.Enforce(r1cs.LinearCombination{{Var: bv, Coeff: one}}, notB, nil)
			add(wire{bv, b})
		default: // (Σ)·1 = s
			la, xa := lc(1 + rng.IntN(5))
			sv := cs.Alloc(xa)
			cs.Enforce(la, oneLC.Clone(), r1cs.LinearCombination{{Var: sv, Coeff: one}})
			add(wire{sv, xa})
		}
		if len(pool) > 4096 {
			pool = append(pool[:1], pool[len(pool)-2048:]...)
		}
	}
	for inputsLeft > 0 {
		allocInput()
	}
	return nil
}
