package post

import (
	"flag"
	"fmt"
	"runtime"
	"testing"

	hmerkle "github.com/cuzk-project/cuzk/hash/merkle"
	"github.com/cuzk-project/cuzk/r1cs"
)

var benchSectors = flag.Int("post.sectors", 64,
	"circuit sectors of the blank 32 GiB WindowPoSt partition the synthesis benchmark runs "+
		"(2349 is the real one: 125 M rows, about 16 GB of prover assignment)")

// BenchmarkSynthesize times a blank WindowPoSt partition of 32 GiB sectors
// (10 challenges per sector, post.sectors of them) into bellperson's prover
// assignment: sequentially, and with Assign on 1 and GOMAXPROCS workers.
func BenchmarkSynthesize(b *testing.B) {
	cfg := WindowConfig(1<<30, hmerkle.Shape{Base: 8, Sub: 8})
	cfg.Sectors = *benchSectors
	part := BlankConfig(cfg)
	shape, err := cfg.Shape()
	if err != nil {
		b.Fatal(err)
	}
	rows := float64(shape.Constraints)
	b.Run("sequential", func(b *testing.B) {
		for b.Loop() {
			pa := r1cs.NewProvingAssignment(shape)
			if err := r1cs.Synthesize(pa, part); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(rows*float64(b.N)/b.Elapsed().Seconds(), "constraints/s")
	})
	for _, w := range []int{1, runtime.GOMAXPROCS(0)} {
		b.Run(fmt.Sprintf("assign-%d", w), func(b *testing.B) {
			for b.Loop() {
				if _, err := part.Assign(w); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(rows*float64(b.N)/b.Elapsed().Seconds(), "constraints/s")
		})
	}
}
