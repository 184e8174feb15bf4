package poseidon

import (
	"errors"
	"strconv"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-project/cuzk/gadgets/internal/gadgettest"
	"github.com/cuzk-project/cuzk/gadgets/num"
	native "github.com/cuzk-project/cuzk/hash/poseidon"
	"github.com/cuzk-project/cuzk/r1cs"
)

func preimage(arity int, seed uint64) []fr.Element {
	in := make([]fr.Element, arity)
	for i := range in {
		in[i].SetUint64(seed*1000 + uint64(i) + 1)
		in[i].Square(&in[i])
		in[i].Square(&in[i])
		in[i].Square(&in[i])
	}
	return in
}

func synth(cs r1cs.ConstraintSystem, c *native.Constants, in []fr.Element) (num.AllocatedNum, error) {
	nums := make([]num.AllocatedNum, len(in))
	for i := range in {
		nums[i] = num.Alloc(cs, in[i])
	}
	return Hash(cs, nums, c)
}

// Counts from neptune src/circuit.rs test_poseidon_hash (Strength Standard):
// 3·(t·RF + RP − 1) + (t·RF + RP − arity).
func TestConstraintCounts(t *testing.T) {
	for _, tc := range []struct{ arity, want int }{
		{2, 311}, {4, 377}, {8, 505}, {11, 598}, {16, 761}, {24, 1009}, {36, 1385},
	} {
		t.Run("arity="+strconv.Itoa(tc.arity), func(t *testing.T) {
			if testing.Short() && tc.arity > 11 {
				t.Skip("large arity")
			}
			c := native.MustMerkleTree(tc.arity)
			in := preimage(tc.arity, uint64(tc.arity))
			p := gadgettest.NewProver()
			out, err := synth(p, c, in)
			if err != nil {
				t.Fatal(err)
			}
			if got := p.NumConstraints(); got != tc.want {
				t.Errorf("constraints %d, want %d", got, tc.want)
			}
			if f := tc.want; 3*(c.Width*c.FullRounds+c.PartialRounds-1)+(c.Width*c.FullRounds+c.PartialRounds-tc.arity) != f {
				t.Errorf("formula disagrees with %d", f)
			}
			if row := p.IsSatisfied(); row != -1 {
				t.Fatalf("unsatisfied at row %d", row)
			}
			want, err := c.Hash(in)
			if err != nil {
				t.Fatal(err)
			}
			if !out.Value.Equal(&want) {
				t.Fatalf("circuit digest %s, native %s", out.Value.Text(16), want.Text(16))
			}
			if got := p.Aux[out.Var.Index()]; !got.Equal(&want) {
				t.Fatal("digest variable does not hold the digest")
			}
		})
	}
}

// TestCustomTag checks the SnapDeals tag (2^40) flows through the circuit.
func TestCustomTag(t *testing.T) {
	c, err := native.Custom(2, 1)
	if err != nil {
		t.Fatal(err)
	}
	in := preimage(2, 9)
	p := gadgettest.NewProver()
	out, err := synth(p, c, in)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := c.Hash(in)
	if !out.Value.Equal(&want) || p.IsSatisfied() != -1 || p.NumConstraints() != 311 {
		t.Fatalf("custom tag: value ok %v, satisfied %d, constraints %d", out.Value.Equal(&want), p.IsSatisfied(), p.NumConstraints())
	}
}

// TestWrongWitness replaces single aux values (an input, an S-box square,
// an allocated linear combination, the digest) and expects an unsatisfied
// system each time.
func TestWrongWitness(t *testing.T) {
	for _, arity := range []int{2, 8, 11} {
		c := native.MustMerkleTree(arity)
		in := preimage(arity, 5)
		count := gadgettest.NewProver()
		if _, err := synth(count, c, in); err != nil {
			t.Fatal(err)
		}
		n := count.NumAux()
		for _, idx := range []int{arity, arity + 1, arity + 3*arity, n / 2, n - 1} {
			p := gadgettest.NewProver()
			tm := &gadgettest.Tamper{ConstraintSystem: p, Index: idx, Value: gadgettest.Fr(12345)}
			if _, err := synth(tm, c, in); err != nil {
				t.Fatal(err)
			}
			if p.IsSatisfied() == -1 {
				t.Errorf("arity %d: aux %d of %d tampered, still satisfied", arity, idx, n)
			}
		}
	}
}

func TestBadPreimage(t *testing.T) {
	p := gadgettest.NewProver()
	if _, err := synth(p, native.MustMerkleTree(8), preimage(7, 1)); err == nil {
		t.Fatal("7 numbers accepted at arity 8")
	}
}

// TestWitnessAgreement synthesizes with the witness-only system and checks
// it allocates the same values as the prover.
func TestWitnessAgreement(t *testing.T) {
	for _, arity := range []int{2, 4, 8, 11} {
		c := native.MustMerkleTree(arity)
		in := preimage(arity, 2)
		p := gadgettest.NewProver()
		if _, err := synth(p, c, in); err != nil {
			t.Fatal(err)
		}
		w := &r1cs.WitnessAssignment{}
		w.AllocInput(fr.One())
		out, err := synth(w, c, in)
		if err != nil {
			t.Fatal(err)
		}
		if len(w.Aux) != len(p.Aux) || w.Constraints != p.NumConstraints() {
			t.Fatalf("arity %d: witness %d aux/%d rows, prover %d/%d", arity, len(w.Aux), w.Constraints, len(p.Aux), p.NumConstraints())
		}
		for i := range w.Aux {
			if !w.Aux[i].Equal(&p.Aux[i]) {
				t.Fatalf("arity %d: aux %d differs", arity, i)
			}
		}
		if want, _ := c.Hash(in); !out.Value.Equal(&want) {
			t.Fatalf("arity %d: witness digest differs from native", arity)
		}
	}
}

