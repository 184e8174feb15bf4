package merkle

import (
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-project/cuzk/gadgets/boolean"
	"github.com/cuzk-project/cuzk/gadgets/internal/gadgettest"
	"github.com/cuzk-project/cuzk/gadgets/num"
	"github.com/cuzk-project/cuzk/hash"
	"github.com/cuzk-project/cuzk/hash/merkle"
	"github.com/cuzk-project/cuzk/r1cs"
)

func randomLeaves(n int, seed uint64) []hash.Domain {
	rng := rand.New(rand.NewPCG(seed, 11))
	out := make([]hash.Domain, n)
	for i := range out {
		for j := range out[i] {
			out[i][j] = byte(rng.Uint32())
		}
		out[i][31] &= 0x3f
	}
	return out
}

// porCase is one storage-proofs-core/tests/por_circuit.rs case: the tree
// has 64 leaves per base tree (leaves = 64 · get_base_tree_count), the root
// is public unless private; want is cs.num_constraints() of bellperson's
// TestConstraintSystem, which excludes the per-input rows the prover adds.
type porCase struct {
	name    string
	h       NodeHasher
	shape   merkle.Shape
	leaves  int
	private bool
	want    int
	long    bool
}

var porCases = []porCase{
	{"poseidon_base_8 (8-0-0, 64 leaves)", Poseidon{}, merkle.Shape800, 64, false, 1063, false},
	{"poseidon_sub_8_8 (8-8-0, 512 leaves)", Poseidon{}, merkle.Shape880, 512, false, 1593, false},
	{"poseidon_top_8_8_2 (8-8-2, 1024 leaves)", Poseidon{}, merkle.Shape882, 1024, false, 1907, false},
	{"poseidon_base_2 (64 leaves)", Poseidon{}, merkle.Shape{Base: 2}, 64, false, 1887, false},
	{"poseidon_base_4 (64 leaves)", Poseidon{}, merkle.Shape{Base: 4}, 64, false, 1164, false},
	{"poseidon_sub_8_2 (128 leaves)", Poseidon{}, merkle.Shape{Base: 8, Sub: 2}, 128, false, 1377, false},
	{"poseidon_top_8_4_2 (512 leaves)", Poseidon{}, merkle.Shape{Base: 8, Sub: 4, Top: 2}, 512, false, 1764, false},
	{"poseidon_top_8_2_4 (512 leaves)", Poseidon{}, merkle.Shape{Base: 8, Sub: 2, Top: 4}, 512, false, 1764, false},
	{"poseidon_base_2_private_root (64 leaves)", Poseidon{}, merkle.Shape{Base: 2}, 64, true, 1886, false},
	{"poseidon_base_4_private_root (64 leaves)", Poseidon{}, merkle.Shape{Base: 4}, 64, true, 1163, false},
	{"sha256_base_2 (64 leaves)", Sha254{}, merkle.Shape{Base: 2}, 64, false, 272295, true},
}

func buildTree(t testing.TB, c porCase) *merkle.Tree {
	t.Helper()
	tree, err := merkle.New(c.h.Native(), c.shape, randomLeaves(c.leaves, uint64(c.leaves)))
	if err != nil {
		t.Fatal(err)
	}
	return tree
}

func TestPoRCounts(t *testing.T) {
	for _, c := range porCases {
		t.Run(c.name, func(t *testing.T) {
			if c.long && testing.Short() {
				t.Skip("SHA-256 tree: 272k constraints")
			}
			tree := buildTree(t, c)
			challenges := []int{0, c.leaves - 1, c.leaves / 3}
			for _, i := range challenges {
				proof, err := tree.Prove(i)
				if err != nil {
					t.Fatal(err)
				}
				if err := proof.Verify(c.h.Native()); err != nil {
					t.Fatal(err)
				}
				circ, err := NewPoRCircuit(c.h, proof, c.private)
				if err != nil {
					t.Fatal(err)
				}
				p := gadgettest.NewProver()
				if err := circ.Synthesize(p); err != nil {
					t.Fatal(err)
				}
				if got := p.NumConstraints(); got != c.want {
					t.Fatalf("challenge %d: %d constraints, want %d", i, got, c.want)
				}
				if row := p.IsSatisfied(); row != -1 {
					t.Fatalf("challenge %d: unsatisfied at row %d", i, row)
				}
				// Inputs: ONE, the packed path bits (= the challenge), the root.
				wantInputs := []fr.Element{fr.One(), gadgettest.Fr(uint64(i))}
				if !c.private {
					root, _ := tree.Root().Element()
					wantInputs = append(wantInputs, root)
				}
				if len(p.Input) != len(wantInputs) {
					t.Fatalf("challenge %d: %d inputs, want %d", i, len(p.Input), len(wantInputs))
				}
				for k := range wantInputs {
					if !p.Input[k].Equal(&wantInputs[k]) {
						t.Fatalf("challenge %d: input %d is %s", i, k, p.Input[k].String())
					}
				}
			}
		})
	}
}

