package sha256_test

import (
	stdsha "crypto/sha256"
	"encoding/hex"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-project/cuzk/gadgets/boolean"
	"github.com/cuzk-project/cuzk/gadgets/internal/gadgettest"
	"github.com/cuzk-project/cuzk/gadgets/num"
	"github.com/cuzk-project/cuzk/gadgets/sha256"
	"github.com/cuzk-project/cuzk/r1cs"
)

// FIPS 180-4 / NIST CAVP examples.
var nistVectors = []struct {
	name, msg, digest string
}{
	{"empty", "", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
	{"abc", "abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
	{"448 bits", "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
		"248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"},
	{"896 bits", "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu",
		"cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1"},
}

func bitsToBytes(bits []boolean.Boolean) []byte {
	out := make([]byte, len(bits)/8)
	for i, b := range bits {
		if b.Value() {
			out[i/8] |= 0x80 >> (i % 8)
		}
	}
	return out
}

func TestNativeNIST(t *testing.T) {
	for _, v := range nistVectors {
		got := sha256.Sum([]byte(v.msg))
		if hex.EncodeToString(got[:]) != v.digest {
			t.Errorf("%s: native %x", v.name, got)
		}
	}
	rng := rand.New(rand.NewPCG(7, 8))
	for n := 0; n < 300; n++ {
		data := make([]byte, n)
		for i := range data {
			data[i] = byte(rng.Uint32())
		}
		if sha256.Sum(data) != stdsha.Sum256(data) {
			t.Fatalf("native disagrees with crypto/sha256 at %d bytes", n)
		}
	}
}

func TestGadgetNIST(t *testing.T) {
	for _, v := range nistVectors {
		t.Run(v.name, func(t *testing.T) {
			p := gadgettest.NewProver()
			in := boolean.BytesIntoBooleanVecBE(p, []byte(v.msg))
			out := sha256.Hash(p, in)
			if got := hex.EncodeToString(bitsToBytes(out)); got != v.digest {
				t.Fatalf("gadget %s", got)
			}
			if row := p.IsSatisfied(); row != -1 {
				t.Fatalf("unsatisfied at row %d", row)
			}
		})
	}
}

// The empty string hashes constants only: no constraints (test_blank_hash).
func TestBlankHashIsFree(t *testing.T) {
	var c r1cs.Counter
	out := sha256.Hash(&c, nil)
	if c.Constraints != 0 || c.Aux != 0 {
		t.Fatalf("%d constraints, %d aux", c.Constraints, c.Aux)
	}
	for _, b := range out {
		if !b.IsConstant() {
			t.Fatal("non-constant output bit")
		}
	}
}

func randomBits(cs r1cs.ConstraintSystem, n int, seed uint64) []boolean.Boolean {
	rng := rand.New(rand.NewPCG(seed, 1))
	out := make([]boolean.Boolean, n)
	for i := range out {
		out[i] = boolean.AllocBoolean(cs, rng.Uint32()%2 != 0)
	}
	return out
}

// bellpepper's test_full_block and test_full_hash counts.
func TestCounts(t *testing.T) {
	for _, tc := range []struct {
		name string
		run  func(r1cs.ConstraintSystem, []boolean.Boolean)
		want int
	}{
		{"compression", func(cs r1cs.ConstraintSystem, in []boolean.Boolean) {
			sha256.Compression(cs, in, sha256.IVConstants())
		}, 25840},
		{"hash of 512 bits", func(cs r1cs.ConstraintSystem, in []boolean.Boolean) { sha256.Hash(cs, in) }, 44874},
	} {
		var c r1cs.Counter
		c.AllocInput(one())
		in := randomBits(&c, 512, 9)
		tc.run(&c, in)
		if got := c.Constraints - 512; got != tc.want {
			t.Errorf("%s: %d constraints, want %d", tc.name, got, tc.want)
		}
	}
}

func TestBlockAgainstNative(t *testing.T) {
	rng := rand.New(rand.NewPCG(10, 11))
	var block [64]byte
	for i := range block {
		block[i] = byte(rng.Uint32())
	}
	r := gadgettest.NewRecorder()
	out := sha256.BlockNoPadding(r, boolean.BytesIntoBooleanVecBE(r, block[:]))
	h := sha256.Compress(sha256.IV, &block)
	got := bitsToBytes(out)
	for i, w := range h {
		if uint32(got[4*i])<<24|uint32(got[4*i+1])<<16|uint32(got[4*i+2])<<8|uint32(got[4*i+3]) != w {
			t.Fatalf("word %d", i)
		}
	}
	if r.Unsatisfied() != -1 {
		t.Fatal("unsatisfied")
	}
	// Any single wrong allocated value breaks the system: try a spread of
	// them (input bits, schedule, round internals, output sums).
	for _, k := range []int{0, 300, 511, 1000, 5000, 12000, len(r.Aux) - 1} {
		v := r1cs.AuxVariable(k)
		old := r.Value(v)
		r.Flip(v)
		if r.Unsatisfied() == -1 {
			t.Fatalf("flipping aux %d still satisfies", k)
		}
		r.Set(v, old)
	}
}

func TestHashRandomLengths(t *testing.T) {
	rng := rand.New(rand.NewPCG(12, 13))
	lengths := []int{1, 31, 55, 56, 63, 64, 65, 119, 120}
	if testing.Short() {
		lengths = []int{55, 56}
	}
	for _, n := range lengths {
		data := make([]byte, n)
		for i := range data {
			data[i] = byte(rng.Uint32())
		}
		p := gadgettest.NewProver()
		out := sha256.Hash(p, boolean.BytesIntoBooleanVecBE(p, data))
		want := stdsha.Sum256(data)
		if hex.EncodeToString(bitsToBytes(out)) != hex.EncodeToString(want[:]) || p.IsSatisfied() != -1 {
			t.Fatalf("%d bytes: mismatch or unsatisfied", n)
		}
	}
}

func leToField(t *testing.T, b [32]byte) fr.Element {
	t.Helper()
	x := new(big.Int)
	for i := 31; i >= 0; i-- {
		x.Lsh(x, 8).Or(x, big.NewInt(int64(b[i])))
	}
	var e fr.Element
	e.SetBigInt(x)
	return e
}

func TestSha254Node(t *testing.T) {
	rng := rand.New(rand.NewPCG(14, 15))
	var left, right [32]byte
	for i := range left {
		left[i], right[i] = byte(rng.Uint32()), byte(rng.Uint32())
	}
	left[31] &= 0x3f
	right[31] &= 0x3f
	want := leToField(t, sha256.Sha254(append(left[:], right[:]...)))

	p := gadgettest.NewProver()
	lb := boolean.BytesIntoBooleanVec(p, left[:])
	rb := boolean.BytesIntoBooleanVec(p, right[:])
	got := sha256.HashLeafBits(p, lb, rb)
	if !got.Value.Equal(&want) || p.IsSatisfied() != -1 {
		t.Fatal("hash_leaf_bits: mismatch or unsatisfied")
	}

	// The same node from allocated numbers (hash2 / hash_multi_leaf).
	p2 := gadgettest.NewProver()
	a := num.Alloc(p2, leToField(t, left))
	b := num.Alloc(p2, leToField(t, right))
	got2 := sha256.HashMultiLeaf(p2, []num.AllocatedNum{a, b})
	if !got2.Value.Equal(&want) || p2.IsSatisfied() != -1 {
		t.Fatal("hash_multi_leaf: mismatch or unsatisfied")
	}

	// A wrong packed output under the prover: tamper with the last aux
	// (the packed number).
	var c r1cs.Counter
	c.AllocInput(one())
	sha256.HashLeafBits(&c, boolean.BytesIntoBooleanVec(&c, left[:]), boolean.BytesIntoBooleanVec(&c, right[:]))
	tp := gadgettest.NewProver()
	tcs := &gadgettest.Tamper{ConstraintSystem: tp, Index: c.Aux - 1, Value: gadgettest.Fr(5)}
	sha256.HashLeafBits(tcs, boolean.BytesIntoBooleanVec(tcs, left[:]), boolean.BytesIntoBooleanVec(tcs, right[:]))
	if tp.IsSatisfied() == -1 {
		t.Fatal("tampered packed output satisfies")
	}
}

// The witness-only path (no linear combinations built) allocates the same
// values in the same order and counts the same rows as the prover path.
func TestWitnessPathMatchesProver(t *testing.T) {
	data := []byte("witness-only synthesis must not change the assignment, only skip the rows' contents")
	p := gadgettest.NewProver()
	sha256.HashMultiLeaf(p, []num.AllocatedNum{num.Alloc(p, gadgettest.Fr(7)), num.Alloc(p, gadgettest.Fr(9))})
	sha256.Hash(p, boolean.BytesIntoBooleanVecBE(p, data))
	w := &r1cs.WitnessAssignment{}
	w.AllocInput(one())
	if !r1cs.SkipsConstraints(w) || r1cs.SkipsConstraints(p) {
		t.Fatal("SkipsConstraints misclassifies the systems")
	}
	sha256.HashMultiLeaf(w, []num.AllocatedNum{num.Alloc(w, gadgettest.Fr(7)), num.Alloc(w, gadgettest.Fr(9))})
	sha256.Hash(w, boolean.BytesIntoBooleanVecBE(w, data))
	if w.NumConstraints() != p.NumConstraints() || len(w.Aux) != len(p.Aux) || len(w.Input) != len(p.Input) {
		t.Fatalf("witness %d rows %d aux, prover %d rows %d aux", w.NumConstraints(), len(w.Aux), p.NumConstraints(), len(p.Aux))
	}
	for i := range w.Aux {
		if !w.Aux[i].Equal(&p.Aux[i]) {
			t.Fatalf("aux %d differs", i)
		}
	}
	if p.IsSatisfied() != -1 {
		t.Fatal("prover path unsatisfied")
	}
}

// A system that keeps the combinations it is given (no copy) must see the
// same rows as one that copies them: gadgets never reuse memory handed to
// Enforce.
func TestRetainedRowsStayIntact(t *testing.T) {
	data := []byte("rows kept by reference must not be overwritten later")
	kept, copied := gadgettest.NewRecorder(), gadgettest.NewRecorder()
	kept.Retain = true
	for _, r := range []*gadgettest.Recorder{kept, copied} {
		sha256.Hash(r, boolean.BytesIntoBooleanVecBE(r, data))
	}
	if len(kept.Constraints) != len(copied.Constraints) || kept.Unsatisfied() != -1 {
		t.Fatal("retained rows differ in number or are unsatisfied")
	}
	for i := range kept.Constraints {
		k, c := kept.Constraints[i], copied.Constraints[i]
		for j, pair := range [][2]r1cs.LinearCombination{{k.A, c.A}, {k.B, c.B}, {k.C, c.C}} {
			if len(pair[0]) != len(pair[1]) {
				t.Fatalf("row %d side %d: %d terms, copied %d", i, j, len(pair[0]), len(pair[1]))
			}
			for n := range pair[0] {
				if pair[0][n] != pair[1][n] {
					t.Fatalf("row %d side %d term %d differs", i, j, n)
				}
			}
		}
	}
}
