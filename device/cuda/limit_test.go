package cuda

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"unsafe"

	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"

	"github.com/cuzk-project/cuzk/circuits/synthetic"
	"github.com/cuzk-project/cuzk/device/cpu"
	"github.com/cuzk-project/cuzk/groth16"
	"github.com/cuzk-project/cuzk/r1cs"
	"github.com/cuzk-project/cuzk/r1cs/compiled"
)

func TestDefaultLimitOf(t *testing.T) {
	for _, tc := range []struct{ free, want uint64 }{
		{0, 1}, {DefaultMemoryMargin, 1}, {DefaultMemoryMargin + 5, 5}, {24 << 30, 23 << 30},
	} {
		if got := defaultLimitOf(tc.free); got != tc.want {
			t.Errorf("defaultLimitOf(%d) = %d, want %d", tc.free, got, tc.want)
		}
	}
}

// limited opens device 0 whose parameter sets get the limit pick(min, all)
// (min: the least a run needs, every query streamed; all: everything
// resident) with streamed chunks of at most 2^chunkLg points.
func limited(t *testing.T, chunkLg uint32, pick func(min, all uint64) uint64) *Device {
	d := gpu(t)
	d.chunkLgMax = chunkLg
	d.testLimit = pick
	return d
}

// The limits the tests run under, from every query streamed to everything
// resident.
var limitCases = []struct {
	name    string
	pick    func(min, all uint64) uint64
	streams bool
}{
	{"min", func(min, all uint64) uint64 { return min }, true},
	{"third", func(min, all uint64) uint64 { return min + (all-min)/3 }, true},
	{"two-thirds", func(min, all uint64) uint64 { return min + 2*(all-min)/3 }, true},
	{"all-1", func(min, all uint64) uint64 { return all - 1 }, true},
	{"all", func(min, all uint64) uint64 { return all }, false},
}

// TestMemoryLimitSums: under each limit the CUDA device's sums equal the
// CPU device's (B_G2 included: resident under "all", streamed under the
// others), the plan streams as the limit says, and the library's device
// memory stays under the limit.
func TestMemoryLimitSums(t *testing.T) {
	if !Available() {
		t.Skip(skipReason())
	}
	cfgs := []synthetic.Config{
		{Constraints: 5000, Inputs: 20, BoolFraction: 0.75, ADensity: 0.997, BDensity: 0.25, Seed: 6},
		{Constraints: 3000, Inputs: 5, BoolFraction: 0.5, ADensity: 1, BDensity: 0.5, Seed: 7},
	}
	if !testing.Short() {
		cfgs = append(cfgs, synthetic.Config{Constraints: 1 << 16, Inputs: 3, BoolFraction: 0.75, ADensity: 1, BDensity: 0.25, Seed: 8})
	}
	ctx := context.Background()
	cd := cpu.New(0)
	for _, cfg := range cfgs {
		c, err := synthetic.New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		p, err := groth16.Setup(c, []byte(fmt.Sprint("memory limit ", cfg.Seed)))
		if err != nil {
			t.Fatal(err)
		}
		a, err := groth16.Synthesize(c, r1cs.Shape{})
		if err != nil {
			t.Fatal(err)
		}
		want, err := groth16.Compute(ctx, cd, a, p)
		if err != nil {
			t.Fatal(err)
		}
		for _, lc := range limitCases {
			for _, chunkLg := range []uint32{8, 11} {
				t.Run(fmt.Sprintf("n=%d/%s/chunk=2^%d", cfg.Constraints, lc.name, chunkLg), func(t *testing.T) {
					held0 := MemHeld(0)
					d := limited(t, chunkLg, lc.pick)
					a, _ := groth16.Synthesize(c, r1cs.Shape{})
					got, err := groth16.Compute(ctx, d, a, p)
					if err != nil {
						t.Fatal(err)
					}
					plan, ok := d.Plan(p)
					if !ok {
						t.Fatal("no plan for the resident set")
					}
					t.Logf("plan: resident %v of %v, chunk 2^%d, scratch %d, limit %d", plan.Resident, plan.Points,
						plan.ChunkLog, plan.ScratchBytes, plan.Limit)
					if plan.Streams() != lc.streams {
						t.Errorf("plan streams = %v, want %v", plan.Streams(), lc.streams)
					}
					if lc.name == "min" && plan.Resident != [4]uint64{} {
						t.Errorf("at the minimum %v is resident", plan.Resident)
					}
					if plan.BG2Bytes > 0 == lc.streams || plan.BG2StreamBytes > 0 != lc.streams {
						t.Errorf("B_G2: %d bytes resident, %d streamed; the plan streams: %v", plan.BG2Bytes, plan.BG2StreamBytes, lc.streams)
					}
					if held := MemHeld(0) - held0; held > plan.Limit {
						t.Errorf("device memory held %d over the limit %d", held, plan.Limit)
					}
					for _, x := range []struct {
						name string
						g, c *bls12381.G1Jac
					}{{"H", &got.H, &want.H}, {"L", &got.L, &want.L}, {"A", &got.A, &want.A}, {"B1", &got.B1, &want.B1}} {
						if !x.g.Equal(x.c) {
							t.Errorf("%s differs from the CPU device", x.name)
						}
					}
					if !got.B2.Equal(&want.B2) {
						t.Error("B2 differs from the CPU device")
					}
				})
			}
		}
	}
}

