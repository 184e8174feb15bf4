package groth16

import (
	"context"
	"time"

	"github.com/cuzk-project/cuzk/memory"
	"github.com/cuzk-project/cuzk/timeline"
)

// Profile is what a device tells an engine about itself beyond Prepare,
// Run and Finish, in one value (Device.Profile): a wrapper that embeds a
// Device passes it on whole, and an ability a device lacks is a zero
// field, never a method that a wrapper forgot to forward. The zero
// Profile is a device that holds only Go memory, whose host workspace is
// the CPU device's (the planner's estimate stands), that evaluates no
// witness itself, keeps no buffers and times nothing.
type Profile struct {
	// Name is the device as the status shows it ("" none).
	Name string

	// HostWorkspace, when set, is the host memory a classic partition
	// (a, b and c given) of rows constraints over vars variables holds on
	// this device from Prepare to Finish beside a, b, c and its witness:
	// the CPU device's 16 field elements a domain row; the CUDA device's
	// pinned a, b and L, A, B splits (its NTT domain and MSMs live on the
	// GPU). Nil: the planner's estimate (the CPU device's) stands.
	HostWorkspace func(rows, vars int) uint64

	// EvaluatesWitness, when set, reports whether a witness-only
	// assignment (Assignment.WitnessOnly) of rows constraints over vars
	// variables is evaluated in the device's own memory, so that the host
	// never holds its a, b and c (the CUDA device, from matrices resident
	// on the GPU). rows 0 asks about a partition of unknown size. A device
	// that decides by size errs towards no: a classic partition reserves
	// more. Nil: never.
	EvaluatesWitness func(rows, vars int) bool

	// EvaluatesIntoWorkspace: a witness-only assignment taken the classic
	// way here (EvaluatesWitness says no) has its a and b evaluated by
	// Prepare straight into the host workspace (HostWorkspace), and needs
	// no c, so the host never holds a, b and c beside the workspace.
	EvaluatesIntoWorkspace bool

	// KeptBytes and EvictKept, set together, are the device's buffers kept
	// with a share of the memory budget (RunReport.KeepStaging):
	// KeptBytes is what those shares hold now; EvictKept frees the
	// buffers, closes their shares and returns the bytes given back.
	KeptBytes, EvictKept func() uint64

	// ClaimKept, when set, hands over the share of the budget of a staging
	// the device keeps (RunReport.KeepStaging) that a Prepare of a
	// partition of rows constraints over vars variables would take: the
	// partition's reservation joins the share instead of the staging
	// being evicted to make room for it, and the staging stays kept for a
	// Prepare of that size (whichever takes it counts it). Nil: none kept
	// fits.
	ClaimKept func(rows, vars int) *Claim

	// Discard, when set, frees what x, a Prepared or Partial of this
	// device that will not be Run or Finished, holds beyond Go memory (the
	// CUDA device's page-locked buffers). Discarding a value already Run,
	// Finished or discarded does nothing.
	Discard func(x any)

	// Prepared, when set, reports on a Prepared of this device; nil: the
	// zero PrepareReport.
	Prepared func(w Prepared) PrepareReport

	// Ran, when set, reports on a Partial of this device; nil: the zero
	// RunReport.
	Ran func(r Partial) RunReport

	// Pairs and RunPair, set together, run two Prepareds of one parameter
	// set as one device run where that pays (the CUDA device under a
	// memory limit: every streamed parameter uploaded once for both).
	// Pairs reports whether it pays for p's partitions; RunPair has Run's
	// contract for both: both Partials, or an error and neither (both
	// released). Nil: partitions run one at a time.
	Pairs   func(p *Params) bool
	RunPair func(ctx context.Context, w0, w1 Prepared) (Partial, Partial, error)
}

// Claim is a kept staging's share handed over by Profile.ClaimKept.
type Claim struct {
	// Share is the staging's share of the budget, for the claimer's
	// reservation to join.
	Share *memory.Reservation
	// Done ends the claim, once: back, the share was not joined (the
	// reservation it was for did not fit) and goes back to the staging;
	// otherwise the claimer has prepared, or never will (its unit ended),
	// and a claimed staging no claim is left for is let go.
	Done func(back bool)
}

// PrepareReport is what a device tells of one Prepare.
type PrepareReport struct {
	// Phases are the timed parts of the Prepare, on the host, one after
	// the other (the CUDA device: the pinned allocations, a and b
	// evaluated into the staging, the splits).
	Phases []timeline.Phase
	// Staged: Prepare staged a witness-only assignment's witness in memory
	// of its own, and Run and Finish do not read the assignment's aux:
	// the engine drops it (Assignment.ReleaseWitness) and gives back its
	// reservation. StagedBytes is then the most host memory the Prepared,
	// its Run and Finish hold until Finish returns.
	Staged      bool
	StagedBytes uint64
	// Keeps is the part of StagedBytes the Run gives back to the device
	// to keep for the next Prepare of a partition of the same shape
	// (RunReport.KeepStaging, given a share that covers it), the share a
	// claim of it then hands over (Profile.ClaimKept); 0: none.
	Keeps uint64
}

// RunReport is what a device tells of one Run.
type RunReport struct {
	// KernelStart and KernelEnd are the kernels' interval as the device
	// measured it (CUDA events, the sim device); zero: the engine takes
	// the host interval around Run.
	KernelStart, KernelEnd time.Time
	// Phases are the timed parts of the Run; they may overlap (several
	// streams), each the span of its own work.
	Phases []timeline.Phase
	// StagingBytes is host memory the Run leaves that the device may keep
	// for a later partition (the CUDA device's page-locked staging of a, b
	// and the splits, seconds to page-lock anew); 0: none. Right after Run
	// the engine calls KeepStaging with that share of the unit's
	// reservation: the device keeps the buffer with it until a later
	// Prepare takes it (that unit's reservation counts it then, and the
	// share is closed), the engine evicts it (Profile.EvictKept) or the
	// device frees it. The share is nil for a unit whose memory is not the
	// budget's (the CRITICAL headroom), and the device then keeps the
	// buffer only as it keeps buffers nobody reserved. Where KeepStaging
	// is not called, Finish or Discard frees or keeps the buffer.
	StagingBytes uint64
	KeepStaging  func(share *memory.Reservation)
}

// Discard frees what x, a Prepared or Partial of d that will not be Run
// or Finished, holds (Profile.Discard).
func Discard(d Device, x any) {
	if f := d.Profile().Discard; f != nil && x != nil {
		f(x)
	}
}

// OfPrepare is the device's report on w (Profile.Prepared), the zero
// report where it gives none.
func (p Profile) OfPrepare(w Prepared) PrepareReport {
	if p.Prepared == nil {
		return PrepareReport{}
	}
	return p.Prepared(w)
}

// OfRun is the device's report on r (Profile.Ran), the zero report where
// it gives none.
func (p Profile) OfRun(r Partial) RunReport {
	if p.Ran == nil {
		return RunReport{}
	}
	return p.Ran(r)
}
