package cuda

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"unsafe"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-project/cuzk/circuits/synthetic"
	"github.com/cuzk-project/cuzk/device/cpu"
	"github.com/cuzk-project/cuzk/groth16"
	"github.com/cuzk-project/cuzk/r1cs"
	"github.com/cuzk-project/cuzk/r1cs/compiled"
)

// hostDevice is a Device whose pinned pool hands out Go memory: enough for
// the staging, which needs no GPU.
func hostDevice(tasks int) *Device {
	d := &Device{Tasks: tasks}
	d.pool.alloc = func(n uint64) (pinned, error) {
		w := make([]uint64, max(n, 64)/8+1)
		return pinned{unsafe.Pointer(&w[0]), n}, nil
	}
	d.pool.release = func(pinned) {}
	return d
}

// mixedAux is n values, the share others of them neither 0 nor 1 (the
// rest half 0, half 1).
func mixedAux(r *rand.Rand, n int, others float64) []fr.Element {
	v := randFr(r, n)
	for i := range v {
		if r.Float64() >= others {
			v[i].SetZero()
			if r.IntN(2) == 1 {
				v[i].SetOne()
			}
		}
	}
	return v
}

// stagedAux reads the aux values back from a staging, dense or compact.
func stagedAux(t *testing.T, s *staged) []fr.Element {
	t.Helper()
	n := int(s.w.NAux)
	if s.w.Aux != nil {
		return slices.Clone(unsafe.Slice((*fr.Element)(s.w.Aux), n))
	}
	nw := (n + 31) / 32
	c := &compiled.Compact{N: n, Small: unsafe.Slice((*uint32)(s.w.Small), nw),
		Ones: unsafe.Slice((*uint32)(s.w.Ones), nw), Others: unsafe.Slice((*fr.Element)(s.w.Others), s.w.NOthers)}
	out := make([]fr.Element, n)
	if err := c.Expand(out); err != nil {
		t.Fatalf("the staged compact form: %v", err)
	}
	return out
}

// TestStage: a witness-only aux is staged compact, computed into buffers
// of exactly its size, where others are at most 60 % of it (compactMaxOthers), dense
// otherwise and where the caller passes dense on purpose; a compact form
// given is copied. Input is dense. No GPU: the pool hands out Go memory.
func TestStage(t *testing.T) {
	r := rand.New(rand.NewPCG(51, 52))
	const n = 3*(1<<16) + 45 // several ranges of the compaction, the last word partial
	porep := mixedAux(r, n, 0.25)
	for _, tc := range []struct {
		name        string
		aux         []fr.Element
		given       bool // a Compact given (RunWitnessCompact)
		compress    bool
		wantCompact bool
	}{
		{"porep-like: compact", porep, false, true, true},
		{"about 55 % others: compact", mixedAux(r, 1000, 0.55), false, true, true},
		{"mostly others: dense", mixedAux(r, n, 0.7), false, true, false},
		{"dense on purpose", porep, false, false, false},
		{"compact given", porep, true, false, true},
		{"empty aux", nil, false, true, true},
		{"31 values", mixedAux(r, 31, 0.25), false, true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, tasks := range []int{1, 3} {
				d := hostDevice(tasks)
				input := randFr(r, 5)
				var c *Compact
				if tc.given {
					c = compactOf(tc.aux)
				}
				s, err := d.stage(input, tc.aux, c, tc.compress, 17)
				if err != nil {
					t.Fatal(err)
				}
				if s.w.Lgn != 17 || s.w.NInput != 5 || int(s.w.NAux) != len(tc.aux) {
					t.Fatalf("lgn %d, %d inputs, %d aux", s.w.Lgn, s.w.NInput, s.w.NAux)
				}
				if got := unsafe.Slice((*fr.Element)(s.w.Input), 5); !slices.Equal(got, input) {
					t.Fatal("the staged input differs")
				}
				if compact := s.w.Aux == nil; compact != tc.wantCompact {
					t.Fatalf("compact %v, want %v", compact, tc.wantCompact)
				}
				if i := firstDiff(stagedAux(t, s), tc.aux); i >= 0 && len(tc.aux) > 0 {
					t.Fatalf("aux value %d differs", i)
				}
				nothers := 0
				for i := range tc.aux {
					if !tc.aux[i].IsZero() && !tc.aux[i].IsOne() {
						nothers++
					}
				}
				// the pool was empty: every buffer has the size asked for
				want := uint64((5 + len(tc.aux)) * 32)
				if tc.wantCompact {
					want = uint64(5*32 + 2*((len(tc.aux)+31)/32)*4 + 8 + nothers*32)
					if int(s.w.NOthers) != nothers {
						t.Fatalf("%d others staged, want %d", s.w.NOthers, nothers)
					}
				}
				if s.bytes() != want {
					t.Fatalf("staging of %d bytes, want %d", s.bytes(), want)
				}
				if wantOthers := nothers; (tc.compress || tc.given) && s.others != wantOthers {
					t.Fatalf("others counted %d, want %d", s.others, wantOthers)
				}
				if !tc.compress && !tc.given && s.others != -1 {
					t.Fatalf("others %d for a dense aux given as such, want -1", s.others)
				}
				s.release(d)
				if s.bufs != nil {
					t.Fatal("release kept the buffers")
				}
			}
		})
	}
}

