package cuda

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/cuzk-project/cuzk/circuits/synthetic"
	"github.com/cuzk-project/cuzk/device/cpu"
	"github.com/cuzk-project/cuzk/groth16"
	"github.com/cuzk-project/cuzk/r1cs"
)

// TestDeferredParams: parameters opened with their queries left in the file
// are read straight into device memory (chunks of fillChunk points, so a
// 1.2 M-point set crosses chunk boundaries in every query when not short);
// the sums equal the CPU device's on the decoded file and the proof
// verifies. Under a limit that would stream, Retain refuses with
// ErrDoesNotFit and ParamsLoader falls back to a decoded copy; unload
// frees the device's copy.
func TestDeferredParams(t *testing.T) {
	if !Available() {
		t.Skip(skipReason())
	}
	n := 5000
	if !testing.Short() {
		n = fillChunk + 1000 // h, l, a longer than one chunk
	}
	c, err := synthetic.New(synthetic.Config{Constraints: n, Inputs: 4, BoolFraction: 0.75, ADensity: 1, BDensity: 0.25, Seed: 21})
	if err != nil {
		t.Fatal(err)
	}
	p, err := groth16.Setup(c, []byte("deferred params"))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "d.params")
	if err := groth16.WriteParams(path, p); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	a, err := groth16.Synthesize(c, r1cs.Shape{})
	if err != nil {
		t.Fatal(err)
	}
	want, err := groth16.Compute(ctx, cpu.New(0), a, p)
	if err != nil {
		t.Fatal(err)
	}

	pd, err := groth16.OpenParams(path, groth16.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	d := gpu(t)
	if !FitWhole([]*Device{d}, pd) {
		t.Fatal("FitWhole: the set does not fit a whole GPU")
	}
	tiny := gpu(t)
	tiny.MemoryLimit = 1 << 20
	if FitWhole([]*Device{d, tiny}, pd) {
		t.Fatal("FitWhole: the set fits under a 1 MiB limit")
	}
	if err := d.Retain(pd); err != nil {
		t.Fatal(err)
	}
	if plan, _ := d.Plan(pd); plan.Streams() || plan.BG2Bytes == 0 {
		t.Fatalf("deferred parameters resident with plan %+v: want everything, B_G2 included", plan)
	}
	a, _ = groth16.Synthesize(c, r1cs.Shape{})
	got, err := groth16.Compute(ctx, d, a, pd)
	if err != nil {
		t.Fatal(err)
	}
	if diff := sumsDiffer(got, want); diff != nil {
		t.Fatalf("sums from the file-filled set differ from the CPU device's: %v", diff)
	}
	pvk, err := groth16.PrepareVerifyingKey(&pd.VK)
	if err != nil {
		t.Fatal(err)
	}
	proof, inputs, err := groth16.Prove(ctx, d, pd, c, rand.NewChaCha8([32]byte{5}))
	if err != nil {
		t.Fatal(err)
	}
	if err := groth16.Verify(pvk, &proof, inputs); err != nil {
		t.Fatalf("proof from deferred parameters does not verify: %v", err)
	}
	d.Release(pd)
	if _, ok := d.Plan(pd); ok {
		t.Fatal("the set is still resident after its last Release")
	}

	// A limit under which the queries would stream.
	small := limited(t, 8, func(min, all uint64) uint64 { return min + (all-min)/3 })
	pd2, err := groth16.OpenParams(path, groth16.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := small.Retain(pd2); !errors.Is(err, ErrDoesNotFit) {
		t.Fatalf("Retain of deferred parameters under a streaming limit: %v, want ErrDoesNotFit", err)
	}
	if _, ok := small.Plan(pd2); ok {
		t.Fatal("a refused set stayed resident")
	}

	for _, tc := range []struct {
		name     string
		dev      *Device
		deferred bool
	}{{"whole", d, true}, {"streaming", small, false}} {
		t.Run("loader/"+tc.name, func(t *testing.T) {
			load, unload := ParamsLoader([]*Device{tc.dev}, groth16.ReadOptions{}, nil)
			lp, err := load(ctx, "test", path)
			if err != nil {
				t.Fatal(err)
			}
			if (lp.Deferred != nil) != tc.deferred {
				t.Fatalf("loaded parameters deferred = %v, want %v", lp.Deferred != nil, tc.deferred)
			}
			a, _ := groth16.Synthesize(c, r1cs.Shape{})
			got, err := groth16.Compute(ctx, tc.dev, a, lp)
			if err != nil {
				t.Fatal(err)
			}
			if diff := sumsDiffer(got, want); diff != nil {
				t.Fatalf("sums differ from the CPU device's: %v", diff)
			}
			unload("test", lp)
			if _, ok := tc.dev.Plan(lp); ok {
				t.Fatal("unload left the set resident")
			}
		})
	}

	// The CPU device refuses deferred parameters by name.
	a, _ = groth16.Synthesize(c, r1cs.Shape{})
	if _, err := cpu.New(0).Prepare(ctx, a, pd); !errors.Is(err, groth16.ErrDeferred) {
		t.Fatalf("cpu Prepare of deferred parameters: %v, want ErrDeferred", err)
	}
}

// TestRetainMakingRoom: a set that does not fit whole is tried again after
// each set MakeRoom evicted, until it fits or nothing is left to evict; any
// other failure is not retried (no GPU needed).
func TestRetainMakingRoom(t *testing.T) {
	other := errors.New("cudaMalloc failed")
	for _, tc := range []struct {
		name       string
		fits       int   // retain fits after this many sets were evicted (-1: never)
		evictable  int   // sets makeRoom can evict
		fail       error // retain's other failure, if any
		noMakeRoom bool
		want       error
		evicted    int
	}{
		{"fits at once", 0, 2, nil, false, nil, 0},
		{"fits after one eviction", 1, 2, nil, false, nil, 1},
		{"fits after two", 2, 2, nil, false, nil, 2},
		{"nothing left to evict", -1, 2, nil, false, ErrDoesNotFit, 2},
		{"no MakeRoom", 1, 2, nil, true, ErrDoesNotFit, 0},
		{"another failure is not retried", 0, 2, other, false, other, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			evicted := 0
			retain := func() error {
				if tc.fail != nil {
					return tc.fail
				}
				if tc.fits < 0 || evicted < tc.fits {
					return fmt.Errorf("%w: device 0", ErrDoesNotFit)
				}
				return nil
			}
			makeRoom := func() bool {
				if evicted == tc.evictable {
					return false
				}
				evicted++
				return true
			}
			if tc.noMakeRoom {
				makeRoom = nil
			}
			err := retainMakingRoom(retain, makeRoom)
			if !errors.Is(err, tc.want) || (tc.want == nil && err != nil) {
				t.Fatalf("retainMakingRoom = %v, want %v", err, tc.want)
			}
			if evicted != tc.evicted {
				t.Fatalf("%d sets evicted, want %d", evicted, tc.evicted)
			}
		})
	}
}
