package aggregate

import (
	"context"
	"crypto/sha256"
	"fmt"
	"testing"
	"time"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-project/cuzk/circuits/porep"
	"github.com/cuzk-project/cuzk/filecoin"
	"github.com/cuzk-project/cuzk/groth16"
	snarkpack "github.com/cuzk-project/cuzk/groth16/aggregate"
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

// BenchmarkCommitBatch times SnarkPack aggregation and verification at
// production shapes, each input built in seconds and valid: the proofs are
// simulated (valid Groth16 proofs of the sectors' real public inputs under
// a verifying key whose trapdoor the simulator knows; see simulator) and
// the SRS is a development one, so every aggregate timed is one that
// verifies, and verify times a verification that succeeds. The shapes:
//
//   - interactive/256sectors: a commit batch of 256 32 GiB sectors, 2560
//     partition proofs padded to 4096 (AggregateSeals, VerifySeals);
//   - interactive/25sectors: 250 partition proofs padded to 256;
//   - ni/1sector: one 32 GiB non-interactive PoRep, its 126 partition
//     proofs padded to 128 under the transcript bytes SHA-256(comm_r),
//     what a non-interactive C2 aggregates.
//
// It needs no testdata: go test -c, then from any directory
// ./aggregate.test -test.run '^$' -test.bench BenchmarkCommitBatch -test.benchtime 1x
func BenchmarkCommitBatch(b *testing.B) {
	for _, sectors := range []int{25, 256} {
		b.Run(fmt.Sprintf("interactive/%dsectors", sectors), func(b *testing.B) { benchInteractive(b, sectors) })
	}
	b.Run("ni/1sector", benchNIPoRep)
}

// benchInteractive is BenchmarkCommitBatch's interactive shapes: setup
// once, then aggregate and verify as sub-benchmarks.
func benchInteractive(b *testing.B, sectors int) {
	t0 := time.Now()
	sim, seals, proofs := testBatch(b, filecoin.StackedDrg32GiBV1_1, sectors)
	n := TargetLen(sectors * 10)
	srs := devSRS(b, n)
	b.Logf("interactive, %d sectors, %d proofs padded to %d: inputs, proofs and SRS built in %v",
		sectors, sectors*10, n, time.Since(t0).Round(time.Millisecond))
	agg, err := AggregateSeals(context.Background(), srs, seals, proofs)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("aggregate", func(b *testing.B) {
		for b.Loop() {
			if _, err := AggregateSeals(context.Background(), srs, seals, proofs); err != nil {
				b.Fatal(err)
			}
		}
		reportBatch(b, sectors, n, len(agg))
	})
	b.Run("verify", func(b *testing.B) {
		for b.Loop() {
			if err := VerifySeals(srs, &sim.vk, seals, agg, nil); err != nil {
				b.Fatal(err)
			}
		}
		reportBatch(b, sectors, n, len(agg))
	})
}

// benchNIPoRep is BenchmarkCommitBatch's ni/1sector: the aggregate a
// non-interactive 32 GiB PoRep C2 holds, made and verified as the
// circuits package makes and verifies it (partition proofs in order,
// padded by repeating the last, transcript bytes SHA-256(comm_r)).
func benchNIPoRep(b *testing.B) {
	t0 := time.Now()
	v := testSeal(filecoin.StackedDrg32GiBV1_2_Feat_NonInteractivePoRep, 1, "ni bench")
	s, err := porep.SealOf(&v)
	if err != nil {
		b.Fatal(err)
	}
	inputs, err := s.Inputs()
	if err != nil {
		b.Fatal(err)
	}
	sim := newSimulator(len(inputs[0]), "filecoin/aggregate ni bench")
	n := TargetLen(len(inputs))
	proofs := make([]groth16.Proof, n)
	padded := make([][]fr.Element, n)
	for i := range proofs {
		j := min(i, len(inputs)-1)
		padded[i] = inputs[j]
		if i == j {
			proofs[i] = sim.prove(inputs[j])
		} else {
			proofs[i] = proofs[j]
		}
	}
	pk, vk, err := devSRS(b, n).Specialize(n)
	if err != nil {
		b.Fatal(err)
	}
	include := sha256.Sum256(s.CommR[:])
	b.Logf("non-interactive, 1 sector, %d proofs padded to %d: inputs, proofs and SRS built in %v",
		len(inputs), n, time.Since(t0).Round(time.Millisecond))
	agg, err := snarkpack.Aggregate(context.Background(), pk, include[:], proofs)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("aggregate", func(b *testing.B) {
		for b.Loop() {
			if _, err := snarkpack.Aggregate(context.Background(), pk, include[:], proofs); err != nil {
				b.Fatal(err)
			}
		}
		reportBatch(b, 1, n, snarkpack.Size(n))
	})
	b.Run("verify", func(b *testing.B) {
		for b.Loop() {
			if err := snarkpack.Verify(vk, &sim.vk, padded, agg, include[:], nil); err != nil {
				b.Fatal(err)
			}
		}
		reportBatch(b, 1, n, snarkpack.Size(n))
	})
}

func reportBatch(b *testing.B, sectors, proofs, size int) {
	secs := b.Elapsed().Seconds()
	b.ReportMetric(secs/float64(b.N), "s/op")
	b.ReportMetric(float64(sectors*b.N)/secs, "sectors/s")
	b.ReportMetric(float64(proofs*b.N)/secs, "proofs/s")
	b.ReportMetric(float64(size), "aggregate-bytes")
}
