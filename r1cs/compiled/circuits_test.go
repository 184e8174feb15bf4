package compiled_test

import (
	"context"
	"testing"

	"github.com/cuzk-project/cuzk/circuits/porep"
	"github.com/cuzk-project/cuzk/circuits/post"
	"github.com/cuzk-project/cuzk/circuits/update"
	"github.com/cuzk-project/cuzk/filecoin"
	"github.com/cuzk-project/cuzk/filecoin/gen"
	fpost "github.com/cuzk-project/cuzk/filecoin/post"
	fupdate "github.com/cuzk-project/cuzk/filecoin/update"
	hmerkle "github.com/cuzk-project/cuzk/hash/merkle"
	"github.com/cuzk-project/cuzk/r1cs"
)

// filecoinCircuit is one Filecoin partition circuit with values from a
// generated vanilla proof, and its blank form (what a cache builds from).
type filecoinCircuit struct {
	part, blank r1cs.Circuit
	hint        r1cs.Shape
}

type shaped interface{ Shape() (r1cs.Shape, error) }

func shapeOf(t testing.TB, c shaped) r1cs.Shape {
	t.Helper()
	s, err := c.Shape()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func porepCircuit(t testing.TB, proof filecoin.SealProof) filecoinCircuit {
	t.Helper()
	info, err := proof.Info()
	if err != nil {
		t.Fatal(err)
	}
	pr, err := gen.GeneratePoRep(context.Background(), gen.PoRepOptions{Proof: proof, Seed: 11, Miner: 1000, Sector: 7}, nil)
	if err != nil {
		t.Fatal(err)
	}
	p, err := porep.NewPartition(pr.Output, 0)
	if err != nil {
		t.Fatal(err)
	}
	return filecoinCircuit{part: p, blank: porep.Blank(info), hint: shapeOf(t, porep.ConfigFor(info))}
}

func winningCircuit(t testing.TB, proof fpost.Proof) filecoinCircuit {
	t.Helper()
	w, err := gen.GenerateWinningPoSt(context.Background(), gen.WinningOptions{Proof: proof, Seed: 3, Miner: 1000})
	if err != nil {
		t.Fatal(err)
	}
	v, err := fpost.NewWinning(w.Info, w.Randomness, w.Proof)
	if err != nil {
		t.Fatal(err)
	}
	p, err := post.NewPartition(v)
	if err != nil {
		t.Fatal(err)
	}
	return filecoinCircuit{part: p, blank: post.Blank(w.Info), hint: shapeOf(t, post.ConfigFor(w.Info))}
}

func windowCircuit(t testing.TB, proof fpost.Proof) filecoinCircuit {
	t.Helper()
	w, err := gen.GenerateWindowPoSt(context.Background(), gen.WindowOptions{Proof: proof, Seed: 5, Miner: 1000})
	if err != nil {
		t.Fatal(err)
	}
	v, err := fpost.NewWindow(w.Info, w.Randomness, w.Proofs, w.Partition)
	if err != nil {
		t.Fatal(err)
	}
	p, err := post.NewPartition(v)
	if err != nil {
		t.Fatal(err)
	}
	return filecoinCircuit{part: p, blank: post.Blank(w.Info), hint: shapeOf(t, post.ConfigFor(w.Info))}
}

func snapCircuit(t testing.TB, proof fupdate.Proof) filecoinCircuit {
	t.Helper()
	s, err := gen.GenerateSnap(context.Background(), gen.SnapOptions{Proof: proof, Seed: 11, Miner: 1000, Sector: 3})
	if err != nil {
		t.Fatal(err)
	}
	p, err := update.NewPartition(s.Partition(0))
	if err != nil {
		t.Fatal(err)
	}
	return filecoinCircuit{part: p, blank: update.Blank(s.Info), hint: shapeOf(t, update.ConfigFor(s.Info))}
}

// TestFilecoinCircuits compiles real partition circuits and checks them
// against bellperson's prover assignment, bit for bit; the blank circuit
// must compile to the same system (same digest). The logs give the
// numbers of distinct coefficients.
func TestFilecoinCircuits(t *testing.T) {
	tests := []struct {
		name  string
		c     func(t testing.TB) filecoinCircuit
		short bool
	}{
		{"porep-2KiB", func(t testing.TB) filecoinCircuit { return porepCircuit(t, filecoin.StackedDrg2KiBV1_1) }, false},
		{"porep-8MiB", func(t testing.TB) filecoinCircuit { return porepCircuit(t, filecoin.StackedDrg8MiBV1_1) }, false},
		{"winning-2KiB", func(t testing.TB) filecoinCircuit { return winningCircuit(t, fpost.StackedDrgWinning2KiBV1) }, true},
		{"window-2KiB", func(t testing.TB) filecoinCircuit { return windowCircuit(t, fpost.StackedDrgWindow2KiBV1_1) }, true},
		{"window-8MiB", func(t testing.TB) filecoinCircuit { return windowCircuit(t, fpost.StackedDrgWindow8MiBV1_1) }, false},
		{"snap-2KiB", func(t testing.TB) filecoinCircuit { return snapCircuit(t, fupdate.StackedDrg2KiBV1) }, false},
		{"snap-8MiB", func(t testing.TB) filecoinCircuit { return snapCircuit(t, fupdate.StackedDrg8MiBV1) }, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if !tc.short && testing.Short() {
				t.Skip("run without -short")
			}
			fc := tc.c(t)
			s := compile(t, fc.part, fc.hint)
			if s.Shape() != fc.hint {
				t.Errorf("shape %+v, circuit's %+v", s.Shape(), fc.hint)
			}
			checkAgainstProver(t, s, witnessOf(t, fc.part, fc.hint), proverOf(t, fc.part, fc.hint))
			if b := compile(t, fc.blank, fc.hint); b.Digest != s.Digest {
				t.Errorf("blank circuit digest %x, partition's %x", b.Digest, s.Digest)
			}
			t.Logf("%d rows, %d inputs, %d aux; nnz A/B/C %d/%d/%d; %d distinct coefficients",
				s.NumConstraints, s.NumInputs, s.NumAux, s.A.NNZ(), s.B.NNZ(), s.C.NNZ(), len(s.Coeffs))
		})
	}
}

// TestCoefficientCounts compiles blank circuits of the shapes the 32 GiB
// proofs use (or small circuits with their gadgets, where the real one is
// too large here) and logs their distinct coefficients against MaxCoeffs.
func TestCoefficientCounts(t *testing.T) {
	if testing.Short() {
		t.Skip("run without -short")
	}
	s88 := hmerkle.Shape{Base: 8, Sub: 8}
	tests := []struct {
		name string
		c    r1cs.Circuit
	}{
		// The 32 GiB partition's gadgets (11-layer columns, 8-8 trees) with
		// one challenge over 512 nodes.
		{"porep-32GiB-gadgets", porep.BlankConfig(porep.Config{Nodes: 512, Layers: 11, TreeDLevels: 9, TreeR: s88, Challenges: 1})},
		{"winning-32GiB", post.BlankConfig(post.WinningConfig(1<<30, s88))},
		// WindowPoSt 32 GiB: its 2349 sectors as 2, same gadgets.
		{"window-32GiB-gadgets", post.BlankConfig(post.Config{Nodes: 1 << 30, TreeR: s88, Sectors: 2, Challenges: post.WindowChallenges})},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := compile(t, tc.c, r1cs.Shape{})
			t.Logf("%d rows; %d distinct coefficients (limit %d)", s.NumConstraints, len(s.Coeffs), 1<<16)
		})
	}
}