func BenchmarkSynthesize(b *testing.B) {
	for _, arity := range []int{2, 8, 11} {
		c := native.MustMerkleTree(arity)
		in := preimage(arity, 3)
		b.Run("prover/arity="+strconv.Itoa(arity), func(b *testing.B) {
			rows := 0
			for b.Loop() {
				p := gadgettest.NewProver()
				if _, err := synth(p, c, in); err != nil {
					b.Fatal(err)
				}
				rows += p.NumConstraints()
			}
			b.ReportMetric(float64(rows)/b.Elapsed().Seconds(), "constraints/s")
		})
		b.Run("witness/arity="+strconv.Itoa(arity), func(b *testing.B) {
			rows := 0
			for b.Loop() {
				w := &r1cs.WitnessAssignment{}
				w.AllocInput(fr.One())
				if _, err := synth(w, c, in); err != nil {
					b.Fatal(err)
				}
				rows += w.Constraints
			}
			b.ReportMetric(float64(rows)/b.Elapsed().Seconds(), "constraints/s")
		})
	}
}

// TestEveryVariableConstrained flips each aux variable in turn (the
// preimage, every S-box intermediate, every allocated combination, the
// digest) and expects a violated row: no value is left free.
func TestEveryVariableConstrained(t *testing.T) {
	c := native.MustMerkleTree(2)
	r := gadgettest.NewRecorder()
	if _, err := synth(r, c, preimage(2, 4)); err != nil {
		t.Fatal(err)
	}
	if row := r.Unsatisfied(); row != -1 {
		t.Fatalf("unsatisfied at %d", row)
	}
	for i := range r.Aux {
		v := r1cs.AuxVariable(i)
		old := r.Value(v)
		r.Flip(v)
		if r.Unsatisfied() == -1 {
			t.Errorf("aux %d of %d can change freely", i, len(r.Aux))
		}
		r.Set(v, old)
	}
}

func TestHashMerkleTree(t *testing.T) {
	in := preimage(11, 8)
	p := gadgettest.NewProver()
	nums := make([]num.AllocatedNum, len(in))
	for i := range in {
		nums[i] = num.Alloc(p, in[i])
	}
	out, err := HashMerkleTree(p, nums)
	if err != nil {
		t.Fatal(err)
	}
	want, err := native.HashMerkleTree(in)
	if err != nil {
		t.Fatal(err)
	}
	if !out.Value.Equal(&want) || p.IsSatisfied() != -1 || p.NumConstraints() != 598 {
		t.Fatal("column hash (arity 11) mismatch")
	}
	if _, err := HashMerkleTree(p, nums[:3]); err == nil {
		t.Fatal("arity 3 accepted")
	}
}

// TestConcurrent hashes from several goroutines with separate systems (the
// constants and row templates are shared caches); run with -race.
func TestConcurrent(t *testing.T) {
	arities := []int{2, 4, 8, 11, 2, 8}
	errs := make(chan error, len(arities))
	for g, arity := range arities {
		go func() {
			c, err := native.Custom(arity, 1+g%2)
			if err != nil {
				errs <- err
				return
			}
			in := preimage(arity, uint64(g))
			p := gadgettest.NewProver()
			out, err := synth(p, c, in)
			if err == nil {
				want, _ := c.Hash(in)
				if !out.Value.Equal(&want) || p.IsSatisfied() != -1 {
					err = errors.New("wrong digest or unsatisfied")
				}
			}
			errs <- err
		}()
	}
	for range arities {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}

// The witness-only path (plain field elements into one aux run) against
// the generic gadget, bit for bit: aux values, rows and the digest.
func TestHashWitness(t *testing.T) {
	tests := []struct {
		name  string
		c     func() (*native.Constants, error)
		arity int
	}{
		{"tree 2", func() (*native.Constants, error) { return native.MerkleTree(2) }, 2},
		{"tree 4", func() (*native.Constants, error) { return native.MerkleTree(4) }, 4},
		{"tree 8", func() (*native.Constants, error) { return native.MerkleTree(8) }, 8},
		{"tree 11", func() (*native.Constants, error) { return native.MerkleTree(11) }, 11},
		{"tree 16 (state at the stack bound)", func() (*native.Constants, error) { return native.MerkleTree(16) }, 16},
		{"tree 24 (state on the heap)", func() (*native.Constants, error) { return native.MerkleTree(24) }, 24},
		{"custom tag 4", func() (*native.Constants, error) { return native.Custom(4, 7) }, 4},
	}
	for _, tc := range tests {
		c, err := tc.c()
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		for seed := range uint64(3) {
			t.Run(tc.name+"/"+strconv.Itoa(int(seed)), func(t *testing.T) {
				in := preimage(tc.arity, seed)
				gadgettest.SameWitness(t, func(cs r1cs.ConstraintSystem) any {
					out, err := synth(cs, c, in)
					if err != nil {
						t.Fatal(err)
					}
					return out
				})
			})
		}
	}
}
