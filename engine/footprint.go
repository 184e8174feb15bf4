package engine

import (
	"fmt"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-project/cuzk/groth16"
	"github.com/cuzk-project/cuzk/memory"
)

// Footprint is a partition's host memory in bytes: the planner's estimate
// (the circuits registry's, from the partition's shape), corrected for the
// engine's devices once, at Submit (DeviceReserves). One unit's memory is
// one reservation of the engine's budget (or of the CRITICAL headroom)
// that moves only through this file's functions and retire:
//
//  1. the dispatcher reserves Reserve before synthesis (admit.go), a unit
//     at a time, never more than the budget less the CRITICAL headroom;
//     where Reserve does not fit beside a staging a device keeps for a
//     Prepare of the unit's size, the reservation joins that staging's
//     share and reserves only the rest (claim.go); where it does not fit
//     beside a staging a prepared unit's Run will keep, it reserves the
//     rest now and joins the share when that Run hands it over, before
//     its Prepare (ahead.go);
//  2. after Prepare, where the device staged a witness-only assignment's
//     witness in its own memory (groth16.PrepareReport.Staged), the aux
//     goes and stagedRelease of the reservation with it (dropWitness),
//     the aux's part split off and kept with the vector for the next
//     synthesis (auxpool.go);
//  3. after Run, a, b and c are dead: ReserveABC goes (releaseABC); what
//     the device may keep of the Run's staging is split off and handed
//     to the device with the staging (keepStaging), to be closed when a
//     later Prepare takes it, the device frees it or the engine evicts it
//     (evictKept);
//  4. retire closes what is left, after Finish or when the unit fails or
//     its job ends.
//
// Invariants: ReserveABC ≤ Reserve (Submit refuses a plan breaking it);
// DeviceReserves replaces ReserveWork only where it is within Reserve;
// the releases of steps 2 and 3 are of bytes the reservation still holds
// (memory.Reservation.Release gives back at most what is left), so the
// budget never gets back more than the unit took.
type Footprint struct {
	// Reserve is the unit's memory, held from before synthesis until
	// Finish.
	Reserve uint64
	// ReserveABC is the part of Reserve (a, b and c) released right after
	// the device Run.
	ReserveABC uint64
	// ReserveWork is the part of Reserve the device holds from Prepare to
	// Finish beside a, b, c and the witness: the CPU device's, 16 field
	// elements per domain row. Where every device says what it holds
	// instead (groth16.Profile.HostWorkspace, given Rows and Vars),
	// DeviceReserves puts that in its place.
	ReserveWork uint64
	// Rows and Vars are the partition's constraints and variables (inputs
	// and aux), for the devices' HostWorkspace and EvaluatesWitness.
	Rows, Vars int
	// WitnessReserve, when not 0, replaces Reserve (and ReserveABC is 0)
	// for a partition synthesized witness-only for devices that evaluate
	// a, b and c in their own memory (groth16.Profile.EvaluatesWitness):
	// the host then holds only the witness and the device's staging of
	// it.
	WitnessReserve uint64
	// WitnessDense is the dense witness (inputs and aux, 32 bytes a value)
	// within WitnessReserve, or within Reserve where that stays; the rest
	// of WitnessReserve is the most the device's staging, with what its
	// Run and Finish add, holds. Once a device has staged its own copy
	// (groth16.PrepareReport.Staged), the engine drops the aux and gives
	// back the dense witness less its inputs and, on WitnessReserve, what
	// the staging was reserved beyond what it holds.
	WitnessDense uint64

	// stagedReserved: all Reserve holds after Prepare is the staging
	// (Reserve is WitnessReserve, or the witness and a workspace the
	// device evaluates a and b into: DeviceReserves).
	stagedReserved bool
}

