package sim

import (
	"encoding/binary"
	"math/big"

	"context"
	"errors"
	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"sync"
	"testing"
	"time"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-project/cuzk/groth16"
)

func assignment(v uint64) *groth16.Assignment {
	a := &groth16.Assignment{Input: make([]fr.Element, 2), Aux: make([]fr.Element, 3), A: make([]fr.Element, 4)}
	a.Input[0].SetOne()
	a.Input[1].SetUint64(v)
	return a
}

func TestComputeIsTimedAndDeterministic(t *testing.T) {
	d := New(Config{Prepare: 5 * time.Millisecond, Run: 10 * time.Millisecond, Finish: 5 * time.Millisecond})
	start := time.Now()
	s1, err := groth16.Compute(context.Background(), d, assignment(7), nil)
	if err != nil {
		t.Fatal(err)
	}
	if el := time.Since(start); el < 20*time.Millisecond {
		t.Fatalf("compute took %v, want ≥ 20 ms", el)
	}
	s2, _ := groth16.Compute(context.Background(), d, assignment(7), nil)
	s3, _ := groth16.Compute(context.Background(), d, assignment(8), nil)
	if !s1.H.Equal(&s2.H) || !s1.B2.Equal(&s2.B2) {
		t.Fatal("equal assignments gave different sums")
	}
	if s1.H.Equal(&s3.H) {
		t.Fatal("different inputs gave equal sums")
	}
	iv := d.Intervals()
	if len(iv) != 3 || iv[0].End.Sub(iv[0].Start) < 10*time.Millisecond {
		t.Fatalf("intervals %v", iv)
	}
}

func TestFailureInjection(t *testing.T) {
	for _, step := range []Step{StepPrepare, StepRun, StepFinish} {
		t.Run(step.String(), func(t *testing.T) {
			d := New(Config{Fail: func(s Step, a *groth16.Assignment) bool {
				var v fr.Element
				v.SetUint64(13)
				return s == step && a.Input[1].Equal(&v)
			}})
			if _, err := groth16.Compute(context.Background(), d, assignment(13), nil); !errors.Is(err, ErrInjected) {
				t.Fatalf("err = %v, want ErrInjected", err)
			}
			if _, err := groth16.Compute(context.Background(), d, assignment(14), nil); err != nil {
				t.Fatalf("other unit failed: %v", err)
			}
		})
	}
}

func TestOverlappingRunsAreCounted(t *testing.T) {
	d := New(Config{Run: 20 * time.Millisecond})
	var wg sync.WaitGroup
	for i := 0; i < 3; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			groth16.Compute(context.Background(), d, assignment(uint64(i)), nil)
		}()
	}
	wg.Wait()
	if d.MaxConcurrentRuns() < 2 {
		t.Fatalf("MaxConcurrentRuns = %d for unserialized runs", d.MaxConcurrentRuns())
	}
}

func TestRunHonoursContext(t *testing.T) {
	d := New(Config{Run: time.Hour})
	w, _ := d.Prepare(context.Background(), assignment(1), nil)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel()
	if _, err := d.Run(ctx, w); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v", err)
	}
}

func TestSumsForMatchesScalarMultiplication(t *testing.T) {
	g1, g2, _, _ := bls12381.Generators()
	for _, k := range []uint32{0, 1, 255, 256, 0xdeadbeef, 0xffffffff} {
		var seed [32]byte
		binary.LittleEndian.PutUint32(seed[:], k)
		s := SumsFor(seed)
		var want bls12381.G1Jac
		want.ScalarMultiplication(&g1, new(big.Int).SetUint64(uint64(k)+2))
		if !s.A.Equal(&want) {
			t.Fatalf("k=%d: A != (k+2)·G1", k)
		}
		var want2 bls12381.G2Jac
		want2.ScalarMultiplication(&g2, new(big.Int).SetUint64(uint64(k)+4))
		if !s.B2.Equal(&want2) {
			t.Fatalf("k=%d: B2 != (k+4)·G2", k)
		}
	}
}

func TestOnKernelReportsRunInterval(t *testing.T) {
	var got []Interval
	var mu sync.Mutex
	d := New(Config{Run: 5 * time.Millisecond, OnKernel: func(s, e time.Time) {
		mu.Lock()
		got = append(got, Interval{s, e})
		mu.Unlock()
	}})
	w, _ := d.Prepare(context.Background(), assignment(1), nil)
	p, err := d.Run(context.Background(), w)
	if err != nil {
		t.Fatal(err)
	}
	s, e := p.(*Partial).KernelInterval()
	if len(got) != 1 || !got[0].Start.Equal(s) || !got[0].End.Equal(e) || e.Sub(s) < 5*time.Millisecond {
		t.Fatalf("hook saw %v, partial reports [%v, %v]", got, s, e)
	}
}

// TestProfileReportsRun: the device's profile names it and reports each
// Run's busy interval as its kernels' interval.
func TestProfileReportsRun(t *testing.T) {
	d := New(Config{Name: "lane", Run: time.Millisecond})
	w, _ := d.Prepare(context.Background(), assignment(1), nil)
	p, err := d.Run(context.Background(), w)
	if err != nil {
		t.Fatal(err)
	}
	prof := d.Profile()
	r := prof.OfRun(p)
	s, e := p.(*Partial).KernelInterval()
	if prof.Name != "lane" || !r.KernelStart.Equal(s) || !r.KernelEnd.Equal(e) || s.IsZero() {
		t.Fatalf("profile %q reports [%v, %v], the Partial [%v, %v]", prof.Name, r.KernelStart, r.KernelEnd, s, e)
	}
}

// TestIntervalsAreBounded: a daemon can run on the sim device for days; the
// device keeps only the most recent MaxIntervals busy intervals.
func TestIntervalsAreBounded(t *testing.T) {
	d := New(Config{})
	ctx := context.Background()
	const runs = 2*MaxIntervals + 10
	for i := 0; i < runs; i++ {
		w, err := d.Prepare(ctx, assignment(uint64(i)), nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := d.Run(ctx, w); err != nil {
			t.Fatal(err)
		}
	}
	iv := d.Intervals()
	if len(iv) != MaxIntervals || d.Runs() != runs {
		t.Fatalf("%d intervals kept after %d runs, want %d", len(iv), d.Runs(), MaxIntervals)
	}
	d.mu.Lock()
	held := cap(d.intervals)
	d.mu.Unlock()
	if held > 3*MaxIntervals { // bounded; append may overshoot 2×
		t.Fatalf("%d intervals of capacity held", held)
	}
	for i := 1; i < len(iv); i++ {
		if iv[i].Start.Before(iv[i-1].Start) {
			t.Fatal("intervals out of order")
		}
	}
}
