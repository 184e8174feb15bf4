package cuda

import "github.com/cuzk-project/cuzk/memory"

// StagingBytes is the pinned staging the device may keep for the next
// partition (groth16.RunReport): the a, b staging Run has done with, 64
// bytes a row, and the L, A, B splits, back at Finish; 0 for a witness
// run's Partial.
func (p *Partial) StagingBytes() uint64 {
	if p.w == nil {
		return 0
	}
	return p.w.StagedBytes()
}

// KeepStaging gives the a, b staging back to the device's pool with its
// part of share, the part of the unit's reservation that counts the
// staging (groth16.RunReport), and leaves the rest to the splits, which
// Finish (or Discard) gives back the same way: the next Prepare of a
// partition of the same size takes them instead of page-locking 64 bytes
// a row and the tails anew. Freeing what the pool does not keep happens
// off the caller's path.
func (p *Partial) KeepStaging(share *memory.Reservation) {
	if p.w == nil {
		share.Close()
		return
	}
	ab := p.w.takeAB()
	abShare := share.Split(ab.n)
	p.w.stShare = share
	if ab.p == nil {
		abShare.Close()
		return
	}
	go p.d.pool.putShared(ab, abShare)
}

// EvictKept frees the stagings the device keeps with a share of the
// memory budget (groth16.Profile) and returns the bytes given back.
func (d *Device) EvictKept() uint64 { return d.pool.evictShared() }

// KeptBytes is the memory budget the kept stagings' shares hold
// (groth16.Profile).
func (d *Device) KeptBytes() uint64 { return d.pool.sharedBytes() }
