package label_test

import (
	"syscall"
	"testing"
	"time"

	"github.com/cuzk-project/cuzk/r1cs"
)

// BenchmarkLabelSynthesis measures synthesis of the 532,025-constraint label
// circuit into each kind of constraint system, in constraints per second.
func BenchmarkLabelSynthesis(b *testing.B) {
	id, parents := fixture()
	shape := r1cs.Shape{Inputs: 1, Aux: 540000, Constraints: 532025}
	systems := []struct {
		name string
		make func() r1cs.System
	}{
		{"prover", func() r1cs.System { return r1cs.NewProvingAssignment(shape) }},
		{"witness", func() r1cs.System {
			return &r1cs.WitnessAssignment{Aux: make([]fr0, 0, shape.Aux)}
		}},
		{"counter", func() r1cs.System { return &r1cs.Counter{} }},
	}
	for _, s := range systems {
		b.Run(s.name, func(b *testing.B) {
			b.ReportAllocs()
			rows := 0
			cpu0 := cpuTime()
			for b.Loop() {
				cs := s.make()
				cs.AllocInput(one)
				synthesize(b, cs, id, parents, 3, 22)
				rows = cs.NumConstraints()
			}
			b.ReportMetric(float64(rows)*float64(b.N)/b.Elapsed().Seconds(), "constraints/s")
			// Per second of process CPU time (GC included): steadier than
			// wall time on a shared machine.
			b.ReportMetric(float64(rows)*float64(b.N)/(cpuTime()-cpu0).Seconds(), "constraints/cpu-s")
		})
	}
}

// cpuTime is the process's user + system CPU time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
