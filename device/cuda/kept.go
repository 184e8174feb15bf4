package cuda

import (
	"github.com/cuzk-project/cuzk/groth16"
	"github.com/cuzk-project/cuzk/memory"
)

// StagingBytes is the pinned staging the device may keep for the next
// partition (groth16.RunReport): the a, b staging Run has done with, 64
// bytes a row, and the L, A, B splits, back at Finish; for a witness run
// the witness's staging (dense, 32 bytes a value, where the values are not
// mostly 0 and 1: 4 GB for a 32 GiB WindowPoSt partition, whose
// page-locking anew took 2 s a partition and its freeing under the device
// lock 0.5 s).
func (p *Partial) StagingBytes() uint64 {
	switch {
	case p.wp != nil:
		return p.wp.stagingBytes()
	case p.w != nil:
		return p.w.StagedBytes()
	}
	return 0
}

// KeepStaging gives the a, b staging back to the device's pool with its
// part of share, the part of the unit's reservation that counts the
// staging (groth16.RunReport), and leaves the rest to the splits, which
// Finish (or Discard) gives back the same way: the next Prepare of a
// partition of the same size takes them instead of page-locking 64 bytes
// a row and the tails anew. The staging is kept when KeepStaging returns
// (a claim made next finds it); freeing one the pool does not keep
// happens off the caller's path.
func (p *Partial) KeepStaging(share *memory.Reservation) {
	if p.wp != nil {
		p.keepWitnessStaging(share)
		return
	}
	if p.w == nil {
		share.Close()
		return
	}
	ab := p.w.takeAB() // none where the Run kept it while in flight (staged.go)
	abShare := share.Split(ab.n)
	p.w.stShare = share
	p.d.keepAB(ab, abShare)
}

// EvictKept frees the stagings the device keeps with a share of the
// memory budget (groth16.Profile) and returns the bytes given back.
func (d *Device) EvictKept() uint64 { return d.pool.evictShared() }

// abStagingBytes is the a, b staging of a classic partition of rows
// constraints: a and b, 32 bytes a row each.
func abStagingBytes(rows int) uint64 { return uint64(2 * rows * 32) }

// ClaimKept hands over the share of a kept a, b staging that the Prepare
// of a classic partition of rows constraints would take (abStagingBytes;
// pool_claim.go), or nil: none fits, or a partition of that shape runs
// its witness on the device and takes no such staging
// (groth16.Profile.ClaimKept).
func (d *Device) ClaimKept(rows, vars int) *groth16.Claim {
	if rows <= 0 || d.evaluatesWitness(rows, vars) {
		return nil
	}
	n := abStagingBytes(rows)
	share := d.pool.claim(n)
	if share == nil {
		return nil
	}
	return &groth16.Claim{Share: share, Done: d.pool.claimDone(n, share)}
}

// KeptBytes is the memory budget the kept stagings' shares hold
// (groth16.Profile).
func (d *Device) KeptBytes() uint64 { return d.pool.sharedBytes() }

// keepWitnessStaging is KeepStaging for a witness run: each of the
// staging's buffers goes back to the pool with its part of share, off the
// caller's path (what the pool does not keep is freed there).
func (p *Partial) keepWitnessStaging(share *memory.Reservation) {
	st := p.wp.takeStaging()
	if st == nil {
		share.Close()
		return
	}
	parts := make([]*memory.Reservation, len(st.bufs))
	for i, b := range st.bufs {
		parts[i] = share.Split(b.n)
	}
	share.Close() // what the staging does not hold
	class := sizeClass(st.bytes())
	bufs := st.bufs
	st.bufs = nil
	set := p.d.pool.newSet()
	go func() {
		for i, b := range bufs {
			p.d.pool.putKept(b, parts[i], keptWitness, set, class)
		}
	}()
}
