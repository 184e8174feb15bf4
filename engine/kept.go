package engine

import (
	"github.com/cuzk-project/cuzk/groth16"
	"github.com/cuzk-project/cuzk/memory"
)

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
	for _, d := range e.devs {
		for _, p := range d.keepers() {
			freed += p.EvictKept()
		}
	}
	return freed
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
