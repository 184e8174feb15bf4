package cuda

import (
	"context"
	"fmt"
	"os"
	"testing"

	"github.com/cuzk-project/cuzk/circuits/synthetic"
	"github.com/cuzk-project/cuzk/groth16"
	"github.com/cuzk-project/cuzk/r1cs"
)

// TestCacheRange: the copy holds the end of the streamed run of the file
// (which starts at the first streamed point), at most max bytes of it, and
// nothing where nothing streams.
func TestCacheRange(t *testing.T) {
	// a file of 100 h, 200 l, 50 a, 40 b_g1 points and 40 b_g2, each query
	// after a 4-byte count
	n := [4]uint64{100, 200, 50, 40}
	var off [5]uint64
	at := uint64(1000)
	for q := range 5 {
		at += 4
		off[q] = at
		if q < 4 {
			at += n[q] * groth16.G1Size
		} else {
			at += n[3] * groth16.G2Size
		}
	}
	end := at
	plan := func(res [4]uint64, bg2Stream uint64) Plan {
		p := Plan{Points: n, Resident: res, BG2StreamBytes: bg2Stream}
		if res != n || bg2Stream > 0 {
			p.ChunkLog = 4
		}
		return p
	}
	for _, tc := range []struct {
		name   string
		plan   Plan
		max    uint64
		from   groth16.Query
		lo, ln uint64
	}{
		{"everything streams", plan([4]uint64{}, 1), 1 << 40, -1, off[0], end - off[0]},
		{"h's prefix resident", plan([4]uint64{64, 0, 0, 0}, 1), 1 << 40, -1, off[0] + 64*groth16.G1Size, end - off[0] - 64*groth16.G1Size},
		{"h resident, l's prefix", plan([4]uint64{100, 16, 0, 0}, 1), 1 << 40, -1, off[1] + 16*groth16.G1Size, end - off[1] - 16*groth16.G1Size},
		{"capped: the end", plan([4]uint64{64, 0, 0, 0}, 1), 5000, -1, end - 5000, 5000},
		{"capped at b_g2", plan([4]uint64{64, 0, 0, 0}, 1), 40 * groth16.G2Size, -1, off[4], 40 * groth16.G2Size},
		{"only b_g2 streams", plan(n, 1), 1 << 40, -1, off[4], end - off[4]},
		{"nothing streams", plan(n, 0), 1 << 40, -1, 0, 0},
		{"no cache", plan([4]uint64{}, 1), 0, -1, 0, 0},

		{"from a: a's first streamed point on", plan([4]uint64{100, 0, 8, 0}, 1), 1 << 40, groth16.QueryA, off[2] + 8*groth16.G1Size, end - off[2] - 8*groth16.G1Size},
		{"from a, capped: a and part of b_g1", plan([4]uint64{}, 1), 60 * groth16.G1Size, groth16.QueryA, off[2], 60 * groth16.G1Size},
		{"from a, streaming begins after it: the first streamed point", plan([4]uint64{100, 200, 50, 16}, 1), 1 << 40, groth16.QueryA, off[3] + 16*groth16.G1Size, end - off[3] - 16*groth16.G1Size},
		{"from a, only b_g2 streams", plan(n, 1), 1 << 40, groth16.QueryA, off[4], end - off[4]},
	} {
		t.Run(tc.name, func(t *testing.T) {
			lo, ln := cacheRange(tc.plan, off, end, tc.max, tc.from)
			if lo != tc.lo || ln != tc.ln {
				t.Fatalf("cacheRange: [%d, +%d), want [%d, +%d)", lo, ln, tc.lo, tc.ln)
			}
		})
	}
}

