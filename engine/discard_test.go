package engine

import (
	"context"
	"sync"
	"testing"

	"github.com/cuzk-project/cuzk/device/sim"
	"github.com/cuzk-project/cuzk/groth16"
)

// discardingDevice is a sim device whose Prepared and Partial values stand
// for buffers the device must get back (groth16.Profile.Discard): it counts
// those handed out and those that came back by Run, Finish or Discard.
// The job is cancelled inside the step named by cancelIn.
type discardingDevice struct {
	*sim.Device
	cancelIn string // "prepare" or "run"
	cancel   func()

	mu                  sync.Mutex
	out                 map[any]bool // handed out, not yet back
	discarded, returned int
}

type held struct{ v any }

func (d *discardingDevice) give(v any) *held {
	h := &held{v}
	d.mu.Lock()
	d.out[h] = true
	d.mu.Unlock()
	return h
}

func (d *discardingDevice) back(h *held, discard bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if !d.out[h] {
		return // already back: Discard of a used value does nothing
	}
	delete(d.out, h)
	if discard {
		d.discarded++
	} else {
		d.returned++
	}
}

func (d *discardingDevice) Prepare(ctx context.Context, a *groth16.Assignment, p *groth16.Params) (groth16.Prepared, error) {
	w, err := d.Device.Prepare(ctx, a, p)
	if err != nil {
		return nil, err
	}
	if d.cancelIn == "prepare" {
		d.cancel()
	}
	return d.give(w), nil
}

func (d *discardingDevice) Run(ctx context.Context, w groth16.Prepared) (groth16.Partial, error) {
	h := w.(*held)
	d.back(h, false)
	p, err := d.Device.Run(ctx, h.v)
	if err != nil {
		return nil, err
	}
	if d.cancelIn == "run" {
		d.cancel()
	}
	return d.give(p), nil
}

func (d *discardingDevice) Finish(ctx context.Context, p groth16.Partial) (*groth16.Sums, error) {
	h := p.(*held)
	d.back(h, false)
	return d.Device.Finish(ctx, h.v)
}

func (d *discardingDevice) Profile() groth16.Profile {
	p := d.Device.Profile()
	p.Discard = func(x any) {
		if h, ok := x.(*held); ok {
			d.back(h, true)
		}
	}
	return p
}

// TestDiscardOnCancel: a job cancelled after a unit's Prepare, or during
// its Run, has that Prepared or Partial discarded (groth16.Profile.Discard): the
// device gets back every value it handed out, none twice.
func TestDiscardOnCancel(t *testing.T) {
	for _, step := range []string{"prepare", "run"} {
		t.Run(step, func(t *testing.T) {
			dev := &discardingDevice{Device: sim.New(sim.Config{}), cancelIn: step, out: map[any]bool{}}
			env := newTestEnv(t, sim.Config{}, func(c *Config) {
				c.Devices = []groth16.Device{dev}
				c.WorkersPerDevice = 1
			})
			var once sync.Once
			dev.cancel = func() { once.Do(func() { env.e.Cancel("victim") }) }
			id := env.submit(t, "victim", KindPoRepSealCommit, PriorityNormal, testJob{Tag: 3, Parts: 1})
			if r := env.await(t, id); r.Status != StatusCancelled {
				t.Fatalf("job %v (%s), want cancelled", r.Status, r.Error)
			}
			waitFor(t, "the unit to retire", func() bool { return env.budget.Used() == 0 })
			dev.mu.Lock()
			defer dev.mu.Unlock()
			if len(dev.out) != 0 || dev.discarded != 1 {
				t.Errorf("%d values not given back, %d discarded (%d by Run or Finish); want none, 1", len(dev.out), dev.discarded,
					dev.returned)
			}
		})
	}
}
