package sim

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
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
	lost       atomic.Bool

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

// Profile is the device's groth16.Profile: its name, and each Run's busy
// interval as its kernel interval.
func (d *Device) Profile() groth16.Profile {
	return groth16.Profile{Name: d.cfg.Name, Ran: func(r groth16.Partial) groth16.RunReport {
		p, ok := r.(*Partial)
		if !ok || p == nil {
			return groth16.RunReport{}
		}
		return groth16.RunReport{KernelStart: p.start, KernelEnd: p.end}
	}}
}

// MaxConcurrentRuns is the largest number of Runs ever in flight at once;
// more than 1 means the caller did not serialize Run.
func (d *Device) MaxConcurrentRuns() int { return int(d.maxRunning.Load()) }

// Runs counts completed Runs.
func (d *Device) Runs() int64 { return d.runs.Load() }

// MaxIntervals bounds the busy intervals a device keeps: a daemon may run
// on the sim device for days.
const MaxIntervals = 1 << 12

// Intervals returns a copy of the last MaxIntervals Runs' busy intervals,
// in completion order.
func (d *Device) Intervals() []Interval {
	d.mu.Lock()
	defer d.mu.Unlock()
	iv := d.intervals
	if len(iv) > MaxIntervals {
		iv = iv[len(iv)-MaxIntervals:]
	}
	return append([]Interval(nil), iv...)
}

type prepared struct {
	a    *groth16.Assignment
	seed [32]byte
}

// Partial is the state between Run and Finish. It reports the Run's busy
// interval through KernelInterval (and Profile.Ran).
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
	if len(d.intervals) >= 2*MaxIntervals { // keep the newest, amortized O(1)
		d.intervals = append(d.intervals[:0], d.intervals[len(d.intervals)-MaxIntervals:]...)
	}
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

// Lose makes every later step fail with an error wrapping
// groth16.ErrDeviceLost, as a GPU that went away would.
func (d *Device) Lose() { d.lost.Store(true) }

func (d *Device) fail(s Step, a *groth16.Assignment) error {
	if d.lost.Load() {
		return fmt.Errorf("sim: %s: %v: %w", d.cfg.Name, s, groth16.ErrDeviceLost)
	}
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

// SumsFor derives Sums from seed: with k the first four bytes of the seed
// as a little-endian integer, H = k·G1, L = (k+1)·G1, A = (k+2)·G1,
// B1 = (k+3)·G1 and B2 = (k+4)·G2. They are computed from tables of
// multiples with a few additions, so that Finish costs the configured time
// and not the CPU time of scalar multiplications.
func SumsFor(seed [32]byte) *groth16.Sums {
	t := multiples()
	k := uint64(binary.LittleEndian.Uint32(seed[:4]))
	var s groth16.Sums
	for i, dst := range []*bls12381.G1Jac{&s.H, &s.L, &s.A, &s.B1} {
		t.g1(dst, k+uint64(i))
	}
	t.g2(&s.B2, k+4)
	return &s
}

// tables holds x·256^i·G for i < 5, x < 256, in G1 and G2: any k < 2^40 is
// the sum of five entries.
type tables struct {
	t1 [5][256]bls12381.G1Jac
	t2 [5][256]bls12381.G2Jac
}

var (
	tablesOnce sync.Once
	tablesVal  *tables
)

func multiples() *tables {
	tablesOnce.Do(func() {
		t := new(tables)
		_, _, g1, g2 := bls12381.Generators()
		var b1 bls12381.G1Jac
		var b2 bls12381.G2Jac
		b1.FromAffine(&g1)
		b2.FromAffine(&g2)
		for i := 0; i < 5; i++ {
			// t[i][0] is the identity (zero value is not: set it).
			t.t1[i][0].Set(&bls12381.G1Jac{})
			t.t1[i][0].X.SetOne()
			t.t1[i][0].Y.SetOne()
			t.t2[i][0].X.SetOne()
			t.t2[i][0].Y.SetOne()
			for x := 1; x < 256; x++ {
				t.t1[i][x].Set(&t.t1[i][x-1])
				t.t1[i][x].AddAssign(&b1)
				t.t2[i][x].Set(&t.t2[i][x-1])
				t.t2[i][x].AddAssign(&b2)
			}
			// next base: 256 · current base
			var n1 bls12381.G1Jac
			var n2 bls12381.G2Jac
			n1.Set(&t.t1[i][255])
			n1.AddAssign(&b1)
			n2.Set(&t.t2[i][255])
			n2.AddAssign(&b2)
			b1, b2 = n1, n2
		}
		tablesVal = t
	})
	return tablesVal
}

func (t *tables) g1(dst *bls12381.G1Jac, k uint64) {
	dst.Set(&t.t1[0][k&0xff])
	for i := 1; i < 5; i++ {
		dst.AddAssign(&t.t1[i][(k>>(8*i))&0xff])
	}
}

func (t *tables) g2(dst *bls12381.G2Jac, k uint64) {
	dst.Set(&t.t2[0][k&0xff])
	for i := 1; i < 5; i++ {
		dst.AddAssign(&t.t2[i][(k>>(8*i))&0xff])
	}
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
