package label_test

import (
	"testing"

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
			for b.Loop() {
				cs := s.make()
				cs.AllocInput(one)
				synthesize(b, cs, id, parents, 3, 22)
				rows = cs.NumConstraints()
			}
			b.ReportMetric(float64(rows)*float64(b.N)/b.Elapsed().Seconds(), "constraints/s")
		})
	}
}
