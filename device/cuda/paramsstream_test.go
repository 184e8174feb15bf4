package cuda

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"

	"github.com/cuzk-project/cuzk/circuits/synthetic"
	"github.com/cuzk-project/cuzk/device/cpu"
	"github.com/cuzk-project/cuzk/groth16"
	"github.com/cuzk-project/cuzk/r1cs"
)

// streamParams is a small parameter set written to a file, its circuit
// and the CPU device's sums of its proof.
type streamParams struct {
	path string
	c    *synthetic.Circuit
	p    *groth16.Params
	want *groth16.Sums
}

func newStreamParams(t *testing.T, cfg synthetic.Config) streamParams {
	t.Helper()
	c, err := synthetic.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	p, err := groth16.Setup(c, []byte(fmt.Sprint("stream from file ", cfg.Seed)))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "s.params")
	if err := groth16.WriteParams(path, p); err != nil {
		t.Fatal(err)
	}
	sp := streamParams{path: path, c: c, p: p}
	if Available() {
		a, err := groth16.Synthesize(c, r1cs.Shape{})
		if err != nil {
			t.Fatal(err)
		}
		if sp.want, err = groth16.Compute(context.Background(), cpu.New(0), a, p); err != nil {
			t.Fatal(err)
		}
	}
	return sp
}

