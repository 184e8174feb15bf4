package cuda

import "log/slog"

// A free of page-locked memory (cudaFreeHost) waits until the whole GPU
// has finished its queued work, and every other thread's CUDA call waits
// behind it: freed while a bulk Run computes, it holds up a CRITICAL
// lane's Run by the rest of that Run (0.8 s measured on the H200). So what
// the pool lets go while a Run is in flight on the device (runStart,
// runEnd) waits, still counted by its share (one without a share within
// the cap), until a Run ends with nothing else in flight, and is freed
// then (under the device's lock where the Run was the device's own);
// EvictKept and drain free it at once.

// retire lets bufs go: while a Run is in flight they are kept until
// runEnd (or EvictKept, drain), those with a share still counted by it,
// those without within the cap (beyond it host memory no reservation
// counts would grow: those are freed at once); it returns what is to be
// freed now, for the caller to free (not under mu). Called with mu held.
func (p *pinnedPool) retire(bufs []sharedBuf) (now []sharedBuf) {
	if len(bufs) == 0 || p.runs.Load() == 0 {
		return bufs
	}
	for _, b := range bufs {
		if b.share == nil && p.dyingBare+b.b.n > p.limit() {
			now = append(now, b)
			continue
		}
		if b.share == nil {
			p.dyingBare += b.b.n
		}
		p.dying = append(p.dying, b)
	}
	return now
}

// takeDying takes out the retired buffers. Called with mu held.
func (p *pinnedPool) takeDying() []sharedBuf {
	d := p.dying
	p.dying, p.dyingBare = nil, 0
	return d
}

// runStart tells the pool a library Run is in flight on the device.
func (p *pinnedPool) runStart() { p.runs.Add(1) }

// runEnd tells the pool a Run has ended; own: on the device's own context,
// whose lock the caller still holds. Where that leaves nothing in flight,
// it frees what was retired meanwhile: a Run of the device's context at
// once, before the context's next Run can queue work that the frees would
// wait for; a lane's (own false) off its caller's path.
func (p *pinnedPool) runEnd(own bool) {
	if p.runs.Add(-1) > 0 {
		return
	}
	p.mu.Lock()
	dying := p.takeDying()
	if !own {
		p.freeLater(dying)
	}
	p.mu.Unlock()
	if own {
		p.freeShared(dying)
	}
}

// freedInFlight tells of a buffer of n bytes freed while a Run is in
// flight (inFlightFree): one beyond the cap, EvictKept or drain.
func (p *pinnedPool) freedInFlight(n uint64) {
	if p.inFlightFree != nil {
		p.inFlightFree(n)
		return
	}
	slog.Debug("page-locked memory freed while a Run is in flight: every CUDA call on the GPU waits until the GPU is idle", "bytes", n)
}
