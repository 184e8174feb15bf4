package engine

import (
	"github.com/cuzk-project/cuzk/groth16"
	"github.com/cuzk-project/cuzk/memory"
)

// KeptStaging is implemented by a device's Partial whose Run leaves host
// memory the device may keep for a later partition: the CUDA device's
// page-locked staging of a, b and the splits (≈ 11 GB for a 32 GiB PoRep
// partition under a memory limit), which takes seconds to page-lock anew
// (the splits are the device's again after Finish). Right after Run
// the engine hands it StagingBytes of the unit's reservation
// (KeepStaging): the device keeps the buffer with that share of the
// budget until a later Prepare takes it (that unit's own reservation
// counts it then, and the share is closed), the engine evicts it
// (KeptEvictor) or the device frees it; the engine calls Finish or
// groth16.Discard after it. KeepStaging gets nil for a unit
// whose memory came from the CRITICAL headroom (kept buffers must not
// hold that), and the device then keeps the buffer only as it keeps
// buffers nobody reserved. A Partial whose KeepStaging is not called
// frees or keeps the buffer at Finish.
type KeptStaging interface {
	StagingBytes() uint64
	KeepStaging(share *memory.Reservation)
}

// KeptEvictor is implemented by devices that keep buffers with a share of
// the budget (KeptStaging): KeptBytes is what those shares hold now
// (DeviceStatus.KeptBytes); EvictKept frees the buffers, closes their
// shares, and returns the bytes given back to the budget.
type KeptEvictor interface {
	KeptBytes() uint64
	EvictKept() (freed uint64)
}

// keepStaging hands the staging share of u's reservation to p's device
// (KeptStaging), after Run.
func (e *Engine) keepStaging(u *unit, p groth16.Partial) {
	ks, ok := p.(KeptStaging)
	if !ok {
		return
	}
	n := ks.StagingBytes()
	if n == 0 {
		return
	}
	var share *memory.Reservation
	if u.res.Of(e.budget) {
		share = u.res.Split(n)
	}
	ks.KeepStaging(share)
}

// evictKept frees every buffer the engine's devices keep with a share of
// the budget (KeptEvictor).
func (e *Engine) evictKept() (freed uint64) {
	for _, d := range e.devs {
		for _, k := range d.keptEvictors() {
			freed += k.EvictKept()
		}
	}
	return freed
}

// keptEvictors is those of d's devices (its own, its CRITICAL one) that
// keep buffers with a share of the budget.
func (d *deviceState) keptEvictors() []KeptEvictor {
	var out []KeptEvictor
	for _, dev := range []any{d.dev, d.critical} {
		if k, ok := dev.(KeptEvictor); ok {
			out = append(out, k)
		}
	}
	return out
}
