package post

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-project/cuzk/circuits/internal/circuittest"
	"github.com/cuzk-project/cuzk/filecoin/gen"
	fpost "github.com/cuzk-project/cuzk/filecoin/post"
	"github.com/cuzk-project/cuzk/r1cs"
)

// TestConfigFor checks the registered proofs' circuits against the
// constructors the counts are checked with.
func TestConfigFor(t *testing.T) {
	for _, p := range fpost.Proofs() {
		info, err := p.Info()
		if err != nil {
			t.Fatal(err)
		}
		want := WindowConfig(info.Nodes, info.TreeR)
		if info.Winning {
			want = WinningConfig(info.Nodes, info.TreeR)
		}
		if got := ConfigFor(info); got != want {
			t.Errorf("%v: ConfigFor = %+v, want %+v", p, got, want)
		}
	}
}

// checkGenerated synthesizes v's circuit and checks it is satisfied and
// allocates the inputs want (ONE excluded); then that changing comm_c of
// the last given sector breaks it.
func checkGenerated(t *testing.T, v *fpost.Partition, want []fr.Element) {
	t.Helper()
	if err := v.Verify(); err != nil {
		t.Fatal(err)
	}
	if native := v.PublicInputs(); len(native) != len(want) {
		t.Fatalf("partition PublicInputs %d, verifier's %d", len(native), len(want))
	} else {
		for i := range want {
			if !native[i].Equal(&want[i]) {
				t.Fatalf("partition PublicInputs[%d] differs from the verifier's", i)
			}
		}
	}
	p, err := NewPartition(v)
	if err != nil {
		t.Fatal(err)
	}
	shape, err := p.Config.Shape()
	if err != nil {
		t.Fatal(err)
	}
	var inputs []fr.Element
	if shape.Constraints < 1<<24 {
		pa, err := p.Assign(4)
		if err != nil {
			t.Fatal(err)
		}
		if row := pa.IsSatisfied(); row >= 0 {
			t.Fatalf("row %d of %d not satisfied", row, pa.NumConstraints())
		}
		inputs = pa.Input
	} else { // a 32 GiB WindowPoSt: the witness alone, 4 GB instead of 16
		start := time.Now()
		c := r1cs.NewChecker(shape)
		if err := r1cs.Synthesize(c, p); err != nil {
			t.Fatal(err)
		}
		if !c.Satisfied() {
			t.Fatalf("row %d of %d not satisfied", c.FirstUnsatisfied(), c.NumConstraints())
		}
		t.Logf("%d rows checked in %v", c.NumConstraints(), time.Since(start).Round(time.Second))
		inputs = c.Input
	}
	circuittest.Inputs(t, inputs, want)
	if shape.Constraints >= 1<<24 {
		return // the tampered check would take as long again
	}
	p.Sectors[len(p.Sectors)-1].CommC.SetUint64(7)
	circuittest.Tampered(t, p)
}

func TestGeneratedWinning(t *testing.T) {
	for _, tc := range []struct {
		proof fpost.Proof
		large bool
	}{
		{fpost.StackedDrgWinning2KiBV1, false},
		{fpost.StackedDrgWinning8MiBV1, true},
		{fpost.StackedDrgWinning32GiBV1, true},
		{fpost.StackedDrgWinning64GiBV1, true},
	} {
		t.Run(tc.proof.String(), func(t *testing.T) {
			if tc.large && testing.Short() {
				t.Skip("run without -short")
			}
			w, err := gen.GenerateWinningPoSt(context.Background(), gen.WinningOptions{Proof: tc.proof, Seed: 3, Miner: 1000})
			if err != nil {
				t.Fatal(err)
			}
			v, err := fpost.NewWinning(w.Info, w.Randomness, w.Proof)
			if err != nil {
				t.Fatal(err)
			}
			_, want, err := w.Public.PublicInputs()
			if err != nil {
				t.Fatal(err)
			}
			checkGenerated(t, v, want)
		})
	}
}

