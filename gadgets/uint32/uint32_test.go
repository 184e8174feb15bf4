package uint32_test

import (
	"math/bits"
	"math/rand/v2"
	"testing"

	"github.com/cuzk-project/cuzk/gadgets/internal/gadgettest"
	u32 "github.com/cuzk-project/cuzk/gadgets/uint32"
	"github.com/cuzk-project/cuzk/r1cs"
)

func checkBits(t *testing.T, what string, u u32.UInt32, want uint32) {
	t.Helper()
	if u.Value != want {
		t.Fatalf("%s: value %#x, want %#x", what, u.Value, want)
	}
	for i, b := range u.Bits {
		if b.Value() != (want>>i&1 == 1) {
			t.Fatalf("%s: bit %d of %#x", what, i, want)
		}
	}
}

func TestBitConversions(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for range 100 {
		v := rng.Uint32()
		c := u32.Constant(v)
		checkBits(t, "constant", c, v)
		checkBits(t, "from_bits_be", u32.FromBitsBE(c.BitsBE()), v)
		checkBits(t, "from_bits", u32.FromBits(c.BitsLE()), v)
		for _, by := range []int{0, 1, 7, 31, 32, 33} {
			checkBits(t, "rotr", c.Rotr(by), bits.RotateLeft32(v, -(by%32)))
			checkBits(t, "shr", c.Shr(by), v>>(by%32))
		}
	}
}

func TestXorChMaj(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for range 20 {
		a, b, c := rng.Uint32(), rng.Uint32(), rng.Uint32()
		r := gadgettest.NewRecorder()
		ua, ub := u32.Alloc(r, a), u32.Alloc(r, b)
		uc := u32.Constant(c) // mixes allocated and constant bits
		x := ua.Xor(r, ub)
		checkBits(t, "xor", x, a^b)
		checkBits(t, "xor const", ua.Xor(r, uc), a^c)
		checkBits(t, "ch", u32.Sha256Ch(r, ua, ub, uc), (a&b)^(^a&c))
		checkBits(t, "maj", u32.Sha256Maj(r, ua, ub, uc), (a&b)^(a&c)^(b&c))
		checkBits(t, "ch all", u32.Sha256Ch(r, ua, ub, x), (a&b)^(^a&(a^b)))
		checkBits(t, "maj all", u32.Sha256Maj(r, ua, ub, x), (a&b)^(a&(a^b))^(b&(a^b)))
		if r.Unsatisfied() != -1 {
			t.Fatal("unsatisfied")
		}
		r.Flip(x.Bits[9].Bit.Var)
		if r.Unsatisfied() == -1 {
			t.Fatal("flipped xor bit satisfies")
		}
	}
}

func TestAddMany(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for n := 2; n <= 10; n++ {
		r := gadgettest.NewRecorder()
		m := u32.NewMultiEq(r)
		ops := make([]u32.UInt32, n)
		var sum uint32
		for i := range ops {
			v := rng.Uint32()
			sum += v
			if i%3 == 2 {
				ops[i] = u32.Constant(v)
			} else {
				ops[i] = u32.Alloc(m, v)
			}
		}
		auxBefore, rowsBefore := len(r.Aux), len(r.Constraints)
		out := u32.AddMany(m, ops...)
		m.Flush()
		checkBits(t, "addmany", out, sum)
		// result bits: ⌈log2(n·(2^32−1))⌉, each with its booleanity row,
		// plus the one MultiEq row.
		wantBits := bits.Len64(uint64(n) * uint64(^uint32(0)))
		if got := len(r.Aux) - auxBefore; got != wantBits {
			t.Fatalf("n=%d: %d result bits, want %d", n, got, wantBits)
		}
		if got := len(r.Constraints) - rowsBefore; got != wantBits+1 {
			t.Fatalf("n=%d: %d rows, want %d", n, got, wantBits+1)
		}
		if r.Unsatisfied() != -1 {
			t.Fatalf("n=%d: unsatisfied", n)
		}
		r.Flip(out.Bits[0].Bit.Var)
		if r.Unsatisfied() == -1 {
			t.Fatalf("n=%d: wrong sum bit satisfies", n)
		}
	}
	// all constants fold to a constant, no constraints.
	r := gadgettest.NewRecorder()
	m := u32.NewMultiEq(r)
	out := u32.AddMany(m, u32.Constant(0xffffffff), u32.Constant(2))
	m.Flush()
	if !out.Bits[0].IsConstant() || out.Value != 1 || len(r.Constraints) != 0 {
		t.Fatal("constant addmany")
	}
}

// MultiEq packs equalities until the next would reach 254 bits.
func TestMultiEqBatching(t *testing.T) {
	r := gadgettest.NewRecorder()
	m := u32.NewMultiEq(r)
	a := u32.Alloc(m, 7)
	rows := len(r.Constraints)
	for range 7 { // 7 × 34 bits = 238 < 254: one batch
		u32.AddMany(m, a, a, a)
	}
	if m.Ops() != 0 {
		t.Fatalf("emitted %d batches before the field was full", m.Ops())
	}
	u32.AddMany(m, a, a, a) // 238 + 34 ≥ 254: flush first
	if m.Ops() != 1 {
		t.Fatalf("%d batches, want 1", m.Ops())
	}
	m.Flush()
	if m.Ops() != 2 || len(r.Constraints)-rows != 8*34+2 {
		t.Fatalf("%d batches, %d rows", m.Ops(), len(r.Constraints)-rows)
	}
	if r.Unsatisfied() != -1 {
		t.Fatal("unsatisfied")
	}
	// Every row of a batch is (lhs) · ONE = (rhs).
	last := r.Constraints[len(r.Constraints)-1]
	if len(last.B) != 1 || last.B[0].Var != r1cs.One {
		t.Fatal("MultiEq row is not lhs · ONE = rhs")
	}
}
