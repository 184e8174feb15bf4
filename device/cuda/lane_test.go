package cuda

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/cuzk-project/cuzk/circuits/synthetic"
	"github.com/cuzk-project/cuzk/device/cpu"
	"github.com/cuzk-project/cuzk/groth16"
	"github.com/cuzk-project/cuzk/r1cs"
	"github.com/cuzk-project/cuzk/r1cs/compiled"
)

// TestLane: Runs on a Lane and on its Device at the same time, classic and
// witness-only, give the CPU device's sums from the one resident set; the
// lane's kept stagings are not reported twice; closing the Device closes
// the lane.
func TestLane(t *testing.T) {
	d := gpu(t)
	l, err := d.NewLane()
	if err != nil {
		t.Fatal(err)
	}
	c, err := synthetic.New(synthetic.Config{Constraints: 5000, Inputs: 20, BoolFraction: 0.75, ADensity: 0.997, BDensity: 0.25, Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	p, err := groth16.Setup(c, []byte("device/cuda lane"))
	if err != nil {
		t.Fatal(err)
	}
	sys, err := compiled.Compile(c, r1cs.Shape{})
	if err != nil {
		t.Fatal(err)
	}
	defer sys.Close()
	ctx := context.Background()
	a, _ := groth16.Synthesize(c, r1cs.Shape{})
	want, err := groth16.Compute(ctx, cpu.New(0), a, p)
	if err != nil {
		t.Fatal(err)
	}
	devs := []groth16.Device{d, l, d, l}
	sums := make([]*groth16.Sums, 2*len(devs))
	errs := make([]error, len(sums))
	var wg sync.WaitGroup
	as := make([]*groth16.Assignment, len(sums))
	for i := range as {
		if i < len(devs) {
			as[i], _ = groth16.Synthesize(c, r1cs.Shape{})
		} else {
			as[i] = witnessOnly(t, c, sys)
		}
	}
	for i := range sums {
		dev := devs[i%len(devs)]
		wg.Go(func() { sums[i], errs[i] = groth16.Compute(ctx, dev, as[i], p) })
	}
	wg.Wait()
	for i, s := range sums {
		if errs[i] != nil {
			t.Fatalf("run %d: %v", i, errs[i])
		}
		if diff := sumsDiffer(s, want); len(diff) > 0 {
			t.Errorf("run %d (lane %v, witness %v): %v differ from the CPU device", i, i%2 == 1, i >= len(devs), diff)
		}
	}
	if d.smu.Lock(); len(d.srs) != 1 {
		t.Errorf("%d resident sets, want the one shared", len(d.srs))
	}
	d.smu.Unlock()
	if pr := l.Profile(); pr.KeptBytes != nil || pr.EvictKept != nil {
		t.Error("the lane reports the device's kept stagings again")
	}

	a2, _ := groth16.Synthesize(c, r1cs.Shape{})
	w, err := l.Prepare(ctx, a2, p)
	if err != nil {
		t.Fatal(err)
	}
	d.Close()
	if _, err := l.Run(ctx, w); !errors.Is(err, ErrClosed) {
		t.Fatalf("lane Run after the device closed: err = %v, want ErrClosed", err)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
}
