package cpu

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/cuzk-project/cuzk/circuits/synthetic"
	"github.com/cuzk-project/cuzk/groth16"
	"github.com/cuzk-project/cuzk/r1cs"
)

// benchParams returns dev parameters for c, cached as a .params file under
// $CUZK_BENCH_PARAMS_DIR (default: the temp dir) so that reruns skip setup.
func benchParams(b *testing.B, c *synthetic.Circuit) *groth16.Params {
	cfg := c.Config()
	dir := os.Getenv("CUZK_BENCH_PARAMS_DIR")
	if dir == "" {
		dir = os.TempDir()
	}
	path := filepath.Join(dir, fmt.Sprintf("cuzk-bench-synthetic-v1-%d-%d-seed%d.params", cfg.Constraints, cfg.Inputs, cfg.Seed))
	var cnt r1cs.Counter
	if err := r1cs.Synthesize(&cnt, c); err != nil {
		b.Fatal(err)
	}
	if p, err := groth16.ReadParams(path, groth16.ReadOptions{}); err == nil {
		if err := p.CheckShape(groth16.ShapeOfCounter(&cnt)); err == nil {
			return p
		}
	}
	t0 := time.Now()
	p, err := groth16.Setup(c, []byte("device/cpu benchmark"))
	if err != nil {
		b.Fatal(err)
	}
	b.Logf("setup of %d rows took %v; caching %s", cfg.Constraints, time.Since(t0), path)
	if err := groth16.WriteParams(path, p); err != nil {
		b.Logf("cannot cache params: %v", err)
	}
	return p
}

// phaseTimes sums the device's phase timings.
type phaseTimes struct {
	mu sync.Mutex
	d  map[Phase]time.Duration
}

func (p *phaseTimes) observe(ph Phase, e time.Duration) {
	p.mu.Lock()
	p.d[ph] += e
	p.mu.Unlock()
}

// BenchmarkProve measures proving throughput of the PoRep-like synthetic
// circuit, split into synthesis, H (transforms and MSM), the G1 MSMs (L, A,
// B1, with Prepare's split) and the B_G2 MSM. 2^20 needs CUZK_BENCH_LARGE=1.
func BenchmarkProve(b *testing.B) {
	for _, logN := range []int{16, 18, 20} {
		n := 1 << logN
		b.Run(fmt.Sprintf("2^%d", logN), func(b *testing.B) {
			largeBench(b, n)
			if testing.Short() && logN > 16 {
				b.Skip("-short")
			}
			c, err := synthetic.New(synthetic.Default(n))
			if err != nil {
				b.Fatal(err)
			}
			p := benchParams(b, c)
			pvk, err := groth16.PrepareVerifyingKey(&p.VK)
			if err != nil {
				b.Fatal(err)
			}
			pt := &phaseTimes{d: map[Phase]time.Duration{}}
			d := &Device{Observe: pt.observe}
			ctx := context.Background()
			var synth, total time.Duration
			prove := func() {
				t0 := time.Now()
				pa := r1cs.NewProvingAssignment(c.Hint())
				if err := r1cs.Synthesize(pa, c); err != nil {
					b.Fatal(err)
				}
				a := groth16.FromProvingAssignment(pa)
				t1 := time.Now()
				inputs := append(a.Input[:0:0], a.Input[1:]...)
				sums, err := groth16.Compute(ctx, d, a, p)
				if err != nil {
					b.Fatal(err)
				}
				r, s, err := groth16.DrawRS(nil)
				if err != nil {
					b.Fatal(err)
				}
				proof, err := groth16.Assemble(&p.VK, sums, r, s)
				if err != nil {
					b.Fatal(err)
				}
				t2 := time.Now()
				synth += t1.Sub(t0)
				total += t2.Sub(t0)
				b.StopTimer()
				if err := groth16.Verify(pvk, &proof, inputs); err != nil {
					b.Fatalf("proof does not verify: %v", err)
				}
				b.StartTimer()
			}
			// A persistent prover has its FFT domain, pools and heap warm:
			// measure that, after one untimed proof.
			prove()
			synth, total = 0, 0
			clear(pt.d)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				prove()
			}
			per := func(x time.Duration) float64 { return x.Seconds() / float64(b.N) }
			b.ReportMetric(float64(n)/per(total), "constraints/s")
			b.ReportMetric(per(synth), "synth-s")
			b.ReportMetric(per(pt.d[PhaseHFFT]+pt.d[PhaseHMSM]), "h-s")
			b.ReportMetric(per(pt.d[PhaseHFFT]), "h-fft-s")
			b.ReportMetric(per(pt.d[PhasePrepare]+pt.d[PhaseLMSM]+pt.d[PhaseAMSM]+pt.d[PhaseB1MSM]), "g1msm-s")
			b.ReportMetric(per(pt.d[PhaseB2MSM]), "b2-s")
		})
	}
}