// TestPoRWrongWitness: a wrong leaf, sibling or index, or a wrong claimed
// root leaves the system unsatisfied.
func TestPoRWrongWitness(t *testing.T) {
	c := porCases[2] // 8-8-2
	tree := buildTree(t, c)
	proof, err := tree.Prove(777)
	if err != nil {
		t.Fatal(err)
	}
	mutate := map[string]func(*PoRCircuit){
		"leaf":    func(p *PoRCircuit) { p.Value.Val.SetUint64(5) },
		"sibling": func(p *PoRCircuit) { p.Path[1].Siblings[3].SetUint64(5) },
		"top":     func(p *PoRCircuit) { p.Path[len(p.Path)-1].Siblings[0].SetUint64(5) },
		"index":   func(p *PoRCircuit) { p.Path[0].Index = (p.Path[0].Index + 1) % 8 },
		"root":    func(p *PoRCircuit) { p.Root.Val.SetUint64(5) },
	}
	for name, m := range mutate {
		circ, err := NewPoRCircuit(c.h, proof, false)
		if err != nil {
			t.Fatal(err)
		}
		m(circ)
		p := gadgettest.NewProver()
		if err := circ.Synthesize(p); err != nil {
			t.Fatal(err)
		}
		if p.IsSatisfied() == -1 {
			t.Errorf("wrong %s: still satisfied", name)
		}
	}
	// A tampered intermediate variable (an insertion pick) is caught too.
	circ, _ := NewPoRCircuit(c.h, proof, false)
	p := gadgettest.NewProver()
	tm := &gadgettest.Tamper{ConstraintSystem: p, Index: 1 + 3 + 7 + 2 + 5, Value: gadgettest.Fr(9)}
	if err := circ.Synthesize(tm); err != nil {
		t.Fatal(err)
	}
	if p.IsSatisfied() == -1 {
		t.Error("tampered pick: still satisfied")
	}
}

