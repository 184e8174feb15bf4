package engine

import "time"

// Status is a snapshot of the engine's state.
func (e *Engine) Status() Snapshot {
	s := Snapshot{
		Uptime:      time.Since(e.start),
		MemoryUsed:  e.budget.Used(),
		MemoryLimit: e.budget.Limit(),
		Claims:      e.claimCounts(),
	}
	s.AuxKept, s.AuxReused = e.aux.counts()
	if e.critBudget != nil { // the headroom counts as used only where used
		s.MemoryUsed += e.critBudget.Used() - e.critBudget.Limit()
	}
	for i, d := range e.devs {
		ds := DeviceStatus{Ordinal: uint32(i), Phases: d.phases.snapshot(), PreparePhases: d.prep.snapshot()}
		ds.Name = d.dev.Profile().Name
		for _, p := range d.keepers() {
			ds.KeptBytes += p.KeptBytes()
		}
		if err := d.lostErr.Load(); err != nil {
			ds.Lost = (*err).Error()
		}
		if j := d.current.Load(); j != nil {
			ds.CurrentJobID, ds.CurrentProofKind = j.id, j.kind.String()
		}
		s.Devices = append(s.Devices, ds)
	}
	if c, ok := e.cfg.Params.(ParamsCache); ok {
		s.SRS = c.Status()
	}
	e.mu.Lock()
	s.ProofsCompleted, s.ProofsFailed = e.completed, e.failed
	jobs := make([]*job, 0, len(e.jobs))
	for _, j := range e.jobs {
		jobs = append(jobs, j)
	}
	e.mu.Unlock()
	byKind := map[ProofKind]*QueueStatus{}
	for _, j := range jobs {
		j.mu.Lock()
		st, working := j.state, j.clock.working()
		j.mu.Unlock()
		if st == stateDone {
			continue
		}
		q := byKind[j.kind]
		if q == nil {
			q = &QueueStatus{ProofKind: j.kind.String()}
			byKind[j.kind] = q
		}
		// In progress: a unit is synthesizing or on a device now. A job
		// whose units all wait (for a device, for memory) is pending,
		// even after its first synthesis: 159 jobs queued on one device
		// are not "running".
		if working {
			q.InProgress++
		} else {
			q.Pending++
		}
	}
	for _, k := range KindsByPriority() {
		if q := byKind[k]; q != nil {
			s.Queues = append(s.Queues, *q)
		}
	}
	return s
}
