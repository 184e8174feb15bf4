package r1cs_test

import (
	"syscall"
	"testing"
	"time"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-project/cuzk/gadgets/boolean"
	"github.com/cuzk-project/cuzk/gadgets/sha256"
	"github.com/cuzk-project/cuzk/r1cs"
)

// sha256Chain hashes a 64-byte block n times, each digest feeding the next
// block: about 45 thousand rows per hash, nearly all Boolean gadgets.
type sha256Chain struct{ n int }

func (c sha256Chain) Synthesize(cs r1cs.ConstraintSystem) error {
	data := make([]byte, 64)
	for i := range data {
		data[i] = byte(7 * i)
	}
	bits := boolean.BytesIntoBooleanVecBE(cs, data)
	for range c.n {
		out := sha256.Hash(cs, bits)
		bits = append(out, out...)
	}
	return nil
}

// BenchmarkChecker compares witness checking with the prover's
// assignment on the same gadget-heavy circuit, in constraints/s.
func BenchmarkChecker(b *testing.B) {
	circuit := sha256Chain{n: 8}
	var shape r1cs.Shape
	{
		var c r1cs.Checker
		if err := r1cs.Synthesize(&c, circuit); err != nil {
			b.Fatal(err)
		}
		if !c.Satisfied() {
			b.Fatalf("row %d of the SHA-256 chain unsatisfied", c.FirstUnsatisfied())
		}
		shape = r1cs.Shape{Inputs: c.NumInputs(), Aux: c.NumAux(), Constraints: c.NumConstraints()}
	}
	for _, sys := range []struct {
		name string
		new  func() r1cs.System
	}{
		{"Checker", func() r1cs.System { return r1cs.NewChecker(shape) }},
		{"ProvingAssignment", func() r1cs.System { return r1cs.NewProvingAssignment(shape) }},
	} {
		b.Run(sys.name, func(b *testing.B) {
			cpu0 := cpuTime()
			for b.Loop() {
				if err := r1cs.Synthesize(sys.new(), circuit); err != nil {
					b.Fatal(err)
				}
			}
			rows := float64(shape.Constraints) * float64(b.N)
			b.ReportMetric(rows/b.Elapsed().Seconds(), "constraints/s")
			// CPU time, GC included: the figure that survives a shared machine.
			b.ReportMetric(rows/(cpuTime()-cpu0).Seconds(), "constraints/cpu-s")
		})
	}
}

// cpuTime is the process's user + system time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// corrupt flips the value of the k-th aux allocation.
type corrupt struct {
	*r1cs.Checker
	k, n int
}

func (c *corrupt) Alloc(v fr.Element) r1cs.Variable {
	if c.n == c.k {
		var one fr.Element
		one.SetOne()
		v.Add(&v, &one)
	}
	c.n++
	return c.Checker.Alloc(v)
}

// A SHA-256 chain is satisfied as synthesized; one changed witness value
// makes the checker report a row at or after the one that first uses it.
func TestCheckerSHA256(t *testing.T) {
	var ok r1cs.Checker
	if err := r1cs.Synthesize(&ok, sha256Chain{n: 2}); err != nil {
		t.Fatal(err)
	}
	if !ok.Satisfied() || ok.NumConstraints() < 2*45000 {
		t.Fatalf("%d rows, %d unsatisfied (first %d)", ok.NumConstraints(), ok.Unsatisfied(), ok.FirstUnsatisfied())
	}
	for _, k := range []int{0, 1000, ok.NumAux() - 1} {
		bad := &corrupt{Checker: &r1cs.Checker{}, k: k}
		if err := r1cs.Synthesize(bad, sha256Chain{n: 2}); err != nil {
			t.Fatal(err)
		}
		if bad.Satisfied() || bad.FirstUnsatisfied() < 0 || bad.NumConstraints() != ok.NumConstraints() {
			t.Errorf("aux %d changed: %d of %d rows unsatisfied, first %d", k, bad.Unsatisfied(), bad.NumConstraints(), bad.FirstUnsatisfied())
		}
	}
}