func TestPoRBadPath(t *testing.T) {
	for name, path := range map[string][]PathElement{
		"arity 3":   {{Index: 0, Siblings: make([]fr.Element, 2)}},
		"index 8":   {{Index: 8, Siblings: make([]fr.Element, 7)}},
		"index -1":  {{Index: -1, Siblings: make([]fr.Element, 1)}},
		"no arity":  {{Index: 0}},
		"arity 256": {{Index: 0, Siblings: make([]fr.Element, 255)}},
	} {
		circ := &PoRCircuit{Hasher: Poseidon{}, Path: path}
		p := gadgettest.NewProver()
		if err := circ.Synthesize(p); err == nil {
			t.Errorf("%s: accepted", name)
		} else if !errors.Is(err, ErrPath) {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// TestInsert checks every insertion gadget against native insertion, its
// row count (insert_2: 2, insert_4: 8, insert_8: 2 + 20, generic 16: 16·15)
// and satisfaction.
func TestInsert(t *testing.T) {
	for _, tc := range []struct{ size, rows int }{{2, 2}, {4, 8}, {8, 22}, {16, 240}} {
		nb := 0
		for 1<<nb < tc.size {
			nb++
		}
		for k := range tc.size {
			p := gadgettest.NewProver()
			bits := make([]boolean.Boolean, nb)
			for i := range bits {
				bits[i] = boolean.Is(boolean.Alloc(p, (k>>i)&1 == 1))
			}
			elem := num.Alloc(p, gadgettest.Fr(1000))
			others := make([]num.AllocatedNum, tc.size-1)
			for i := range others {
				others[i] = num.Alloc(p, gadgettest.Fr(uint64(i+1)))
			}
			before := p.NumConstraints()
			out, err := Insert(p, elem, bits, others)
			if err != nil {
				t.Fatal(err)
			}
			if rows := p.NumConstraints() - before; rows != tc.rows {
				t.Fatalf("size %d: %d rows, want %d", tc.size, rows, tc.rows)
			}
			for pos, o := range out {
				var want fr.Element
				switch {
				case pos < k:
					want = others[pos].Value
				case pos == k:
					want = elem.Value
				default:
					want = others[pos-1].Value
				}
				if !o.Value.Equal(&want) || !p.Aux[o.Var.Index()].Equal(&want) {
					t.Fatalf("size %d index %d: position %d wrong", tc.size, k, pos)
				}
			}
			if row := p.IsSatisfied(); row != -1 {
				t.Fatalf("size %d index %d: unsatisfied at %d", tc.size, k, row)
			}
		}
	}
	p := gadgettest.NewProver()
	e := num.Alloc(p, gadgettest.Fr(1))
	if _, err := Insert(p, e, []boolean.Boolean{boolean.Constant(true)}, make([]num.AllocatedNum, 3)); !errors.Is(err, ErrInsert) {
		t.Errorf("1 bit for 4 positions: %v", err)
	}
	cbits := []boolean.Boolean{boolean.Constant(true), boolean.Constant(false), boolean.Constant(false)}
	if _, err := Insert(p, e, cbits, make([]num.AllocatedNum, 7)); !errors.Is(err, ErrInsert) {
		t.Errorf("insert_8 with constant bits: %v", err)
	}
}

// TestNoChallengeInput proves an 8-8-0 path with caller-allocated bits.
func TestNoChallengeInput(t *testing.T) {
	c := porCases[1]
	tree := buildTree(t, c)
	const challenge = 301
	proof, err := tree.Prove(challenge)
	if err != nil {
		t.Fatal(err)
	}
	path, leaf, root, err := PathFromProof(proof)
	if err != nil {
		t.Fatal(err)
	}
	for _, wrongRoot := range []bool{false, true} {
		p := gadgettest.NewProver()
		nbits := 9
		bits := make([]boolean.AllocatedBit, nbits)
		for i := range bits {
			bits[i] = boolean.Alloc(p, (challenge>>i)&1 == 1)
		}
		l := num.Alloc(p, leaf)
		sib := make([][]num.AllocatedNum, len(path))
		for lv, e := range path {
			for _, s := range e.Siblings {
				sib[lv] = append(sib[lv], num.Alloc(p, s))
			}
		}
		r := root
		if wrongRoot {
			r.SetUint64(3)
		}
		rv := num.Alloc(p, r)
		if err := NoChallengeInput(p, Poseidon{}, bits, l, sib, rv); err != nil {
			t.Fatal(err)
		}
		if sat := p.IsSatisfied() == -1; sat == wrongRoot {
			t.Errorf("wrong root %v: satisfied %v", wrongRoot, sat)
		}
		if err := NoChallengeInput(p, Poseidon{}, bits[:8], l, sib, rv); !errors.Is(err, ErrPath) {
			t.Errorf("8 bits for a 9-bit path: %v", err)
		}
	}
}

func BenchmarkPoRSynthesize(b *testing.B) {
	for _, c := range porCases[:3] {
		tree := buildTree(b, c)
		proof, err := tree.Prove(c.leaves / 2)
		if err != nil {
			b.Fatal(err)
		}
		circ, err := NewPoRCircuit(c.h, proof, false)
		if err != nil {
			b.Fatal(err)
		}
		name := c.shape.String()
		b.Run("prover/"+name, func(b *testing.B) {
			rows := 0
			for b.Loop() {
				p := gadgettest.NewProver()
				if err := circ.Synthesize(p); err != nil {
					b.Fatal(err)
				}
				rows += p.NumConstraints()
			}
			b.ReportMetric(float64(rows)/b.Elapsed().Seconds(), "constraints/s")
		})
		b.Run("witness/"+name, func(b *testing.B) {
			rows := 0
			for b.Loop() {
				w := &r1cs.WitnessAssignment{}
				w.AllocInput(fr.One())
				if err := circ.Synthesize(w); err != nil {
					b.Fatal(err)
				}
				rows += w.Constraints
			}
			b.ReportMetric(float64(rows)/b.Elapsed().Seconds(), "constraints/s")
		})
	}
}

// TestPoREveryVariableConstrained flips each aux variable of an 8-0-0 proof
// (leaf, index bits, siblings, picks, hash intermediates, root) and expects
// a violated row each time.
func TestPoREveryVariableConstrained(t *testing.T) {
	if testing.Short() {
		t.Skip("1k re-evaluations of the system")
	}
	c := porCases[0]
	proof, err := buildTree(t, c).Prove(45)
	if err != nil {
		t.Fatal(err)
	}
	circ, err := NewPoRCircuit(c.h, proof, false)
	if err != nil {
		t.Fatal(err)
	}
	r := gadgettest.NewRecorder()
	if err := circ.Synthesize(r); err != nil {
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

// TestPoRWitnessAgreement: the witness-only system allocates the same
// values as the prover.
func TestPoRWitnessAgreement(t *testing.T) {
	c := porCases[2]
	proof, err := buildTree(t, c).Prove(500)
	if err != nil {
		t.Fatal(err)
	}
	circ, err := NewPoRCircuit(c.h, proof, false)
	if err != nil {
		t.Fatal(err)
	}
	p := gadgettest.NewProver()
	w := &r1cs.WitnessAssignment{}
	w.AllocInput(fr.One())
	if err := circ.Synthesize(p); err != nil {
		t.Fatal(err)
	}
	if err := circ.Synthesize(w); err != nil {
		t.Fatal(err)
	}
	if len(w.Aux) != len(p.Aux) || len(w.Input) != len(p.Input) || w.Constraints != p.NumConstraints() {
		t.Fatalf("witness %d/%d/%d, prover %d/%d/%d", len(w.Input), len(w.Aux), w.Constraints, len(p.Input), len(p.Aux), p.NumConstraints())
	}
	for i := range w.Aux {
		if !w.Aux[i].Equal(&p.Aux[i]) {
			t.Fatalf("aux %d differs", i)
		}
	}
	for i := range w.Input {
		if !w.Input[i].Equal(&p.Input[i]) {
			t.Fatalf("input %d differs", i)
		}
	}
}
