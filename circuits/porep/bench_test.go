package porep

import (
	"flag"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-project/cuzk/groth16"
	"github.com/cuzk-project/cuzk/r1cs"
)

var benchSizes = flag.String("porep.sizes", "2KiB",
	"comma-separated partition sizes the synthesis benchmarks run: 2KiB, 8MiB, 512MiB, 32GiB, 64GiB "+
		"(8 MiB and below synthesize a consistent instance, larger sizes the blank partition; "+
		"a 32 GiB prover assignment holds about 17 GB)")

var benchConfigs = map[string]Config{
	"2KiB": config2KiB, "8MiB": config8MiB, "512MiB": config512MiB, "32GiB": config32GiB, "64GiB": config64GiB,
}

// BenchmarkSynthesize times one partition's synthesis into bellperson's
// prover assignment (a, b, c evaluated, densities tracked) and into a
// witness-only assignment (inputs and aux).
func BenchmarkSynthesize(b *testing.B) {
	for _, size := range strings.Split(*benchSizes, ",") {
		cfg, ok := benchConfigs[size]
		if !ok {
			b.Fatalf("unknown size %q", size)
		}
		var part *Partition
		if cfg.Nodes <= config8MiB.Nodes {
			part = newInstance(b, cfg, 3).part
		} else {
			part = BlankConfig(cfg)
			size += "-blank"
		}
		hint, err := cfg.Shape()
		if err != nil {
			b.Fatal(err)
		}
		rows := float64(hint.Constraints)

		b.Run(size+"/prover", func(b *testing.B) {
			cpu0 := cpuTime()
			for b.Loop() {
				a, err := groth16.Synthesize(part, hint)
				if err != nil {
					b.Fatal(err)
				}
				if a.NumConstraints() != hint.Constraints {
					b.Fatalf("%d rows, want %d", a.NumConstraints(), hint.Constraints)
				}
			}
			reportRates(b, rows, cpu0)
		})
		b.Run(size+"/witness", func(b *testing.B) {
			cpu0 := cpuTime()
			for b.Loop() {
				w := &r1cs.WitnessAssignment{
					Input: make([]fr.Element, 0, hint.Inputs),
					Aux:   make([]fr.Element, 0, hint.Aux),
				}
				if err := r1cs.Synthesize(w, part); err != nil {
					b.Fatal(err)
				}
			}
			reportRates(b, rows, cpu0)
		})
		// The same witness through the gadgets' generic skip path (no
		// r1cs.AuxBatcher): what the witness-only paths are measured against.
		b.Run(size+"/witness-generic", func(b *testing.B) {
			cpu0 := cpuTime()
			for b.Loop() {
				w := &r1cs.WitnessAssignment{
					Input: make([]fr.Element, 0, hint.Inputs),
					Aux:   make([]fr.Element, 0, hint.Aux),
				}
				if err := r1cs.Synthesize(skipping{w}, part); err != nil {
					b.Fatal(err)
				}
			}
			reportRates(b, rows, cpu0)
		})
		// Witness with its challenges on GOMAXPROCS goroutines (-test.cpu
		// sets it), into fresh vectors.
		b.Run(size+"/witness-parallel", func(b *testing.B) {
			cpu0 := cpuTime()
			for b.Loop() {
				if _, err := part.Witness(runtime.GOMAXPROCS(0)); err != nil {
					b.Fatal(err)
				}
			}
			reportRates(b, rows, cpu0)
		})
		// WitnessInto one reused witness: no zeroing, no page faults.
		b.Run(size+"/witness-reuse", func(b *testing.B) {
			w := &r1cs.WitnessAssignment{}
			cpu0 := cpuTime()
			for b.Loop() {
				if err := part.WitnessInto(w, runtime.GOMAXPROCS(0)); err != nil {
					b.Fatal(err)
				}
			}
			reportRates(b, rows, cpu0)
		})
	}
}

// skipping is a WitnessAssignment seen only as a constraint-skipping
// system: the gadgets take their generic skip path.
type skipping struct{ w *r1cs.WitnessAssignment }

func (s skipping) Alloc(v fr.Element) r1cs.Variable       { return s.w.Alloc(v) }
func (s skipping) AllocInput(v fr.Element) r1cs.Variable  { return s.w.AllocInput(v) }
func (s skipping) Enforce(a, b, c r1cs.LinearCombination) { s.w.Enforce(a, b, c) }
func (s skipping) SkipsConstraints() bool                 { return true }
func (s skipping) NumInputs() int                         { return s.w.NumInputs() }
func (s skipping) NumAux() int                            { return s.w.NumAux() }
func (s skipping) NumConstraints() int                    { return s.w.NumConstraints() }

// reportRates reports constraints per second of wall time and per second of
// process CPU time (GC included; steadier on a shared machine, and for the
// parallel witness the cost in cores).
func reportRates(b *testing.B, rows float64, cpu0 time.Duration) {
	b.ReportMetric(rows*float64(b.N)/b.Elapsed().Seconds(), "constraints/s")
	b.ReportMetric(rows*float64(b.N)/(cpuTime()-cpu0).Seconds(), "constraints/cpu-s")
}

// cpuTime is the process's user + system CPU time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
