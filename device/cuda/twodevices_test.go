package cuda

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cuzk-project/cuzk/circuits"
	"github.com/cuzk-project/cuzk/circuits/synthetic"
	"github.com/cuzk-project/cuzk/engine"
	"github.com/cuzk-project/cuzk/groth16"
	"github.com/cuzk-project/cuzk/timeline"
)

// TestEngineTwoDevices: one engine over two CUDA devices (two handles on
// GPU 0 where the machine has one GPU, else GPUs 0 and 1): both prove
// (kernel intervals on each timeline lane), each holds its own resident
// copy of the parameters, every proof verifies; one device closed
// mid-run (its steps fail with ErrClosed, which wraps
// groth16.ErrDeviceLost) gets no more units, the units it held are proved
// on the other, every job completes, and the status names the loss.
func TestEngineTwoDevices(t *testing.T) {
	first := gpu(t)
	second := gpu(t)
	if n := len(must(Devices())); n > 1 {
		var err error
		if second, err = New(1); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { second.Close() })
	}
	cfg := synthetic.Default(1 << 12)
	cfg.Seed = 11
	params := circuits.NewDevParams("")
	reg := circuits.New()
	rec := timeline.NewRecorder(1 << 16)
	e, err := engine.New(engine.Config{
		Devices:  []groth16.Device{first, second},
		Planner:  reg,
		Params:   params,
		Recorder: rec,
	})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	req, plan, pvk := preloadSynthetic(t, ctx, e, params, reg, cfg, 6)
	p, release, err := params.Acquire(ctx, circuits.SyntheticID(cfg))
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	prove := func(round string, jobs int, during func()) {
		t.Helper()
		var wg sync.WaitGroup
		results := make([]engine.Result, jobs)
		errs := make([]error, jobs)
		for i := range jobs {
			wg.Go(func() {
				r := req
				r.RequestID = fmt.Sprintf("%s-%d", round, i)
				results[i], errs[i] = e.Prove(ctx, r)
			})
		}
		if during != nil {
			during()
		}
		wg.Wait()
		for i, r := range results {
			if errs[i] != nil {
				t.Fatalf("%s job %d: %v", round, i, errs[i])
			}
			verifyResult(t, r, plan, pvk)
		}
	}
	prove("both", 4, nil)
	kernels := map[int]int{}
	for _, ev := range rec.Events() {
		if ev.Kind == timeline.KernelStart {
			kernels[ev.Device]++
		}
	}
	if kernels[0] == 0 || kernels[1] == 0 {
		t.Fatalf("kernels per device %v: want both devices used", kernels)
	}
	if _, ok := first.Plan(p); !ok {
		t.Fatal("device 0 holds no resident copy of the parameters")
	}
	if _, ok := second.Plan(p); !ok {
		t.Fatal("device 1 holds no resident copy of the parameters")
	}
	t.Logf("kernels per device: %v", kernels)

	prove("loss", 4, func() {
		time.Sleep(50 * time.Millisecond)
		second.Close()
	})
	prove("after", 2, nil) // (a device closed after the loss round's units were placed is lost here)
	st := e.Status()
	if st.Devices[0].Lost != "" || !strings.Contains(st.Devices[1].Lost, "closed") {
		t.Fatalf("status after the loss: device 0 %q, device 1 %q", st.Devices[0].Lost, st.Devices[1].Lost)
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
