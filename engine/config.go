package engine

import (
	"errors"
	"fmt"
	"io"
	"runtime"
	"time"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-project/cuzk/groth16"
	"github.com/cuzk-project/cuzk/memory"
	"github.com/cuzk-project/cuzk/timeline"
)

// Config assembles an engine. Devices, Planner and Params are required.
type Config struct {
	// Devices are the proving devices; each gets WorkersPerDevice workers
	// sharing one lock held only around Run.
	Devices []groth16.Device
	// WorkersPerDevice defaults to 2 (the dual-worker interlock).
	WorkersPerDevice int
	// FinishInline runs Finish on the device worker instead of off its
	// loop. Off by default; it exists to measure the single-worker
	// baseline (a worker that prepares, runs and finishes in turn).
	FinishInline bool
	// SynthesisWorkers bounds concurrent syntheses; defaults to the number
	// of CPUs. One more slot is kept for CRITICAL units only. The memory
	// budget bounds them further.
	SynthesisWorkers int
	// Budget is the memory budget units reserve from before synthesis. Nil
	// means an unlimited budget.
	Budget *memory.Budget
	// Planner turns requests into partition plans.
	Planner Planner
	// Params provides parameters by circuit id. If it also implements
	// ParamsCache, Preload, Evict and the SRS status go to it.
	Params ParamsSource
	// Recorder receives the timeline events; nil records nothing.
	Recorder *timeline.Recorder
	// ResultTTL is how long a finished job's result stays available to
	// Await; defaults to 10 minutes.
	ResultTTL time.Duration
	// Rand is the source of the blinding scalars r, s; nil means
	// crypto/rand.
	Rand io.Reader
	// Assemble turns a unit's sums into its proof; nil means
	// groth16.Assemble. Timing tests on the sim device replace it to keep
	// elliptic-curve arithmetic out of what they measure.
	Assemble func(vk *groth16.VerifyingKey, sums *groth16.Sums, r, s fr.Element) (groth16.Proof, error)
}

// DefaultResultTTL is how long results are kept when Config.ResultTTL is 0.
const DefaultResultTTL = 10 * time.Minute

func (c *Config) setDefaults() {
	if c.WorkersPerDevice <= 0 {
		c.WorkersPerDevice = 2
	}
	if c.SynthesisWorkers <= 0 {
		c.SynthesisWorkers = runtime.NumCPU()
	}
	if c.ResultTTL <= 0 {
		c.ResultTTL = DefaultResultTTL
	}
	if c.Assemble == nil {
		c.Assemble = groth16.Assemble
	}
	if c.Budget == nil {
		c.Budget = memory.New(^uint64(0))
	}
}

// Validate reports what is missing or wrong.
func (c *Config) Validate() error {
	var errs []error
	if len(c.Devices) == 0 {
		errs = append(errs, errors.New("engine: no devices"))
	}
	for i, d := range c.Devices {
		if d == nil {
			errs = append(errs, fmt.Errorf("engine: device %d is nil", i))
		}
	}
	if c.Planner == nil {
		errs = append(errs, errors.New("engine: no planner"))
	}
	if c.Params == nil {
		errs = append(errs, errors.New("engine: no params source"))
	}
	if c.WorkersPerDevice < 0 || c.SynthesisWorkers < 0 || c.ResultTTL < 0 {
		errs = append(errs, errors.New("engine: negative worker count or TTL"))
	}
	return errors.Join(errs...)
}