// TestFileOffsets: the offsets found from the end of the file are where
// each query's points lie (the raw bytes there encode the points the
// file's decoder reads), and a file whose counts no longer match the
// opened layout is refused. No GPU.
func TestFileOffsets(t *testing.T) {
	sp := newStreamParams(t, synthetic.Config{Constraints: 300, Inputs: 3, BoolFraction: 0.5, ADensity: 1, BDensity: 0.5, Seed: 31})
	pd, err := groth16.OpenParams(sp.path, groth16.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(sp.path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	off, err := fileOffsets(f, pd.Deferred)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(sp.path)
	if err != nil {
		t.Fatal(err)
	}
	for q := groth16.QueryH; q <= groth16.QueryBG2; q++ {
		n := pd.Len(q)
		if n == 0 {
			continue
		}
		for _, i := range []int{0, n - 1} {
			var enc []byte
			if q == groth16.QueryBG2 {
				pt := make([]bls12381.G2Affine, 1)
				if err := pd.Deferred.ReadG2(i, pt, nil); err != nil {
					t.Fatal(err)
				}
				enc = make([]byte, groth16.G2Size)
				groth16.EncodeG2(enc, &pt[0])
			} else {
				pt := make([]bls12381.G1Affine, 1)
				if err := pd.Deferred.ReadG1(q, i, pt, nil); err != nil {
					t.Fatal(err)
				}
				enc = make([]byte, groth16.G1Size)
				groth16.EncodeG1(enc, &pt[0])
			}
			at := off[q] + uint64(i*len(enc))
			if got := raw[at : at+uint64(len(enc))]; string(got) != string(enc) {
				t.Errorf("%s[%d]: the bytes at offset %d are not the point's encoding", q, i, at)
			}
		}
	}
	// The same file grown by a point's bytes: the counts no longer end it.
	grown := filepath.Join(t.TempDir(), "grown.params")
	if err := os.WriteFile(grown, append(raw, make([]byte, groth16.G1Size)...), 0o600); err != nil {
		t.Fatal(err)
	}
	g, err := os.Open(grown)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	if _, err := fileOffsets(g, pd.Deferred); err == nil || !strings.Contains(err.Error(), "count") {
		t.Fatalf("offsets of a file that changed: %v, want an error naming the count", err)
	}
}

// TestStreamFromFileSums: under each streaming limit (and chunk size) a
// set retained from its file (RetainFromFile) gives the same sums as the
// decoded set under the same limit and as the CPU device, B_G2 included,
// streams what the plan streams, and a set that fits whole is resident
// whole. GPU.
func TestStreamFromFileSums(t *testing.T) {
	if !Available() {
		t.Skip(skipReason())
	}
	cfgs := []synthetic.Config{
		{Constraints: 5000, Inputs: 20, BoolFraction: 0.75, ADensity: 0.997, BDensity: 0.25, Seed: 32},
	}
	if !testing.Short() {
		cfgs = append(cfgs, synthetic.Config{Constraints: 1 << 16, Inputs: 3, BoolFraction: 0.75, ADensity: 1, BDensity: 0.25, Seed: 33})
	}
	ctx := context.Background()
	for _, cfg := range cfgs {
		sp := newStreamParams(t, cfg)
		for _, lc := range limitCases {
			for _, chunkLg := range []uint32{8, 11} {
				t.Run(fmt.Sprintf("n=%d/%s/chunk=2^%d", cfg.Constraints, lc.name, chunkLg), func(t *testing.T) {
					ref := limited(t, chunkLg, lc.pick)
					a, _ := groth16.Synthesize(sp.c, r1cs.Shape{})
					decoded, err := groth16.Compute(ctx, ref, a, sp.p)
					if err != nil {
						t.Fatal(err)
					}
					d := limited(t, chunkLg, lc.pick)
					pd, err := groth16.OpenParams(sp.path, groth16.ReadOptions{})
					if err != nil {
						t.Fatal(err)
					}
					if err := d.RetainFromFile(ctx, pd); err != nil {
						t.Fatal(err)
					}
					defer d.Release(pd)
					plan, _ := d.Plan(pd)
					if plan.Streams() != lc.streams || !plan.DeviceBG2() {
						t.Fatalf("plan %+v: streams %v, want %v, and B_G2 on the device", plan, plan.Streams(), lc.streams)
					}
					a, _ = groth16.Synthesize(sp.c, r1cs.Shape{})
					got, err := groth16.Compute(ctx, d, a, pd)
					if err != nil {
						t.Fatal(err)
					}
					if diff := sumsDiffer(got, decoded); diff != nil {
						t.Errorf("file-streamed sums differ from the decoded set's: %v", diff)
					}
					if diff := sumsDiffer(got, sp.want); diff != nil {
						t.Errorf("file-streamed sums differ from the CPU device's: %v", diff)
					}
				})
			}
		}
	}
}

// TestStreamsFromFile: which sets a loader streams from their file.
func TestStreamsFromFile(t *testing.T) {
	for _, tc := range []struct {
		lo   LoaderOptions
		size int64
		want bool
	}{
		{LoaderOptions{}, 1 << 40, false},
		{LoaderOptions{StreamFromFile: true}, 0, true},
		{LoaderOptions{StreamFromFileAbove: 40 << 30}, 47_373_928_632, true},
		{LoaderOptions{StreamFromFileAbove: 40 << 30}, 40 << 30, false},
		{LoaderOptions{StreamFromFileAbove: 40 << 30}, 0, false},
		{LoaderOptions{StreamFromFile: true, StreamFromFileAbove: 40 << 30}, 1, true},
	} {
		if got := tc.lo.StreamsFromFile(tc.size); got != tc.want {
			t.Errorf("%+v, %d bytes: %v, want %v", tc.lo, tc.size, got, tc.want)
		}
	}
}

// TestStreamFromFileLoader: ParamsLoaderWith's StreamFromFile, and its
// StreamFromFileAbove below the file's size, keep a set that does not fit
// whole deferred (no host copy), its proof verifies, and unload frees it.
// GPU.
func TestStreamFromFileLoader(t *testing.T) {
	if !Available() {
		t.Skip(skipReason())
	}
	sp := newStreamParams(t, synthetic.Config{Constraints: 5000, Inputs: 4, BoolFraction: 0.75, ADensity: 1, BDensity: 0.25, Seed: 34})
	ctx := context.Background()
	for _, tc := range []struct {
		checked bool
		lo      LoaderOptions
	}{{false, LoaderOptions{StreamFromFile: true}}, {true, LoaderOptions{StreamFromFile: true}}, {false, LoaderOptions{StreamFromFileAbove: 1}}} {
		checked := tc.checked
		t.Run(fmt.Sprintf("checked=%v/above=%d", checked, tc.lo.StreamFromFileAbove), func(t *testing.T) {
			d := limited(t, 8, func(min, all uint64) uint64 { return min + (all-min)/3 })
			load, unload := ParamsLoaderWith([]*Device{d}, groth16.ReadOptions{Checked: checked}, nil, tc.lo)
			lp, err := load(ctx, "test", sp.path)
			if err != nil {
				t.Fatal(err)
			}
			if lp.Deferred == nil || len(lp.H) != 0 || len(lp.BG2) != 0 {
				t.Fatal("the loaded set holds decoded points on the host")
			}
			if plan, _ := d.Plan(lp); !plan.Streams() {
				t.Fatalf("plan %+v does not stream", plan)
			}
			a, _ := groth16.Synthesize(sp.c, r1cs.Shape{})
			got, err := groth16.Compute(ctx, d, a, lp)
			if err != nil {
				t.Fatal(err)
			}
			if diff := sumsDiffer(got, sp.want); diff != nil {
				t.Fatalf("sums differ from the CPU device's: %v", diff)
			}
			unload("test", lp)
			if _, ok := d.Plan(lp); ok {
				t.Fatal("unload left the set resident")
			}
		})
	}
}

// TestStreamFromFileCorrupt: a point of the file that the file's decoder
// rejects (a flag bit, a coordinate not below p, off the curve), in a
// streamed range of any query, fails the Run with an error naming the
// query and the point: never a wrong proof. The device then runs a good
// set again. GPU.
func TestStreamFromFileCorrupt(t *testing.T) {
	if !Available() {
		t.Skip(skipReason())
	}
	sp := newStreamParams(t, synthetic.Config{Constraints: 3000, Inputs: 5, BoolFraction: 0.5, ADensity: 1, BDensity: 0.5, Seed: 35})
	raw, err := os.ReadFile(sp.path)
	if err != nil {
		t.Fatal(err)
	}
	pd0, err := groth16.OpenParams(sp.path, groth16.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	f, _ := os.Open(sp.path)
	off, err := fileOffsets(f, pd0.Deferred)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		q      groth16.Query
		from   int // the point, counted from the query's end
		byte   int // the byte of the point changed
		xor    byte
		reason string
	}{
		{"h: infinity flag", groth16.QueryH, 1, 0, 0x40, "flag"},
		{"l: compressed flag", groth16.QueryL, 1, 0, 0x80, "flag"},
		{"a: off the curve", groth16.QueryA, 1, 95, 0x01, "curve"},
		{"b_g1: x not below p", groth16.QueryBG1, 1, 0, 0x1f, "modulus"},
		{"b_g2: off the curve", groth16.QueryBG2, 1, 191, 0x01, "curve"},
		{"b_g2: sort flag", groth16.QueryBG2, 1, 0, 0x20, "flag"},
	} {
		for _, cache := range []int64{0, 1 << 40} {
			t.Run(fmt.Sprintf("%s/cache=%d", tc.name, cache), func(t *testing.T) {
				corruptRun(t, sp, raw, off, pd0, tc.q, tc.from, tc.byte, tc.xor, tc.reason, cache)
			})
		}
	}
}

// corruptRun is one case of TestStreamFromFileCorrupt: point from (counted
// from q's end) with byte at changed by xor (or'ed where reason is
// "modulus"), under the least limit, with a stream cache of cache bytes
// (large enough, it holds the whole streamed run: the chunk is uploaded from
// it, not read, and checked on the device the same).
func corruptRun(t *testing.T, sp streamParams, raw []byte, off [5]uint64, pd0 *groth16.Params, q groth16.Query, from, at int, xor byte, reason string, cache int64) {
	ctx := context.Background()
	size := groth16.G1Size
	if q == groth16.QueryBG2 {
		size = groth16.G2Size
	}
	index := pd0.Len(q) - from
	bad := append([]byte(nil), raw...)
	at += int(off[q]) + index*size
	if reason == "modulus" {
		bad[at] |= xor // x's top bits set, below the flags: x >= p
	} else {
		bad[at] ^= xor
	}
	path := filepath.Join(t.TempDir(), "bad.params")
	if err := os.WriteFile(path, bad, 0o600); err != nil {
		t.Fatal(err)
	}
	pd, err := groth16.OpenParams(path, groth16.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	d := limited(t, 8, func(min, all uint64) uint64 { return min }) // everything streams
	d.StreamCache = cache
	if err := d.RetainFromFile(ctx, pd); err != nil {
		t.Fatal(err)
	}
	a, _ := groth16.Synthesize(sp.c, r1cs.Shape{})
	_, err = groth16.Compute(ctx, d, a, pd)
	if cache > 0 && d.kernels.streamStats().Cached == 0 {
		t.Errorf("the stream cache of %d bytes held none of the chunks", cache)
	}
	d.Release(pd) // (the limit holds one set)
	want := fmt.Sprintf("%s[%d]", q, index)
	if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), reason) {
		t.Fatalf("Run over a corrupt %s: %v; want an error naming %s and %q", q, err, want, reason)
	}
	good, err := groth16.OpenParams(sp.path, groth16.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := d.RetainFromFile(ctx, good); err != nil {
		t.Fatal(err)
	}
	defer d.Release(good)
	a, _ = groth16.Synthesize(sp.c, r1cs.Shape{})
	got, err := groth16.Compute(ctx, d, a, good)
	if err != nil {
		t.Fatalf("a good set after the failed run: %v", err)
	}
	if diff := sumsDiffer(got, sp.want); diff != nil {
		t.Fatalf("a good set after the failed run: sums differ from the CPU device's: %v", diff)
	}
}
