package cpu

import (
	"context"
	"fmt"
	"math/bits"
	"math/rand/v2"
	"os"
	"runtime"
	"testing"
	"time"
	"unsafe"

	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/cuzk-project/cuzk/device/internal/split"
)

// largeBench gates the 2^20 benchmarks (minutes on a small machine):
// CUZK_BENCH_LARGE=1 runs them.
func largeBench(b *testing.B, n int) {
	if n > 1<<18 && os.Getenv("CUZK_BENCH_LARGE") == "" {
		b.Skipf("2^%d skipped; set CUZK_BENCH_LARGE=1 to run it", bits.TrailingZeros(uint(n)))
	}
}

var benchPoints []bls12381.G1Affine

// points returns n random G1 points, shared between benchmarks.
func points(n int) []bls12381.G1Affine {
	if len(benchPoints) < n {
		benchPoints = progression(n)
	}
	return benchPoints[:n]
}

// bitHeavy returns n scalars, 75 % of them in {0, 1} (half each), the rest
// uniform, as in a PoRep witness.
func bitHeavy(r *rand.Rand, n int) []fr.Element {
	s := make([]fr.Element, n)
	for i := range s {
		switch x := r.IntN(8); {
		case x < 3:
		case x < 6:
			s[i].SetOne()
		default:
			s[i] = randElement(r)
		}
	}
	return s
}

func dense(r *rand.Rand, n int) []fr.Element {
	s := make([]fr.Element, n)
	for i := range s {
		s[i] = randElement(r)
	}
	return s
}

// BenchmarkMSMG1 runs the device's split MSM and gnark-crypto's MultiExp
// over all scalars on the same points and scalars, alternating, and
// reports both and their ratio (gnark / cuzk: > 1 means the device is
// faster).
func BenchmarkMSMG1(b *testing.B) {
	for _, kind := range []struct {
		name string
		gen  func(*rand.Rand, int) []fr.Element
	}{{"dense", dense}, {"bit-heavy", bitHeavy}} {
		for _, logN := range []int{16, 18, 20} {
			n := 1 << logN
			b.Run(fmt.Sprintf("%s/2^%d", kind.name, logN), func(b *testing.B) {
				largeBench(b, n)
				pts := points(n)
				sc := kind.gen(rand.New(rand.NewPCG(2, uint64(n))), n)
				d := New(0)
				// One untimed pass of each side: the first MSM of a
				// process pays page faults for its scratch memory, which
				// a long-running prover does not.
				if _, err := d.msmG1(pts, sc); err != nil {
					b.Fatal(err)
				}
				if _, err := multiExp(context.Background(), pts, sc, d.tasks(), infinityG1()); err != nil {
					b.Fatal(err)
				}
				var ours, theirs time.Duration
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					// Alternate the order so that neither side always
					// runs first (cold caches, a pending GC).
					var got, want bls12381.G1Jac
					runOurs := func() {
						t0 := time.Now()
						var err error
						if got, err = d.msmG1(pts, sc); err != nil {
							b.Fatal(err)
						}
						ours += time.Since(t0)
					}
					runTheirs := func() {
						t0 := time.Now()
						if _, err := want.MultiExp(pts, sc, msmConfig(d.tasks())); err != nil {
							b.Fatal(err)
						}
						theirs += time.Since(t0)
					}
					runtime.GC()
					if i%2 == 0 {
						runOurs()
						runtime.GC()
						runTheirs()
					} else {
						runTheirs()
						runtime.GC()
						runOurs()
					}
					if !got.Equal(&want) {
						b.Fatal("device MSM differs from MultiExp")
					}
				}
				b.ReportMetric(float64(ours.Milliseconds())/float64(b.N), "cuzk-ms/op")
				b.ReportMetric(float64(theirs.Milliseconds())/float64(b.N), "gnark-ms/op")
				b.ReportMetric(float64(n)*float64(b.N)/ours.Seconds(), "cuzk-points/s")
				b.ReportMetric(theirs.Seconds()/ours.Seconds(), "speedup")
			})
		}
	}
}

// progression returns S + i·Q for i < n with random S, Q: one addition per
// point instead of a scalar multiplication, and no structure a Pippenger
// MSM could exploit.
func progression(n int) []bls12381.G1Affine {
	r := rand.New(rand.NewPCG(uint64(n), 1))
	sq := randG1(r, 2)
	jac := make([]bls12381.G1Jac, n)
	jac[0].FromAffine(&sq[0])
	for i := 1; i < n; i++ {
		jac[i].Set(&jac[i-1]).AddMixed(&sq[1])
	}
	return bls12381.BatchJacobianToAffineG1(jac)
}

// BenchmarkParts times the pieces of a bit-heavy split MSM at 2^16.
func BenchmarkParts(b *testing.B) {
	n := 1 << 16
	pts := points(n)
	sc := bitHeavy(rand.New(rand.NewPCG(2, uint64(n))), n)
	d := New(0)
	t := d.tasks()
	g := d.g1Group()
	spans := []split.Span{{Vals: sc}}
	var s sorted
	d.sort(&s, spans, t)
	bases, _ := compact(g, pts, s.tail, t)
	b.Run("ones", func(b *testing.B) {
		for b.Loop() {
			sumOnes(pts, s.ones, t, infinityG1(), &g1Scratches)
		}
		n := 0
		for _, w := range s.ones {
			n += bits.OnesCount32(w)
		}
		b.ReportMetric(float64(n), "points")
	})
	b.Run("tail", func(b *testing.B) {
		for b.Loop() {
			multiExp(context.Background(), bases, s.scalars, t, infinityG1())
		}
		b.ReportMetric(float64(len(s.scalars)), "points")
	})
	b.Run("split", func(b *testing.B) {
		for b.Loop() {
			var s sorted
			d.sort(&s, spans, t)
			compact(g, pts, s.tail, t)
			d.unsort(&s)
		}
	})
}

// BenchmarkChunkedTail compares a tail of 2^20 scattered bases multiplied
// at once (gathered whole, as Prepare does for a tail of one chunk) with
// the same tail gathered and multiplied in chunks of 2^18, and reports the
// bytes of bases each gathers. Needs CUZK_BENCH_LARGE=1.
func BenchmarkChunkedTail(b *testing.B) {
	n := 1 << 20
	largeBench(b, n)
	all := points(n)
	r := rand.New(rand.NewPCG(3, 4))
	idx := make([]uint32, n)
	for i, j := range r.Perm(n) {
		idx[i] = uint32(j)
	}
	sc := dense(r, n)
	d := New(0)
	t := d.tasks()
	for _, chunk := range []int{n, 1 << 18} {
		b.Run(fmt.Sprintf("chunk=2^%d", bits.TrailingZeros(uint(chunk))), func(b *testing.B) {
			defer func(c int) { tailChunkG1 = c }(tailChunkG1)
			tailChunkG1 = chunk
			for b.Loop() {
				if _, err := chunked(context.Background(), d.g1Group(), all, idx, sc, t); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(chunk*int(unsafe.Sizeof(all[0]))), "gathered-B")
		})
	}
}
