package aggregate

import (
	"context"
	"fmt"
	"testing"

	"github.com/cuzk-project/cuzk/filecoin"
)

// BenchmarkSeals aggregates and verifies commit batches of 32 GiB sectors
// (10 partition proofs each) with simulated proofs, reporting sectors/s.
func BenchmarkSeals(b *testing.B) {
	for _, sectors := range []int{4, 26} { // 40 → 64 and 260 → 512 proofs
		sim, seals, proofs := testBatch(b, filecoin.StackedDrg32GiBV1_1, sectors)
		srs := devSRS(b, TargetLen(sectors*10))
		b.Run(fmt.Sprintf("aggregate/sectors=%d", sectors), func(b *testing.B) {
			for b.Loop() {
				if _, err := AggregateSeals(context.Background(), srs, seals, proofs); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(sectors*b.N)/b.Elapsed().Seconds(), "sectors/s")
		})
		agg, err := AggregateSeals(context.Background(), srs, seals, proofs)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("verify/sectors=%d", sectors), func(b *testing.B) {
			for b.Loop() {
				if err := VerifySeals(srs, &sim.vk, seals, agg, nil); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(sectors*b.N)/b.Elapsed().Seconds(), "sectors/s")
		})
	}
}
