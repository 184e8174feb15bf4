package circuittest

import (
	"testing"
	"time"

	"github.com/cuzk-project/cuzk/r1cs"
)

// Config is what a circuit's configuration answers about the system it
// builds.
type Config interface {
	Shape() (r1cs.Shape, error)
	NumInputs() int
}

// Count synthesizes c into an r1cs.Counter, logs its sizes, checks its rows
// (without the input rows, as the reference's counts give them) against
// rows, and cfg.Shape (the extrapolated count) and cfg.NumInputs (ONE
// excluded) against the counter. The caller checks the other counts.
func Count(t *testing.T, name string, c r1cs.Circuit, cfg Config, rows int) *r1cs.Counter {
	t.Helper()
	start := time.Now()
	var cnt r1cs.Counter
	if err := r1cs.Synthesize(&cnt, c); err != nil {
		t.Fatal(err)
	}
	t.Logf("%s: %d rows (+%d input rows), %d inputs, %d aux, a_aux %d, b_aux %d, b_input %d, nnz %d/%d/%d in %v",
		name, cnt.Constraints-cnt.Inputs, cnt.Inputs, cnt.Inputs, cnt.Aux, cnt.ADensityAuxCount(), cnt.BDensityAuxCount(),
		cnt.BDensityInputCount(), cnt.NonZeroA, cnt.NonZeroB, cnt.NonZeroC, time.Since(start).Round(time.Millisecond))
	if got := cnt.Constraints - cnt.Inputs; got != rows {
		t.Errorf("constraints = %d, want %d (%+d)", got, rows, got-rows)
	}
	if cnt.Inputs != cfg.NumInputs()+1 {
		t.Errorf("Config.NumInputs %d + ONE, circuit %d", cfg.NumInputs(), cnt.Inputs)
	}
	start = time.Now()
	s, err := cfg.Shape()
	if err != nil {
		t.Fatal(err)
	}
	if want := (r1cs.Shape{Inputs: cnt.Inputs, Aux: cnt.Aux, Constraints: cnt.Constraints}); s != want {
		t.Errorf("Config.Shape = %+v, synthesis %+v", s, want)
	}
	t.Logf("Config.Shape in %v", time.Since(start).Round(time.Microsecond))
	return &cnt
}
