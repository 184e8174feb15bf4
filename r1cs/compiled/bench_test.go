package compiled_test

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-project/cuzk/circuits/porep"
	"github.com/cuzk-project/cuzk/filecoin"
	"github.com/cuzk-project/cuzk/r1cs"
	"github.com/cuzk-project/cuzk/r1cs/compiled"
)

var benchSizes = flag.String("compiled.sizes", "2KiB",
	"comma-separated PoRep partition sizes the benchmarks run: 2KiB, 8MiB, 32GiB "+
		"(32 GiB: Compile of the blank partition only; about 6 GB of matrices)")

var (
	benchOut  = flag.String("compiled.out", "", "BenchmarkCompile writes the last size's system to this file")
	benchOpen = flag.String("compiled.open", "", "BenchmarkOpenFile opens this file (written with -compiled.out)")
)

var benchProofs = map[string]filecoin.SealProof{
	"2KiB": filecoin.StackedDrg2KiBV1_1, "8MiB": filecoin.StackedDrg8MiBV1_1, "32GiB": filecoin.StackedDrg32GiBV1_1,
}

// perCPU reports n items per op against the CPU time since start.
func perCPU(b *testing.B, start time.Duration, n float64, unit string) {
	if d := cpuTime() - start; d > 0 {
		b.ReportMetric(n*float64(b.N)/d.Seconds(), unit+"/cpu-s")
	}
}

func forSizes(b *testing.B, f func(b *testing.B, size string, proof filecoin.SealProof)) {
	for _, size := range strings.Split(*benchSizes, ",") {
		proof, ok := benchProofs[size]
		if !ok {
			b.Fatalf("unknown size %q", size)
		}
		f(b, size, proof)
	}
}

func blankPoRep(b *testing.B, proof filecoin.SealProof) (r1cs.Circuit, r1cs.Shape) {
	info, err := proof.Info()
	if err != nil {
		b.Fatal(err)
	}
	return porep.Blank(info), shapeOf(b, porep.ConfigFor(info))
}

// BenchmarkCompile records the blank PoRep partition; "prover" synthesizes
// the same circuit into a ProvingAssignment for the ratio (32 GiB: Compile
// only). Compile is sequential: run with -test.cpu 1.
func BenchmarkCompile(b *testing.B) {
	forSizes(b, func(b *testing.B, size string, proof filecoin.SealProof) {
		c, hint := blankPoRep(b, proof)
		rows := float64(hint.Constraints)
		b.Run(size+"/compile", func(b *testing.B) {
			var s *compiled.System
			start := cpuTime()
			for b.Loop() {
				if s != nil {
					s.Close()
				}
				var err error
				if s, err = compiled.Compile(c, hint); err != nil {
					b.Fatal(err)
				}
			}
			perCPU(b, start, rows, "constraints")
			b.ReportMetric(rows*float64(b.N)/b.Elapsed().Seconds(), "constraints/s")
			b.ReportMetric(float64(compiled.SectionsOf(s).Size), "bytes")
			b.ReportMetric(float64(len(s.Coeffs)), "coeffs")
			b.Logf("%s: digest %x, %d rows, nnz A/B/C %d/%d/%d", size, s.Digest, s.NumConstraints, s.A.NNZ(), s.B.NNZ(), s.C.NNZ())
			if *benchOut != "" {
				writeFile(b, *benchOut, s)
			}
			s.Close()
		})
		if size == "32GiB" {
			return
		}
		b.Run(size+"/prover", func(b *testing.B) {
			start := cpuTime()
			for b.Loop() {
				pa := r1cs.NewProvingAssignment(hint)
				if err := r1cs.Synthesize(pa, c); err != nil {
					b.Fatal(err)
				}
			}
			perCPU(b, start, rows, "constraints")
			b.ReportMetric(rows*float64(b.N)/b.Elapsed().Seconds(), "constraints/s")
		})
	})
}

// writeFile writes s to path and logs the time it took.
func writeFile(b *testing.B, path string, s *compiled.System) {
	start, cpu := time.Now(), cpuTime()
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	if err := compiled.Write(f, s); err != nil {
		b.Fatal(err)
	}
	if err := f.Close(); err != nil {
		b.Fatal(err)
	}
	st, _ := os.Stat(path)
	b.Logf("wrote %s: %d bytes in %v (%v CPU)", path, st.Size(), time.Since(start).Round(time.Millisecond), (cpuTime() - cpu).Round(time.Millisecond))
}

