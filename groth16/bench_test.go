package groth16

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// benchParamsFile writes a dev setup of about rows rows to a temp file.
func benchParamsFile(b *testing.B, rows int) (string, *Params, int64) {
	b.Helper()
	c := randCircuit{Seed: 1, Inputs: 10, Rows: rows, BitHeavy: true}
	start := time.Now()
	p, err := Setup(&c, []byte("bench"))
	if err != nil {
		b.Fatal(err)
	}
	b.Logf("setup of %d rows: %v", rows, time.Since(start))
	path := filepath.Join(b.TempDir(), "bench.params")
	if err := WriteParams(path, p); err != nil {
		b.Fatal(err)
	}
	st, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	return path, p, st.Size()
}

func BenchmarkReadParams(b *testing.B) {
	path, p, size := benchParamsFile(b, 1<<16)
	points := len(p.VK.IC) + len(p.H) + len(p.L) + len(p.A) + len(p.BG1) + len(p.BG2)
	for _, checked := range []bool{false, true} {
		b.Run(fmt.Sprintf("rows=2^16/checked=%v", checked), func(b *testing.B) {
			b.SetBytes(size)
			for b.Loop() {
				if _, err := ReadParams(path, ReadOptions{Checked: checked}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(points)*float64(b.N)/b.Elapsed().Seconds(), "points/s")
		})
	}
}

func BenchmarkWriteParams(b *testing.B) {
	_, p, size := benchParamsFile(b, 1<<14)
	b.SetBytes(size)
	for b.Loop() {
		if _, err := p.MarshalBinary(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSetup times Setup; CUZK_BENCH_LARGE=1 adds 2^20 rows (minutes,
// a few GiB).
func BenchmarkSetup(b *testing.B) {
	sizes := []int{1 << 12, 1 << 16}
	if os.Getenv("CUZK_BENCH_LARGE") != "" {
		sizes = append(sizes, 1<<20)
	}
	for _, rows := range sizes {
		c := randCircuit{Seed: 1, Inputs: 10, Rows: rows, BitHeavy: true}
		b.Run(fmt.Sprintf("rows=2^%d", bitsLen(rows)), func(b *testing.B) {
			for b.Loop() {
				if _, err := Setup(&c, []byte("bench")); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(rows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
		})
	}
}

func bitsLen(n int) int {
	k := 0
	for 1<<k < n {
		k++
	}
	return k
}

func BenchmarkVerify(b *testing.B) {
	f := mustBatch(b)
	b.Run("single", func(b *testing.B) {
		for b.Loop() {
			if err := Verify(f.pvk, &f.proofs[0], f.inputs[0]); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "proofs/s")
	})
	b.Run("batch10", func(b *testing.B) {
		for b.Loop() {
			if err := BatchVerify(f.pvk, f.proofs, f.inputs, nil); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(10*float64(b.N)/b.Elapsed().Seconds(), "proofs/s")
	})
}