// stagedRelease is what a unit of f gives back once its device staged
// its own copy of the witness, holding staged bytes until Finish, inputs
// the bytes of the input values that stay: where the staging is all the
// reservation holds after Prepare, all but those two, otherwise the dense
// aux.
func (f *Footprint) stagedRelease(inputs, staged uint64) uint64 {
	keep, from := inputs, f.WitnessDense
	if f.stagedReserved {
		keep, from = inputs+staged, f.Reserve
	}
	if keep >= from {
		return 0
	}
	return from - keep
}

// FitsBesideParams is ErrNoMemory where a partition of p does not fit in
// a budget of limit bytes beside its parameters' params bytes (Submit's
// check with Config.ParamsBytes).
func FitsBesideParams(p *Plan, params, limit uint64) error {
	for i, part := range p.Partitions {
		if need := part.Reserve + params; need > limit || need < params {
			return fmt.Errorf("%w: %s partition %d needs %d bytes (%s) beside its parameters' %d (%s): %d bytes, more than the memory budget of %d (%s)",
				ErrNoMemory, p.CircuitID, i, part.Reserve, humanBytes(part.Reserve), params, humanBytes(params),
				need, limit, humanBytes(limit))
		}
	}
	return nil
}

// humanBytes is n in GiB, MiB or KiB, for error messages.
func humanBytes(n uint64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	}
	return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
}

// deviceReservations sets p's reservations for the engine's devices
// (DeviceReserves).
func (e *Engine) deviceReservations(p *Plan) {
	DeviceReserves(p, e.cfg.WitnessSynthesis, append(e.cfg.Devices, e.cfg.CriticalDevices...))
}

// DeviceReserves is what Submit does to a plan's reservations for its
// devices (their groth16.Profile). Where every device reports its own
// host workspace (HostWorkspace), a partition's ReserveWork is replaced by
// the largest of theirs. With witness-only synthesis on, every partition
// that takes that path (the plan offers System, the partition Witness and
// a WitnessReserve) reserves its WitnessReserve instead of Reserve, and
// nothing after Run, when every device evaluates witness-only assignments
// of the partition's size in its own memory (EvaluatesWitness); otherwise,
// where every device evaluates them into its host workspace
// (EvaluatesIntoWorkspace), it reserves no a, b and c (Reserve less
// ReserveABC), and after Prepare only what the device staged
// (PrepareReport.StagedBytes). An admission check ahead of Submit applies
// it to see what Submit will reserve.
func DeviceReserves(p *Plan, witness bool, devices []groth16.Device) {
	profs := profilesOf(devices)
	ws := len(profs) > 0 && every(profs, func(d groth16.Profile) bool { return d.HostWorkspace != nil })
	if ws {
		for i := range p.Partitions {
			part := &p.Partitions[i]
			if part.ReserveWork == 0 || part.Rows == 0 || part.ReserveWork > part.Reserve {
				continue
			}
			var w uint64
			for _, d := range profs {
				w = max(w, d.HostWorkspace(part.Rows, part.Vars))
			}
			part.Reserve += w - part.ReserveWork
			part.ReserveWork = w
		}
	}
	if !witness || p.System == nil {
		return
	}
	into := ws && every(profs, func(d groth16.Profile) bool { return d.EvaluatesIntoWorkspace })
	for i := range p.Partitions {
		part := &p.Partitions[i]
		if part.Witness == nil {
			continue
		}
		switch {
		case part.WitnessReserve > 0 && evaluateWitness(profs, part.Rows, part.Vars):
			part.Reserve, part.ReserveABC, part.stagedReserved = part.WitnessReserve, 0, true
		case into && part.ReserveABC <= part.Reserve:
			part.Reserve -= part.ReserveABC
			part.ReserveABC, part.stagedReserved = 0, true
		}
	}
}

// profilesOf is the profiles of devices, nil ones skipped.
func profilesOf(devices []groth16.Device) []groth16.Profile {
	out := make([]groth16.Profile, 0, len(devices))
	for _, d := range devices {
		if d != nil {
			out = append(out, d.Profile())
		}
	}
	return out
}

