package cuda

import (
	"context"
	"testing"

	"github.com/cuzk-project/cuzk/circuits/synthetic"
	"github.com/cuzk-project/cuzk/groth16"
	"github.com/cuzk-project/cuzk/r1cs"
)

// TestDiscard: a Prepared dropped before Run and a Partial dropped before
// Finish give their pinned buffers back to the pool when discarded (the
// engine's cancelled units); Run or Finish after Discard is refused, and a
// second Discard does nothing.
func TestDiscard(t *testing.T) {
	d := gpu(t)
	c, err := synthetic.New(synthetic.Default(300))
	if err != nil {
		t.Fatal(err)
	}
	p, err := groth16.Setup(c, []byte("discard"))
	if err != nil {
		t.Fatal(err)
	}
	defer d.Release(p)
	ctx := context.Background()
	prepare := func() *prepared {
		t.Helper()
		a, err := groth16.Synthesize(c, r1cs.Shape{})
		if err != nil {
			t.Fatal(err)
		}
		wp, err := d.Prepare(ctx, a, p)
		if err != nil {
			t.Fatal(err)
		}
		return wp.(*prepared)
	}
	for _, tc := range []struct {
		name string
		run  bool // discard the Partial
	}{{"prepared", false}, {"partial", true}} {
		t.Run(tc.name, func(t *testing.T) {
			d.pool.drain() // from here every buffer given back is freed
			defer func() {
				d.pool.mu.Lock()
				d.pool.drained = false
				d.pool.mu.Unlock()
			}()
			w := prepare()
			var x any = w
			if tc.run {
				r, err := d.Run(ctx, w)
				if err != nil {
					t.Fatal(err)
				}
				x = r
			}
			if d.PinnedBytes() == 0 {
				t.Fatal("the prepared partition holds no pinned memory")
			}
			d.Discard(x)
			if held := d.PinnedBytes(); held != 0 || w.ab.p != nil || w.st[0].bits.p != nil || w.st[2].idx.p != nil {
				t.Fatalf("after Discard the pool holds %d bytes, the partition a, b %v", held, w.ab.p != nil)
			}
			d.Discard(x)
			if tc.run {
				if _, err := d.Finish(ctx, x); err != ErrReused {
					t.Fatalf("Finish after Discard: %v, want ErrReused", err)
				}
			} else if _, err := d.Run(ctx, x); err != ErrReused {
				t.Fatalf("Run after Discard: %v, want ErrReused", err)
			}
		})
	}
}
