package sim

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"math/big"
	"sync"
	"sync/atomic"
	"time"

	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"

	"github.com/cuzk-project/cuzk/groth16"
)

// Step names one of the three device steps.
type Step uint8

const (
	StepPrepare Step = iota + 1
	StepRun
	StepFinish
)

func (s Step) String() string {
	switch s {
	case StepPrepare:
		return "prepare"
	case StepRun:
		return "run"
	case StepFinish:
		return "finish"
	}
	return fmt.Sprintf("step(%d)", uint8(s))
}

// ErrInjected is the error a configured failure returns (wrapped).
var ErrInjected = errors.New("sim: injected failure")

// Config sets the device's timing and behaviour.
type Config struct {
	Name                 string
	Prepare, Run, Finish time.Duration
	// Fail, when set, is asked before each step; returning true makes the
	// step fail with ErrInjected. Tests recognise their units by the
	// assignment's inputs (a, b and c are gone by Finish).
	Fail func(step Step, a *groth16.Assignment) bool
	// OnKernel, when set, is called after every Run with the interval the
	// device was busy.
	OnKernel func(start, end time.Time)
}

// Device is the fake device. It is safe for concurrent use.
type Device struct {
	cfg Config

	running    atomic.Int32
	maxRunning atomic.Int32
	runs       atomic.Int64

	mu        sync.Mutex
	intervals []Interval
}

// Interval is one Run's busy interval.
type Interval struct{ Start, End time.Time }

// New returns a device with cfg.
func New(cfg Config) *Device {
	if cfg.Name == "" {
		cfg.Name = "sim"
	}
	return &Device{cfg: cfg}
}

// Name is the configured name.
func (d *Device) Name() string { return d.cfg.Name }

// MaxConcurrentRuns is the largest number of Runs ever in flight at once;
// more than 1 means the caller did not serialize Run.
func (d *Device) MaxConcurrentRuns() int { return int(d.maxRunning.Load()) }

// Runs counts completed Runs.
func (d *Device) Runs() int64 { return d.runs.Load() }

// Intervals returns a copy of every Run's busy interval, in completion order.
func (d *Device) Intervals() []Interval {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]Interval(nil), d.intervals...)
}

type prepared struct {
	a    *groth16.Assignment
	seed [32]byte
}

// Partial is the state between Run and Finish. It reports the Run's busy
// interval through KernelInterval.
type Partial struct {
	a          *groth16.Assignment
	seed       [32]byte
	start, end time.Time
}

// KernelInterval is when the device was busy for this unit.
func (p *Partial) KernelInterval() (start, end time.Time) { return p.start, p.end }

// Prepare sleeps for Config.Prepare.
func (d *Device) Prepare(ctx context.Context, a *groth16.Assignment, p *groth16.Params) (groth16.Prepared, error) {
	if a == nil {
		return nil, errors.New("sim: prepare: nil assignment")
	}
	if err := d.fail(StepPrepare, a); err != nil {
		return nil, err
	}
	if err := sleep(ctx, d.cfg.Prepare); err != nil {
		return nil, err
	}
	return &prepared{a: a, seed: Seed(a)}, nil
}

// Run sleeps for Config.Run and records the interval.
func (d *Device) Run(ctx context.Context, w groth16.Prepared) (groth16.Partial, error) {
	pw, ok := w.(*prepared)
	if !ok {
		return nil, fmt.Errorf("sim: run: got %T, want this device's prepared state", w)
	}
	if err := d.fail(StepRun, pw.a); err != nil {
		return nil, err
	}
	n := d.running.Add(1)
	for {
		m := d.maxRunning.Load()
		if n <= m || d.maxRunning.CompareAndSwap(m, n) {
			break
		}
	}
	start := time.Now()
	err := sleep(ctx, d.cfg.Run)
	end := time.Now()
	d.running.Add(-1)
	if err != nil {
		return nil, err
	}
	d.runs.Add(1)
	d.mu.Lock()
	d.intervals = append(d.intervals, Interval{start, end})
	d.mu.Unlock()
	if d.cfg.OnKernel != nil {
		d.cfg.OnKernel(start, end)
	}
	pw.a.ReleaseABC()
	return &Partial{a: pw.a, seed: pw.seed, start: start, end: end}, nil
}

// Finish sleeps for Config.Finish and returns the unit's deterministic Sums.
func (d *Device) Finish(ctx context.Context, r groth16.Partial) (*groth16.Sums, error) {
	p, ok := r.(*Partial)
	if !ok {
		return nil, fmt.Errorf("sim: finish: got %T, want this device's partial state", r)
	}
	if err := d.fail(StepFinish, p.a); err != nil {
		return nil, err
	}
	if err := sleep(ctx, d.cfg.Finish); err != nil {
		return nil, err
	}
	return SumsFor(p.seed), nil
}

func (d *Device) fail(s Step, a *groth16.Assignment) error {
	if d.cfg.Fail != nil && d.cfg.Fail(s, a) {
		return fmt.Errorf("%w in %v", ErrInjected, s)
	}
	return nil
}

// Seed hashes the assignment's public inputs (ONE included) and its aux
// length: the value the Sums are derived from.
func Seed(a *groth16.Assignment) [32]byte {
	h := sha256.New()
	var n [8]byte
	binary.LittleEndian.PutUint64(n[:], uint64(len(a.Aux)))
	h.Write(n[:])
	for i := range a.Input {
		b := a.Input[i].Bytes()
		h.Write(b[:])
	}
	var s [32]byte
	h.Sum(s[:0])
	return s
}

// SumsFor derives Sums from seed: each is k·G for a scalar k from the seed
// (H: k, L: k+1, A: k+2, B1: k+3, B2: k+4 times the generator).
func SumsFor(seed [32]byte) *groth16.Sums {
	g1, g2, _, _ := bls12381.Generators()
	k := new(big.Int).SetBytes(seed[:])
	var s groth16.Sums
	step := func(i int64) *big.Int { return new(big.Int).Add(k, big.NewInt(i)) }
	s.H.ScalarMultiplication(&g1, step(0))
	s.L.ScalarMultiplication(&g1, step(1))
	s.A.ScalarMultiplication(&g1, step(2))
	s.B1.ScalarMultiplication(&g1, step(3))
	s.B2.ScalarMultiplication(&g2, step(4))
	return &s
}

// sleep waits d or until ctx is done.
func sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
