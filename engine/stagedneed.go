package engine

import (
	"log/slog"
	"sync"
)

// A witness-only unit whose device stages its own copy (Footprint's
// stagedReserved: the CUDA device's witness run, or its classic path under
// a memory limit, which evaluates a and b into a page-locked staging)
// reserves from before synthesis the most its Prepare could hold: the
// dense witness beside the staging at its worst, every value of every
// query in a split's tail. For a 32 GiB PoRep partition on the classic
// path that is 27.7 GB, where a Prepare holds ≈ 15 (the dense witness and
// ≈ 11 GB of staging: which values are 0 or 1 follows from the circuit,
// not from the data, so it hardly moves between partitions of one shape).
// The worst case kept one partition waiting for the device within a
// budget where two or three fit, and a device that runs two queued
// partitions as one pass (pair.go) rarely found a partner.
//
// So the engine learns, per circuit and partition shape, the most a
// Prepare held (the dense witness and groth16.PrepareReport.StagedBytes),
// and a later unit of that shape reserves that and a sixteenth more, never
// more than its planned Reserve. Until the first Prepare of a shape its
// units reserve the worst case. A Prepare that held more than its unit
// reserved (a partition with more values other than 0 and 1 than any
// before by a sixteenth) is logged, and raises what later units reserve.

// stagedNeeds is what the engine learned: the most a Prepare held, per
// shape.
type stagedNeeds struct {
	mu sync.Mutex
	m  map[stagedShape]uint64
}

// stagedShape is a partition's shape as the planner gave it.
type stagedShape struct {
	circuit    string
	rows, vars int
}

// shapeOf is u's shape, and whether its reservation may be learned (a
// staged reservation of a known shape).
func shapeOf(u *unit) (stagedShape, bool) {
	f := &u.part
	return stagedShape{u.job.plan.CircuitID, f.Rows, f.Vars}, f.stagedReserved && f.Rows > 0 && f.WitnessDense > 0
}

// reserve is what u reserves before synthesis: its planned Reserve, or
// less where a Prepare of its shape held less.
func (s *stagedNeeds) reserve(u *unit) uint64 {
	planned := u.part.Reserve
	if ps := u.job.plan.Partitions; u.key.partition < len(ps) {
		planned = ps[u.key.partition].Reserve // (u's own may be a learned one: u queued again)
	}
	k, ok := shapeOf(u)
	if !ok {
		return planned
	}
	s.mu.Lock()
	need, seen := s.m[k]
	s.mu.Unlock()
	if !seen {
		return planned
	}
	return min(planned, need+need/16)
}

// learn records that u's Prepare held its dense witness and staged bytes
// of staging beside it, and reports whether that is more than u reserved.
func (s *stagedNeeds) learn(u *unit, staged uint64) (over bool) {
	k, ok := shapeOf(u)
	if !ok {
		return false
	}
	need := u.part.WitnessDense + staged
	s.mu.Lock()
	if s.m == nil {
		s.m = map[stagedShape]uint64{}
	}
	s.m[k] = max(s.m[k], need)
	s.mu.Unlock()
	return need > u.part.Reserve
}

// learnStaged is learn for u's Prepare, logged where it held more than
// u reserved.
func (e *Engine) learnStaged(u *unit, staged uint64) {
	if e.staged.learn(u, staged) {
		slog.Warn("a partition's Prepare held more host memory than it reserved; later partitions of its shape reserve more",
			"job", u.job.id, "partition", u.key.partition, "circuit", u.job.plan.CircuitID,
			"reserved", u.part.Reserve, "held", u.part.WitnessDense+staged)
	}
}