func TestGeneratedWindow(t *testing.T) {
	for _, tc := range []struct {
		name      string
		proof     fpost.Proof
		sectors   []uint64
		partition int
		large     bool
	}{
		// Partition 1 of three sectors: one given, one repeat.
		{"2KiB-V1_1-partition-1-padded", fpost.StackedDrgWindow2KiBV1_1, []uint64{4, 9, 12}, 1, false},
		{"2KiB-V1-partition-1-padded", fpost.StackedDrgWindow2KiBV1, []uint64{4, 9, 12}, 1, false},
		{"2KiB-V1_1-partition-0", fpost.StackedDrgWindow2KiBV1_1, nil, 0, false},
		{"8MiB-V1_1-partition-2", fpost.StackedDrgWindow8MiBV1_1, nil, 2, true},
		// Sectors 1 … 2351: partition 1 has two, repeated to 2349.
		{"32GiB-V1_1-partition-1-padded", fpost.StackedDrgWindow32GiBV1_1, sectorRange(1, 2351), 1, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.large && testing.Short() {
				t.Skip("run without -short")
			}
			w, err := gen.GenerateWindowPoSt(context.Background(), gen.WindowOptions{
				Proof: tc.proof, Seed: 5, Miner: 1000, Sectors: tc.sectors, Partition: tc.partition})
			if err != nil {
				t.Fatal(err)
			}
			v, err := fpost.NewWindow(w.Info, w.Randomness, w.Proofs, w.Partition)
			if err != nil {
				t.Fatal(err)
			}
			_, all, err := w.Public.PublicInputs()
			if err != nil {
				t.Fatal(err)
			}
			checkGenerated(t, v, all[tc.partition])
		})
	}
}

func sectorRange(from, to uint64) []uint64 {
	var s []uint64
	for n := from; n <= to; n++ {
		s = append(s, n)
	}
	return s
}

// generatedWindow2K generates a 2 KiB WindowPoSt partition from seed and
// returns a function that builds a fresh vanilla partition of it, for a
// test to edit.
func generatedWindow2K(t *testing.T, seed uint64) func() *fpost.Partition {
	t.Helper()
	w, err := gen.GenerateWindowPoSt(context.Background(), gen.WindowOptions{Proof: fpost.StackedDrgWindow2KiBV1_1, Seed: seed, Miner: 1000})
	if err != nil {
		t.Fatal(err)
	}
	return func() *fpost.Partition {
		v, err := fpost.NewWindow(w.Info, w.Randomness, w.Proofs, w.Partition)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
}

// TestNewPartitionErrors feeds NewPartition vanilla partitions that do not
// fit the circuit.
func TestNewPartitionErrors(t *testing.T) {
	fresh := generatedWindow2K(t, 7)
	for _, tc := range []struct {
		name string
		f    func(v *fpost.Partition)
		want string
	}{
		{"no sectors", func(v *fpost.Partition) { v.Given = 0 }, "0 given sectors"},
		{"wrong challenge", func(v *fpost.Partition) {
			v.Challenges[1] = append([]uint64{v.Challenges[1][0] ^ 1}, v.Challenges[1][1:]...)
		}, "challenged leaf"},
		{"missing opening", func(v *fpost.Partition) { v.Sectors[0].Inclusion = v.Sectors[0].Inclusion[:9] }, "9 openings"},
		{"non-canonical comm_c", func(v *fpost.Partition) { v.Sectors[0].CommC[31] = 0xff }, "comm_c"},
		{"short path", func(v *fpost.Partition) {
			s := &v.Sectors[1]
			incl := append(s.Inclusion[:0:0], s.Inclusion...)
			incl[3].Base = incl[3].Base[:1]
			s.Inclusion = incl
		}, "challenge 3"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := fresh()
			tc.f(v)
			_, err := NewPartition(v)
			if !errors.Is(err, fpost.ErrBadVanillaProof) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want ErrBadVanillaProof mentioning %q", err, tc.want)
			}
		})
	}
}