// TestStreamCacheSums: a set streamed from its file with a stream cache
// holding none, part (ending within a chunk) or all of what streams gives the
// CPU device's sums, uploads the cached chunks from the copy (the stream's
// counters), counts the copy in the set's memory while retained and gives it
// back on Release. GPU.
func TestStreamCacheSums(t *testing.T) {
	if !Available() {
		t.Skip(skipReason())
	}
	if os.Getenv("CUZK_FILE_MAP") == "1" {
		t.Skip("CUZK_FILE_MAP=1: the whole file is the copy")
	}
	sp := newStreamParams(t, synthetic.Config{Constraints: 5000, Inputs: 20, BoolFraction: 0.75, ADensity: 0.997, BDensity: 0.25, Seed: 36})
	fi, err := os.Stat(sp.path)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, cache := range []int64{0, fi.Size() / 3, fi.Size()} {
		t.Run(fmt.Sprintf("cache=%d", cache), func(t *testing.T) {
			d := limited(t, 8, func(min, all uint64) uint64 { return min })
			d.StreamCache = cache
			pd, err := groth16.OpenParams(sp.path, groth16.ReadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if err := d.RetainFromFile(ctx, pd); err != nil {
				t.Fatal(err)
			}
			plan, _ := d.Plan(pd)
			held := pd.Deferred.Held()
			if (cache > 0) != (held > 0) || held > uint64(cache) || held > plan.StreamBytes+64 {
				t.Errorf("held %d bytes with a cache of %d (%d streamed)", held, cache, plan.StreamBytes)
			}
			a, _ := groth16.Synthesize(sp.c, r1cs.Shape{})
			got, err := groth16.Compute(ctx, d, a, pd)
			if err != nil {
				t.Fatal(err)
			}
			if diff := sumsDiffer(got, sp.want); diff != nil {
				t.Errorf("sums differ from the CPU device's: %v", diff)
			}
			st := d.kernels.streamStats()
			switch {
			case cache == 0 && st.Cached != 0:
				t.Errorf("no cache, yet %d bytes uploaded from one", st.Cached)
			case cache == fi.Size() && st.Cached != plan.StreamBytes:
				t.Errorf("the whole run cached, %d of %d points' bytes uploaded from it", st.Cached, plan.StreamBytes)
			case cache > 0 && cache < fi.Size() && (st.Cached == 0 || st.Cached >= plan.StreamBytes):
				t.Errorf("a third cached, %d of %d points' bytes uploaded from it", st.Cached, plan.StreamBytes)
			}
			d.Release(pd)
			if h := pd.Deferred.Held(); h != 0 {
				t.Errorf("%d bytes held after Release", h)
			}
		})
	}
}

// TestStreamCacheNoMemory: where the host cannot page-lock the copy the set
// streams without one (the retain succeeds, nothing held, nothing cached)
// and its sums are the CPU device's. GPU.
func TestStreamCacheNoMemory(t *testing.T) {
	if !Available() {
		t.Skip(skipReason())
	}
	if os.Getenv("CUZK_FILE_MAP") == "1" {
		t.Skip("CUZK_FILE_MAP=1: the whole file is the copy")
	}
	sp := newStreamParams(t, synthetic.Config{Constraints: 5000, Inputs: 20, BoolFraction: 0.75, ADensity: 0.997, BDensity: 0.25, Seed: 37})
	const size = 300_007 // no other buffer has this size
	d := limited(t, 8, func(min, all uint64) uint64 { return min })
	d.StreamCache = size
	d.pool.alloc = func(n uint64) (pinned, error) {
		if n == size {
			return pinned{}, fmt.Errorf("%w: no page-locked memory left (test)", ErrCUDA)
		}
		return allocPinned(n)
	}
	ctx := context.Background()
	pd, err := groth16.OpenParams(sp.path, groth16.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := d.RetainFromFile(ctx, pd); err != nil {
		t.Fatalf("retain with a copy that cannot be page-locked: %v, want it streamed without", err)
	}
	defer d.Release(pd)
	if h := pd.Deferred.Held(); h != 0 {
		t.Errorf("%d bytes held without a copy", h)
	}
	a, _ := groth16.Synthesize(sp.c, r1cs.Shape{})
	got, err := groth16.Compute(ctx, d, a, pd)
	if err != nil {
		t.Fatal(err)
	}
	if diff := sumsDiffer(got, sp.want); diff != nil {
		t.Errorf("sums differ from the CPU device's: %v", diff)
	}
	if c := d.kernels.streamStats().Cached; c != 0 {
		t.Errorf("%d bytes uploaded from a copy that does not exist", c)
	}
}
