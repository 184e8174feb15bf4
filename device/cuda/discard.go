package cuda

// Discard gives back to the pool the pinned buffers of x, a Prepared or
// Partial of this device that will not be Run or Finished
// (groth16.Profile.Discard: the engine drops a cancelled job's units). A value
// already Run, Finished or discarded, or not this device's, is left alone.
func (d *Device) Discard(x any) {
	switch x := x.(type) {
	case *prepared:
		if x != nil && !x.ran.Swap(true) {
			d.release(x)
		}
	case *witnessPrepared:
		if x != nil && !x.ran.Swap(true) {
			x.releaseStaging(d)
		}
	case *Partial:
		if x == nil || x.finished.Swap(true) {
			return
		}
		if x.wp != nil {
			x.wp.releaseStaging(d)
			if x.wb != nil {
				x.wb.release(d)
			}
			return
		}
		d.release(x.w)
	}
}