// TestMemoryLimitTooSmall: a limit one byte below what a run needs fails
// when the parameters are made resident, naming the bytes needed; at the
// minimum a proof is made and verifies.
func TestMemoryLimitTooSmall(t *testing.T) {
	if !Available() {
		t.Skip(skipReason())
	}
	c, err := synthetic.New(synthetic.Default(2000))
	if err != nil {
		t.Fatal(err)
	}
	p, err := groth16.Setup(c, []byte("memory limit too small"))
	if err != nil {
		t.Fatal(err)
	}
	var need uint64
	d := limited(t, 8, func(min, all uint64) uint64 { need = min; return min - 1 })
	err = d.Retain(p)
	if !errors.Is(err, ErrMemoryLimit) {
		t.Fatalf("Retain under min-1: err = %v, want ErrMemoryLimit", err)
	}
	if !strings.Contains(err.Error(), strconv.FormatUint(need, 10)+" bytes") {
		t.Errorf("the error does not name the %d bytes needed: %v", need, err)
	}
	a, _ := groth16.Synthesize(c, r1cs.Shape{})
	if _, err := d.Prepare(context.Background(), a, p); !errors.Is(err, ErrMemoryLimit) {
		t.Errorf("Prepare under min-1: err = %v, want ErrMemoryLimit", err)
	}
	// the same limit through MemoryLimit
	d2 := gpu(t)
	d2.MemoryLimit = need - 1
	if err := d2.Retain(p); !errors.Is(err, ErrMemoryLimit) {
		t.Errorf("MemoryLimit min-1: err = %v, want ErrMemoryLimit", err)
	}
	d3 := gpu(t)
	d3.MemoryLimit = need
	d3.chunkLgMax = 8
	pvk, err := groth16.PrepareVerifyingKey(&p.VK)
	if err != nil {
		t.Fatal(err)
	}
	proof, inputs, err := groth16.Prove(context.Background(), d3, p, c, rand.NewChaCha8([32]byte{3}))
	if err != nil {
		t.Fatal(err)
	}
	if err := groth16.Verify(pvk, &proof, inputs); err != nil {
		t.Fatalf("proof under the minimum limit does not verify: %v", err)
	}
}

// TestEngineTwoWorkersLimited: the engine's two workers share one plan of
// a set that streams every query; the proofs verify.
func TestEngineTwoWorkersLimited(t *testing.T) {
	if !Available() {
		t.Skip(skipReason())
	}
	proveTwoWorkers(t, limited(t, 8, func(min, all uint64) uint64 { return min }))
}

// TestStreamLayout: the mirrors have the C structs' sizes and offsets
// (cuzk_limits 16 B, bg2 at 12; cuzk_plan 136 B, lgn at 104, bg2_bytes at 120,
// bg2_stream_bytes at 128; cuzk_stream_stats 48 B, ms_read at 32, bytes_cached at 40).
func TestStreamLayout(t *testing.T) {
	var l cLimits
	var p cPlan
	var s cStreamStats
	for _, x := range []struct {
		name      string
		got, want uintptr
	}{
		{"cLimits", unsafe.Sizeof(l), 16},
		{"cLimits.BG2", unsafe.Offsetof(l.BG2), 12},
		{"cPlan", unsafe.Sizeof(p), 136},
		{"cPlan.MinBytes", unsafe.Offsetof(p.MinBytes), 96},
		{"cPlan.Lgn", unsafe.Offsetof(p.Lgn), 104},
		{"cPlan.Pinned", unsafe.Offsetof(p.Pinned), 116},
		{"cPlan.BG2Bytes", unsafe.Offsetof(p.BG2Bytes), 120},
		{"cPlan.BG2StreamBytes", unsafe.Offsetof(p.BG2StreamBytes), 128},
		{"cStreamStats", unsafe.Sizeof(s), 48},
		{"cStreamStats.Cached", unsafe.Offsetof(s.Cached), 40},
		{"cStreamStats.Read", unsafe.Offsetof(s.Read), 32},
		{"cStreamStats.Stall", unsafe.Offsetof(s.Stall), 24},
	} {
		if x.got != x.want {
			t.Errorf("%s: %d, want %d", x.name, x.got, x.want)
		}
	}
}