// evaluateWitness reports whether every device (at least one) evaluates a
// witness-only partition of rows constraints over vars variables in its
// own memory (rows 0: of a size not known).
func evaluateWitness(profs []groth16.Profile, rows, vars int) bool {
	return len(profs) > 0 && every(profs, func(d groth16.Profile) bool {
		return d.EvaluatesWitness != nil && d.EvaluatesWitness(rows, vars)
	})
}

// every reports whether f holds for every profile.
func every(profs []groth16.Profile, f func(groth16.Profile) bool) bool {
	for _, d := range profs {
		if !f(d) {
			return false
		}
	}
	return true
}

// dropWitness lets u's witness-only aux go once its Prepared holds the
// device's own copy (PrepareReport.Staged), and gives back what u reserved
// for it beyond what the staging holds (Partition.stagedRelease).
func (e *Engine) dropWitness(u *unit, pr groth16.PrepareReport) {
	if !pr.Staged || !u.a.WitnessOnly() {
		return
	}
	inputs := uint64(len(u.a.Input)) * fr.Bytes
	aux := u.a.Aux
	u.a.ReleaseWitness()
	rel := u.part.stagedRelease(inputs, pr.StagedBytes)
	// the dead aux kept for the next synthesis, still counted (auxpool.go)
	if n := uint64(cap(aux)) * fr.Bytes; n >= auxMin && n <= rel && u.res.Of(e.budget) {
		e.aux.put(aux, u.res.Split(n))
		rel -= n
		defer e.auxOffered() // a unit waiting for memory may fit with it
	}
	u.res.Release(rel)
}

// releaseABC drops u's a, b and c, dead after Run, and gives back their
// memory (ReserveABC).
func (e *Engine) releaseABC(u *unit) {
	u.a.ReleaseABC()
	u.res.Release(u.part.ReserveABC)
}

// keepStaging hands the staging share of u's reservation to its device
// (groth16.RunReport.KeepStaging), after Run. A unit whose memory came
// from the CRITICAL headroom hands nil: kept buffers must not hold that.
func (e *Engine) keepStaging(u *unit, rr groth16.RunReport) {
	if rr.StagingBytes == 0 || rr.KeepStaging == nil {
		return
	}
	var share *memory.Reservation
	if u.res.Of(e.budget) {
		share = u.res.Split(rr.StagingBytes)
	}
	rr.KeepStaging(share)
}

// evictKept frees every buffer the engine's devices keep with a share of
// the budget (groth16.Profile.EvictKept).
func (e *Engine) evictKept() (freed uint64) {
	freed = e.aux.drop()
	for _, d := range e.devs {
		for _, p := range d.keepers() {
			freed += p.EvictKept()
		}
	}
	return freed
}

// evictKeptAside starts freeing, on a goroutine of its own, every buffer
// the engine's devices keep with a share of the budget, and reports
// whether any was kept. Until the frees end the engine is not stuck (that
// memory is coming back); when they end, the dispatcher's memory wait is
// interrupted so that it looks again.
func (e *Engine) evictKeptAside() bool {
	kept := false
	for _, d := range e.devs {
		for _, p := range d.keepers() {
			kept = kept || p.KeptBytes() > 0
		}
	}
	if !kept {
		return false
	}
	e.evicting.Add(1)
	e.wg.Add(1)
	go func() {
		defer e.wg.Done()
		e.evictKept()
		e.evicting.Add(-1)
		e.synthQ.interruptWait()
	}()
	return true
}

// keepers is the profiles of those of d's devices (its own, its CRITICAL
// one) that keep buffers with a share of the budget.
func (d *deviceState) keepers() []groth16.Profile {
	var out []groth16.Profile
	for _, dev := range []groth16.Device{d.dev, d.critical} {
		if dev == nil {
			continue
		}
		if p := dev.Profile(); p.EvictKept != nil && p.KeptBytes != nil {
			out = append(out, p)
		}
	}
	return out
}
