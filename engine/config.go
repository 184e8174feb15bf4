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
	// WorkersPerDevice defaults to 2 (the dual-worker interlock). Each
	// device has one more worker, for CRITICAL units only.
	WorkersPerDevice int
	// CriticalDevices, when set, holds per device (same index; nil for
	// none) a second handle on the same hardware, which only the CRITICAL
	// worker uses and whose Runs take no device lock: a WinningPoSt then
	// runs beside the bulk Run in flight instead of after it (on a GPU, its
	// kernels interleave with the bulk unit's on their own streams). A
	// CRITICAL partition of more than CriticalLaneRows constraints takes
	// the device and its lock as any other unit.
	CriticalDevices []groth16.Device
	// CriticalLaneRows is the largest CRITICAL partition, in constraints,
	// run on a CriticalDevices handle; 0 means DefaultCriticalLaneRows.
	CriticalLaneRows int
	// FinishInline runs Finish on the device worker instead of off its
	// loop. Off by default; it exists to measure the single-worker
	// baseline (a worker that prepares, runs and finishes in turn).
	FinishInline bool
	// WitnessSynthesis makes synthesis compute only witnesses where a plan
	// offers the pre-compiled constraint system (Plan.System,
	// Partition.Witness): the device then evaluates a, b and c (the CUDA
	// device on the GPU from resident matrices, the CPU device with
	// System.Eval). Off: every partition goes through the prover's
	// synthesis (r1cs.ProvingAssignment).
	WitnessSynthesis bool
	// SynthesisWorkers bounds concurrent syntheses; defaults to the number
	// of CPUs. A witness-only synthesis counts as its partition's
	// WitnessThreads of them. One more slot is kept for CRITICAL units
	// only. The memory budget bounds them further.
	SynthesisWorkers int
	// Budget is the memory budget units reserve from before synthesis. Nil
	// means an unlimited budget.
	Budget *memory.Budget
	// CriticalHeadroom is memory of the budget held, from New to Close,
	// for CRITICAL units only: one whose reservation does not fit in the
	// budget takes it from the headroom, so a WinningPoSt does not wait for
	// bulk units to give memory back (a 32 GiB WinningPoSt unit reserves
	// about 320 MB). 0 means DefaultCriticalHeadroom when the budget is at
	// least 16 times that, and none for a smaller one; negative means none.
	// The headroom's parameters are not covered: keep the WinningPoSt
	// parameters resident (Preload) so admitting one loads nothing.
	CriticalHeadroom int64
	// Planner turns requests into partition plans.
	Planner Planner
	// Params provides parameters by circuit id. If it also implements
	// ParamsCache, Preload, Evict and the SRS status go to it.
	Params ParamsSource
	// ParamsBytes, when set, is what a circuit's parameters take in host
	// memory, as far as is known before they are loaded (0: not known):
	// Submit refuses a plan a partition of which does not fit in the
	// budget beside them (ErrNoMemory), as it could never run.
	ParamsBytes func(circuitID string) uint64
	// ParamsAvailable, when set, refuses at Submit, once the plan fits, a
	// circuit whose parameters can never be had (the daemon: a parameter
	// file missing from its cache that it cannot generate, or one that
	// failed its checks), rather than accepting its job and failing it on
	// every retry. It may take the circuit in: the daemon counts the
	// synthetic circuits it sets up there.
	ParamsAvailable func(circuitID string) error
	// Recorder receives the timeline events; nil records nothing.
	Recorder *timeline.Recorder
	// ResultTTL is how long a finished job's result stays available to
	// Await; defaults to 10 minutes.
	ResultTTL time.Duration
	// UrgentWindow is how long after its last CRITICAL or HIGH job a
	// circuit's parameters are kept from eviction (Engine.Urgent): 0 means
	// DefaultUrgentWindow, negative only while such jobs are queued or
	// running.
	UrgentWindow time.Duration
	// Rand is the source of the blinding scalars r, s; nil means
	// crypto/rand.
	Rand io.Reader
	// Assemble turns a unit's sums into its proof; nil means
	// groth16.Assemble. Timing tests on the sim device replace it to keep
	// elliptic-curve arithmetic out of what they measure.
	Assemble func(vk *groth16.VerifyingKey, sums *groth16.Sums, r, s fr.Element) (groth16.Proof, error)
}

// DefaultCriticalLaneRows is Config.CriticalLaneRows when 0: 2^22
// constraints, ten times a 32 GiB WinningPoSt partition (370,590) and a
// thirtieth of a 32 GiB PoRep one.
const DefaultCriticalLaneRows = 1 << 22

// DefaultResultTTL is how long results are kept when Config.ResultTTL is 0.
const DefaultResultTTL = 10 * time.Minute

// DefaultCriticalHeadroom is the CRITICAL headroom of a budget of 16 GiB or
// more when Config.CriticalHeadroom is 0: three 32 GiB WinningPoSt units.
const DefaultCriticalHeadroom = 1 << 30

// criticalHeadroom is the headroom in bytes for a budget of limit bytes.
func (c *Config) criticalHeadroom(limit uint64) uint64 {
	switch {
	case c.CriticalHeadroom < 0:
		return 0
	case c.CriticalHeadroom > 0:
		return uint64(c.CriticalHeadroom)
	case limit/16 >= DefaultCriticalHeadroom:
		return DefaultCriticalHeadroom
	}
	return 0
}

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
	if len(c.CriticalDevices) > len(c.Devices) {
		errs = append(errs, fmt.Errorf("engine: %d CRITICAL device handles for %d devices", len(c.CriticalDevices), len(c.Devices)))
	}
	if c.CriticalLaneRows == 0 {
		c.CriticalLaneRows = DefaultCriticalLaneRows
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