// TestBSplitBytes: the bound on readBSplit's buffers.
func TestBSplitBytes(t *testing.T) {
	for _, tc := range []struct {
		nb, ninput, others int
		want               uint64
	}{
		{100, 2, -1, 4*4 + 4 + 100*36 + 36}, // others not counted: every base
		{100, 2, 10, 4*4 + 4 + 12*36 + 36},
		{100, 2, 1000, 4*4 + 4 + 100*36 + 36},
		{0, 0, 0, 4 + 36},
	} {
		if got := bSplitBytes(tc.nb, tc.ninput, tc.others); got != tc.want {
			t.Errorf("bSplitBytes(%d, %d, %d) = %d, want %d", tc.nb, tc.ninput, tc.others, got, tc.want)
		}
	}
}

// TestWitnessStagedProve: witness-only assignments through Prepare, Run
// and Finish as the engine drives them: after Prepare the aux is dropped
// (groth16.Assignment.ReleaseWitness) and the sums still equal the CPU
// device's; the aux was staged compact where others are at most 60 % of
// it, dense otherwise; the staging reports what it holds, less than the
// dense witness where compact. Twice per circuit: the second staging
// reuses the first's pinned buffers, not cleared.
func TestWitnessStagedProve(t *testing.T) {
	d := gpu(t)
	ctx := context.Background()
	cd := cpu.New(0)
	forms := map[bool]int{} // staged compact: how many circuits
	for _, tc := range []struct{ cfg synthetic.Config }{
		{synthetic.Default(3000)},
		{synthetic.Config{Constraints: 2000, Inputs: 4, BoolFraction: 1, ADensity: 0.5, BDensity: 0.5, Seed: 21}},
		{synthetic.Config{Constraints: 2000, Inputs: 4, BoolFraction: 0.1, ADensity: 1, BDensity: 0.5, Seed: 22}},
	} {
		t.Run(fmt.Sprintf("bool=%.2f", tc.cfg.BoolFraction), func(t *testing.T) {
			c, err := synthetic.New(tc.cfg)
			if err != nil {
				t.Fatal(err)
			}
			p, err := groth16.Setup(c, []byte(fmt.Sprint("staged witness ", tc.cfg.Seed)))
			if err != nil {
				t.Fatal(err)
			}
			defer d.Release(p)
			a, err := groth16.Synthesize(c, r1cs.Shape{})
			if err != nil {
				t.Fatal(err)
			}
			want, err := groth16.Compute(ctx, cd, a, p)
			if err != nil {
				t.Fatal(err)
			}
			sys, err := compiled.Compile(c, r1cs.Shape{})
			if err != nil {
				t.Fatal(err)
			}
			defer sys.Close()
			for run := range 2 {
				aw := witnessOnly(t, c, sys)
				naux := len(aw.Aux) // (ReleaseWitness drops them below)
				dense := uint64(len(aw.Input)+len(aw.Aux)) * 32
				others := 0
				for i := range aw.Aux {
					if !aw.Aux[i].IsZero() && !aw.Aux[i].IsOne() {
						others++
					}
				}
				wantCompact := float64(others) <= compactMaxOthers*float64(len(aw.Aux))
				if run == 0 {
					forms[wantCompact]++
				}
				pw, err := d.Prepare(ctx, aw, p)
				if err != nil {
					t.Fatal(err)
				}
				wp, ok := pw.(*witnessPrepared)
				if !ok {
					t.Fatalf("Prepare took the classic path (%T)", pw)
				}
				if compact := wp.st.w.Aux == nil; compact != wantCompact || wp.st.others != others {
					t.Errorf("run %d: staged compact %v, want %v (%d others of %d counted, %d are)", run, compact,
						wantCompact, wp.st.others, len(aw.Aux), others)
				}
				held, staging, stagedOthers := wp.StagedBytes(), wp.st.bytes(), wp.st.others // (Finish takes the staging)
				if held < staging || (wantCompact && staging >= dense) {
					t.Errorf("run %d: holds %d bytes, staging %d, dense witness %d", run, held, staging, dense)
				}
				aw.ReleaseWitness()
				pr, err := d.Run(ctx, pw)
				if err != nil {
					t.Fatal(err)
				}
				got, err := d.Finish(ctx, pr)
				if err != nil {
					t.Fatal(err)
				}
				if bad := sumsDiffer(got, want); len(bad) > 0 {
					t.Errorf("run %d: %v differ from the CPU device", run, bad)
				}
				t.Logf("run %d: %d aux, %d others, staging %d bytes (dense %d), held until Finish %d", run,
					naux, stagedOthers, staging, dense, held)
			}
			d.pool.mu.Lock()
			kept := d.pool.kept
			d.pool.mu.Unlock()
			if kept > DefaultPinnedKeep {
				t.Errorf("the pool keeps %d bytes, above its cap", kept)
			}
		})
	}
	if forms[true] == 0 || forms[false] == 0 {
		t.Errorf("circuits staged compact and dense: %v; the test needs both", forms)
	}
}