// BenchmarkOpenFile opens the file -compiled.open names (mapping, digest,
// Validate) and evaluates nothing.
func BenchmarkOpenFile(b *testing.B) {
	if *benchOpen == "" {
		b.Skip("no -compiled.open file")
	}
	st, err := os.Stat(*benchOpen)
	if err != nil {
		b.Fatal(err)
	}
	start := cpuTime()
	for b.Loop() {
		s, err := compiled.Open(*benchOpen)
		if err != nil {
			b.Fatal(err)
		}
		s.Close()
	}
	perCPU(b, start, float64(st.Size())/1e6, "MB")
	b.ReportMetric(float64(st.Size())*float64(b.N)/b.Elapsed().Seconds()/1e6, "MB/s")
	// What an opened system costs the Go heap (the arrays are the mapping).
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	s, err := compiled.Open(*benchOpen)
	if err != nil {
		b.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	b.ReportMetric(float64(after.HeapAlloc)-float64(before.HeapAlloc), "heap-bytes")
	runtime.KeepAlive(s)
	s.Close()
}

// partitionWitness is the compiled system and a consistent witness of
// PoRep partition 0 from a generated C1.
func partitionWitness(b *testing.B, proof filecoin.SealProof) (*compiled.System, *r1cs.WitnessAssignment) {
	fc := porepCircuit(b, proof)
	s := compile(b, fc.part, fc.hint)
	return s, witnessOf(b, fc.part, fc.hint)
}

// BenchmarkEval evaluates a, b and c of a PoRep partition from its
// witness, and a and b alone (EvalAB; parallel over GOMAXPROCS; compare
// -test.cpu 1,2).
func BenchmarkEval(b *testing.B) {
	forSizes(b, func(b *testing.B, size string, proof filecoin.SealProof) {
		if size == "32GiB" {
			return
		}
		s, w := partitionWitness(b, proof)
		n := s.NumConstraints
		av, bv, cv := make([]fr.Element, n), make([]fr.Element, n), make([]fr.Element, n)
		b.Run(size, func(b *testing.B) {
			start := cpuTime()
			for b.Loop() {
				if err := s.Eval(w.Input, w.Aux, av, bv, cv); err != nil {
					b.Fatal(err)
				}
			}
			perCPU(b, start, float64(n), "constraints")
			b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "constraints/s")
			nnz := s.A.NNZ() + s.B.NNZ() + s.C.NNZ()
			b.ReportMetric(float64(nnz)*float64(b.N)/b.Elapsed().Seconds(), "terms/s")
		})
		b.Run(size+"/ab", func(b *testing.B) { // EvalAB: what the CUDA device's classic path evaluates
			start := cpuTime()
			for b.Loop() {
				if err := s.EvalAB(w.Input, w.Aux, av, bv); err != nil {
					b.Fatal(err)
				}
			}
			perCPU(b, start, float64(n), "constraints")
			b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "constraints/s")
			nnz := s.A.NNZ() + s.B.NNZ()
			b.ReportMetric(float64(nnz)*float64(b.N)/b.Elapsed().Seconds(), "terms/s")
		})
	})
}

// BenchmarkWriteOpen writes the blank partition's system to a file (Write:
// digest, then bytes) and opens it (mapping, digest, Validate).
func BenchmarkWriteOpen(b *testing.B) {
	forSizes(b, func(b *testing.B, size string, proof filecoin.SealProof) {
		c, hint := blankPoRep(b, proof)
		s := compile(b, c, hint)
		path := filepath.Join(b.TempDir(), "s.r1cs")
		b.Run(size+"/write", func(b *testing.B) {
			start := cpuTime()
			for b.Loop() {
				f, err := os.Create(path)
				if err != nil {
					b.Fatal(err)
				}
				if err := compiled.Write(f, s); err != nil {
					b.Fatal(err)
				}
				if err := f.Close(); err != nil {
					b.Fatal(err)
				}
			}
			st, _ := os.Stat(path)
			perCPU(b, start, float64(st.Size())/1e6, "MB")
			b.ReportMetric(float64(st.Size()), "bytes")
			b.ReportMetric(float64(st.Size())*float64(b.N)/b.Elapsed().Seconds()/1e6, "MB/s")
		})
		b.Run(size+"/open", func(b *testing.B) {
			st, _ := os.Stat(path)
			start := cpuTime()
			for b.Loop() {
				o, err := compiled.Open(path)
				if err != nil {
					b.Fatal(err)
				}
				o.Close()
			}
			perCPU(b, start, float64(st.Size())/1e6, "MB")
			b.ReportMetric(float64(st.Size())*float64(b.N)/b.Elapsed().Seconds()/1e6, "MB/s")
		})
		b.Run(size+"/read", func(b *testing.B) {
			raw, err := os.ReadFile(path)
			if err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				if _, err := compiled.Read(bytes.NewReader(raw)); err != nil {
					b.Fatal(err)
				}
			}
		})
	})
}

// BenchmarkCompact compresses and expands a PoRep partition's aux vector
// and reports the sizes.
func BenchmarkCompact(b *testing.B) {
	forSizes(b, func(b *testing.B, size string, proof filecoin.SealProof) {
		if size == "32GiB" {
			return
		}
		_, w := partitionWitness(b, proof)
		v := append(append([]fr.Element(nil), w.Input...), w.Aux...)
		c := compiled.Compress(v)
		dense, compact := float64(len(v)*fr.Bytes), float64(c.Bytes())
		b.Logf("%s witness: %d values, %d others (%.1f %% 0/1); dense %.0f B, compact %.0f B, ratio %.3f",
			size, len(v), len(c.Others), 100*float64(len(v)-len(c.Others))/float64(len(v)), dense, compact, compact/dense)
		b.Run(size+"/compress", func(b *testing.B) {
			for b.Loop() {
				c = compiled.Compress(v)
			}
			b.ReportMetric(float64(len(v))*float64(b.N)/b.Elapsed().Seconds(), "values/s")
			b.ReportMetric(compact/dense, "ratio")
		})
		dst := make([]fr.Element, len(v))
		b.Run(size+"/expand", func(b *testing.B) {
			for b.Loop() {
				if err := c.Expand(dst); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(len(v))*float64(b.N)/b.Elapsed().Seconds(), "values/s")
		})
	})
}
