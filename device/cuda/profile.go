package cuda

import (
	"github.com/cuzk-project/cuzk/device/internal/split"
	"github.com/cuzk-project/cuzk/groth16"
)

// Profile is the device's groth16.Profile: its host workspace
// (HostWorkspace), the witness run where it takes it (EvaluatesWitness,
// EvaluatesWitnessOf), a and b of a classic witness-only partition
// evaluated into the staging (EvaluatesIntoWorkspace), the stagings kept
// with a share of the budget and their claims (kept.go), Discard, and the reports of each
// Prepare (its phases and pinned memory) and Run (CUDA events, phases,
// the staging it may keep), and paired runs where the parameters stream
// (pair.go).
func (d *Device) Profile() groth16.Profile {
	return groth16.Profile{
		HostWorkspace:          d.HostWorkspace,
		EvaluatesWitness:       d.evaluatesWitness,
		EvaluatesIntoWorkspace: d.EvaluatesIntoWorkspace(),
		KeptBytes:              d.KeptBytes,
		EvictKept:              d.EvictKept,
		ClaimKept:              d.ClaimKept,
		Discard:                d.Discard,
		Prepared:               d.prepareReport,
		Ran:                    runReport,
		Pairs:                  d.Pairs,
		RunPair:                d.RunPair,
	}
}

// evaluatesWitness is Profile.EvaluatesWitness: EvaluatesWitness for a
// partition of unknown size (rows 0), EvaluatesWitnessOf otherwise.
func (d *Device) evaluatesWitness(rows, vars int) bool {
	if rows == 0 {
		return d.EvaluatesWitness()
	}
	return d.EvaluatesWitnessOf(rows, vars)
}

// prepareReport is Profile.Prepared: a Prepared of this device staged
// everything Run and Finish read (StagedBytes), with the phases it timed;
// a classic one's a, b staging is what its Run keeps (Keeps), where the
// pool keeps stagings.
func (d *Device) prepareReport(x groth16.Prepared) groth16.PrepareReport {
	switch w := x.(type) {
	case *prepared:
		if w != nil {
			r := groth16.PrepareReport{Phases: w.PreparePhases(), Staged: true, StagedBytes: w.StagedBytes()}
			if d.pool.keepsStagings() {
				r.Keeps = w.ab.n
			}
			return r
		}
	case *witnessPrepared:
		if w != nil {
			return groth16.PrepareReport{Staged: true, StagedBytes: w.StagedBytes()}
		}
	}
	return groth16.PrepareReport{}
}

// runReport is Profile.Ran: the kernels' interval and phases by CUDA
// events, and the staging the device may keep (StagingBytes, KeepStaging).
func runReport(x groth16.Partial) groth16.RunReport {
	p, ok := x.(*Partial)
	if !ok || p == nil {
		return groth16.RunReport{}
	}
	start, end := p.KernelInterval()
	return groth16.RunReport{KernelStart: start, KernelEnd: end, Phases: p.KernelPhases(),
		StagingBytes: p.StagingBytes(), KeepStaging: p.KeepStaging}
}

// EvaluatesIntoWorkspace reports that a witness-only assignment taking the
// classic path here (not EvaluatesWitness, or a plan that streams) has its
// a and b evaluated by Prepare into the pinned staging HostWorkspace
// counts, and needs no c (groth16.Profile.EvaluatesIntoWorkspace): the
// host never holds a, b, c beside it.
func (d *Device) EvaluatesIntoWorkspace() bool { return true }

// HostWorkspace is the host memory a classic partition (a, b, c given) of
// rows constraints over vars variables holds here from Prepare to Finish
// (groth16.Profile.HostWorkspace): a and b staged in pinned memory (64
// bytes a row) and the L, A, B splits at their largest (every query at
// most vars bases, each with a bit and a tail entry, as split allocates
// them). The NTT domain and the MSMs live on the GPU.
func (d *Device) HostWorkspace(rows, vars int) uint64 {
	n := uint64(vars)
	perQuery := uint64(split.Words(vars)*4+4) + roomy(n*32+32) + roomy(n*4+4)
	return 64*uint64(rows) + 3*perQuery
}
