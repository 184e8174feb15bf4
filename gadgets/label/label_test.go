package label_test

import (
	"errors"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-project/cuzk/gadgets/boolean"
	"github.com/cuzk-project/cuzk/gadgets/internal/gadgettest"
	"github.com/cuzk-project/cuzk/gadgets/label"
	"github.com/cuzk-project/cuzk/gadgets/num"
	u32 "github.com/cuzk-project/cuzk/gadgets/uint32"
	u64 "github.com/cuzk-project/cuzk/gadgets/uint64"
	"github.com/cuzk-project/cuzk/r1cs"
)

// fixture returns a replica id and 37 parents built as the reference test
// does (14 distinct labels repeated 14 + 14 + 9), all canonical field
// elements.
func fixture() (id [32]byte, parents [][32]byte) {
	seed := uint64(0x9e3779b97f4a7c15)
	next := func() byte { seed ^= seed << 13; seed ^= seed >> 7; seed ^= seed << 17; return byte(seed) }
	for i := range id {
		id[i] = next()
	}
	id[31] &= 0x3f
	raw := make([][32]byte, 14)
	for j := range raw {
		for i := range raw[j] {
			raw[j][i] = next()
		}
		raw[j][31] &= 0x3f
	}
	parents = append(append(append(parents, raw...), raw...), raw[:9]...)
	return id, parents
}

// synthesize lays the circuit out as storage-proofs-porep's test_create_label:
// parent bits first (bytes_into_boolean_vec_be, in parent order), then the
// replica id bits, a constant layer and node, then create_label_circuit.
func synthesize(t testing.TB, cs r1cs.ConstraintSystem, id [32]byte, parents [][32]byte, layer uint32, node uint64) fr.Element {
	pbits := make([][]boolean.Boolean, len(parents))
	for i, p := range parents {
		pbits[i] = boolean.BytesIntoBooleanVecBE(cs, p[:])
	}
	idBits := boolean.BytesIntoBooleanVecBE(cs, id[:])
	out, err := label.Circuit(cs, idBits, pbits, u32.Constant(layer), u64.Constant(node))
	if err != nil {
		t.Fatal(err)
	}
	return out.Value
}

func TestLabelConstraintCount(t *testing.T) {
	id, parents := fixture()
	var c r1cs.Counter
	c.AllocInput(gadgettest.Fr(1))
	synthesize(t, &c, id, parents, 3, 22)
	if c.Constraints != 532025 {
		t.Fatalf("create_label: %d constraints, want 532,025", c.Constraints)
	}
}

func TestLabelMatchesNative(t *testing.T) {
	if testing.Short() {
		t.Skip("full label synthesis with a prover assignment (~1 s)")
	}
	id, parents := fixture()
	p := gadgettest.NewProver()
	got := synthesize(t, p, id, parents, 3, 22)
	want, err := label.Native(id, 3, 22, parents)
	if err != nil {
		t.Fatal(err)
	}
	wantF, err := label.ToField(want)
	if err != nil {
		t.Fatal(err)
	}
	if !got.Equal(&wantF) {
		t.Fatalf("circuit label %s, native %s", got.String(), wantF.String())
	}
	if row := p.IsSatisfied(); row != -1 {
		t.Fatalf("unsatisfied at row %d", row)
	}
	// The witness-only path gives the same assignment and row count.
	w := &r1cs.WitnessAssignment{}
	w.AllocInput(one)
	if wv := synthesize(t, w, id, parents, 3, 22); !wv.Equal(&got) || w.NumConstraints() != p.NumConstraints() || len(w.Aux) != len(p.Aux) {
		t.Fatalf("witness path: %d rows, %d aux; prover %d rows, %d aux", w.NumConstraints(), len(w.Aux), p.NumConstraints(), len(p.Aux))
	}
	for i := range w.Aux {
		if !w.Aux[i].Equal(&p.Aux[i]) {
			t.Fatalf("witness path: aux %d differs", i)
		}
	}
	// A wrong witness: flip one parent bit (aux 1000) under the prover.
	tp := gadgettest.NewProver()
	synthesize(t, &gadgettest.Tamper{ConstraintSystem: tp, Index: 1000, Value: gadgettest.Fr(2)}, id, parents, 3, 22)
	if tp.IsSatisfied() == -1 {
		t.Fatal("tampered witness satisfies")
	}
}

func TestLabelBadInput(t *testing.T) {
	r := gadgettest.NewRecorder()
	_, err := label.Circuit(r, make([]boolean.Boolean, 256), make([][]boolean.Boolean, 36), u32.Constant(1), u64.Constant(1))
	if !errors.Is(err, label.ErrBadPreimage) {
		t.Fatalf("36 parents: %v", err)
	}
	_, err = label.Circuit(r, make([]boolean.Boolean, 8), make([][]boolean.Boolean, 37), u32.Constant(1), u64.Constant(1))
	if !errors.Is(err, label.ErrBadPreimage) {
		t.Fatalf("8-bit replica id: %v", err)
	}
	if _, err := label.Native([32]byte{}, 1, 1, nil); !errors.Is(err, label.ErrBadPreimage) {
		t.Fatalf("native without parents: %v", err)
	}
}

type fr0 = fr.Element

var one = func() fr.Element { var e fr.Element; e.SetOne(); return e }()

// The PoRep circuit feeds parents as numbers: to_bits_le then
// reverse_bit_numbering. The label must be the same.
func TestLabelFromNumbers(t *testing.T) {
	if testing.Short() {
		t.Skip("full label synthesis (~1 s)")
	}
	id, parents := fixture()
	p := gadgettest.NewProver()
	idF, err := label.ToField(id)
	if err != nil {
		t.Fatal(err)
	}
	idBits := label.DomainBits(p, num.Alloc(p, idF))
	pbits := make([][]boolean.Boolean, len(parents))
	for i, par := range parents {
		f, err := label.ToField(par)
		if err != nil {
			t.Fatal(err)
		}
		pbits[i] = label.DomainBits(p, num.Alloc(p, f))
	}
	out, err := label.Circuit(p, idBits, pbits, u32.Constant(1), u64.Alloc(p, 1<<40+5))
	if err != nil {
		t.Fatal(err)
	}
	want, _ := label.Native(id, 1, 1<<40+5, parents)
	wantF, _ := label.ToField(want)
	if !out.Value.Equal(&wantF) || p.IsSatisfied() != -1 {
		t.Fatal("label from numbers: mismatch or unsatisfied")
	}
}

// labelFingerprint pins the exact R1CS and witness of the reference test's
// layout (see gadgets/sha256's nodeFingerprint for what such a pin is and
// is not). Recorded by this implementation.
const labelFingerprint = "26cf1d61a4ff65e22bb10187cc4859bc8d156246b2ed8f1d95de2cbc32dea620"

func TestLabelFingerprint(t *testing.T) {
	if testing.Short() {
		t.Skip("hashes the whole 532,025-row system")
	}
	id, parents := fixture()
	f := gadgettest.NewFingerprint()
	synthesize(t, f, id, parents, 3, 22)
	if got := f.Sum(); got != labelFingerprint {
		t.Fatalf("R1CS fingerprint %s (%d rows, %d aux), pinned %s", got, f.Constraints, f.Aux, labelFingerprint)
	}
}