// TestEvaluatesWitnessLimit: an explicit memory limit turns the witness-only
// path off (the plan does not count the matrices), so that the engine
// reserves host memory for a, b and c.
func TestEvaluatesWitnessLimit(t *testing.T) {
	d := &Device{}
	if !d.EvaluatesWitness() {
		t.Error("no explicit limit: EvaluatesWitness is false")
	}
	d.MemoryLimit = 16 << 30
	if d.EvaluatesWitness() {
		t.Error("an explicit limit: EvaluatesWitness is true")
	}
	if d.EvaluatesWitnessOf(1000, 1000) {
		t.Error("an explicit limit: EvaluatesWitnessOf is true")
	}
}

// TestEvaluatesWitnessOf: under the default limit a partition whose set
// fits whole takes the witness run, one whose set would stream does not
// (the engine then reserves for the classic path); a resident set of the
// partition's domain answers with its own plan.
func TestEvaluatesWitnessOf(t *testing.T) {
	if !Available() {
		t.Skip(skipReason())
	}
	c, err := synthetic.New(synthetic.Default(3000))
	if err != nil {
		t.Fatal(err)
	}
	p, err := groth16.Setup(c, []byte("evaluates witness of"))
	if err != nil {
		t.Fatal(err)
	}
	rows, vars := len(p.H), len(p.L)+len(p.VK.IC) // (h has a point for every row of the domain but one)
	if d := gpu(t); !d.EvaluatesWitnessOf(rows, vars) {
		t.Error("a small partition under the default limit: no witness run")
	}
	streams := limited(t, 8, func(min, all uint64) uint64 { return min })
	if streams.EvaluatesWitnessOf(rows, vars) {
		t.Error("a limit that streams its set: witness run")
	}
	resident := limited(t, 8, func(min, all uint64) uint64 { return all })
	if err := resident.Retain(p); err != nil {
		t.Fatal(err)
	}
	defer resident.Release(p)
	if plan, _ := resident.Plan(p); plan.Streams() {
		t.Fatalf("the resident set streams: %+v", plan)
	}
	// from above, l, a and b_g1 of one point a variable would not fit the set's exact limit
	if !resident.EvaluatesWitnessOf(rows, vars) {
		t.Error("the resident set of the domain does not stream, yet no witness run")
	}
}

// TestMemoryLimitWitness: a witness-only assignment under a plan that
// streams goes the classic path (a, b, c evaluated on the CPU in Prepare),
// under one that does not through cuzk_run_witness; the sums are the CPU
// device's either way (B_G2 on the device: streamed, then resident).
func TestMemoryLimitWitness(t *testing.T) {
	if !Available() {
		t.Skip(skipReason())
	}
	ctx := context.Background()
	cd := cpu.New(0)
	c, err := synthetic.New(synthetic.Default(300))
	if err != nil {
		t.Fatal(err)
	}
	p, err := groth16.Setup(c, []byte("device/cuda limit witness"))
	if err != nil {
		t.Fatal(err)
	}
	sys, err := compiled.Compile(c, r1cs.Shape{})
	if err != nil {
		t.Fatal(err)
	}
	defer sys.Close()
	a2, err := groth16.Synthesize(c, r1cs.Shape{})
	if err != nil {
		t.Fatal(err)
	}
	want, err := groth16.Compute(ctx, cd, a2, p)
	if err != nil {
		t.Fatal(err)
	}
	for _, lc := range []int{0, len(limitCases) - 1} { // min (streams), all (resident)
		lc := limitCases[lc]
		t.Run(lc.name, func(t *testing.T) {
			d := limited(t, 8, lc.pick)
			aw := witnessOnly(t, c, sys)
			pw, err := d.Prepare(ctx, aw, p)
			if err != nil {
				t.Fatal(err)
			}
			if _, onDevice := pw.(*witnessPrepared); onDevice == lc.streams {
				t.Errorf("plan streams %v: witness run on the device %v", lc.streams, onDevice)
			}
			if plan, _ := d.Plan(p); plan.Streams() != lc.streams {
				t.Errorf("plan streams %v, want %v", plan.Streams(), lc.streams)
			}
			pr, err := d.Run(ctx, pw)
			if err != nil {
				t.Fatal(err)
			}
			got, err := d.Finish(ctx, pr)
			if err != nil {
				t.Fatal(err)
			}
			for _, x := range []struct {
				name string
				g, c *bls12381.G1Jac
			}{{"H", &got.H, &want.H}, {"L", &got.L, &want.L}, {"A", &got.A, &want.A}, {"B1", &got.B1, &want.B1}} {
				if !x.g.Equal(x.c) {
					t.Errorf("%s differs from the CPU device", x.name)
				}
			}
			if !got.B2.Equal(&want.B2) {
				t.Error("B2 differs from the CPU device")
			}
		})
	}
}
