package timeline

import (
	"cmp"
	"slices"
	"time"
)

// Stage is a span between two paired events.
type Stage uint8

const (
	StageJob      Stage = iota // JOB_SUBMIT → JOB_DONE, paired by job
	StageSynth                 // SYNTH_START → SYNTH_END
	StageQueue                 // DEV_QUEUE → DEV_PICKUP, paired by (job, partition)
	StagePrep                  // PREP_START → PREP_END
	StageLockWait              // LOCK_WAIT → LOCK_HELD
	StageLock                  // LOCK_HELD → LOCK_FREE
	StageKernel                // KERNEL_START → KERNEL_END (device clock)
	StageFinish                // FINISH_START → FINISH_END
	numStages
)

var stageDefs = [numStages]struct {
	name       string
	start, end Kind
	key        keyMode
}{
	StageJob:      {"job", JobSubmit, JobDone, byJob},
	StageSynth:    {"synth", SynthStart, SynthEnd, byWorker},
	StageQueue:    {"queue", DevQueue, DevPickup, byPartition},
	StagePrep:     {"prep", PrepStart, PrepEnd, byWorker},
	StageLockWait: {"lock_wait", LockWait, LockHeld, byWorker},
	StageLock:     {"lock", LockHeld, LockFree, byWorker},
	StageKernel:   {"kernel", KernelStart, KernelEnd, byWorker},
	StageFinish:   {"finish", FinishStart, FinishEnd, byWorker},
}

// keyMode says which fields pair a start with its end. A unit is queued
// before any worker owns it, and a job spans all partitions, so those two
// stages pair on fewer fields than the per-worker ones.
type keyMode uint8

const (
	byWorker    keyMode = iota // (job, partition, worker)
	byPartition                // (job, partition)
	byJob                      // job
)

func (s Stage) String() string {
	if s < numStages {
		return stageDefs[s].name
	}
	return "unknown"
}

// Interval is one paired span. Device and Worker come from the start event
// or, where it has none, from the end event (a queued unit gets its worker
// at pickup).
type Interval struct {
	Stage      Stage
	Job        string
	Partition  int
	Worker     int
	Device     int
	Start, End time.Duration
}

// Len is End − Start.
func (iv Interval) Len() time.Duration { return iv.End - iv.Start }

// SortByTime returns a copy of events ordered by At; events at the same
// instant keep their recorded order.
func SortByTime(events []Event) []Event {
	out := slices.Clone(events)
	slices.SortStableFunc(out, func(a, b Event) int { return cmp.Compare(a.At, b.At) })
	return out
}

// Pair turns events into intervals. Starts and ends are matched first in,
// first out per key (see Stage for the keys). It returns the intervals
// ordered by start and the events that take part in no interval: an end
// without a start, or a start still open at the end of the record (a ring
// that dropped old events, or a stage still running). LOCK_HELD both ends a
// lock wait and starts a lock hold; it is unpaired only if it does neither.
func Pair(events []Event) (intervals []Interval, unpaired []Event) {
	sorted := SortByTime(events)
	type key struct {
		stage           Stage
		job             string
		partition, work int
	}
	open := make(map[key][]int) // indexes into sorted, oldest first
	used := make([]bool, len(sorted))
	for i, e := range sorted {
		for s := range numStages {
			def := stageDefs[s]
			if e.Kind != def.start && e.Kind != def.end {
				continue
			}
			k := key{stage: s, job: e.Job, partition: -2, work: -2}
			if def.key <= byPartition {
				k.partition = e.Partition
			}
			if def.key == byWorker {
				k.work = e.Worker
			}
			if e.Kind == def.start {
				open[k] = append(open[k], i)
				continue
			}
			q := open[k]
			if len(q) == 0 {
				continue
			}
			start := sorted[q[0]]
			if len(q) == 1 {
				delete(open, k)
			} else {
				open[k] = q[1:]
			}
			used[q[0]], used[i] = true, true
			iv := Interval{Stage: s, Job: start.Job, Partition: start.Partition,
				Worker: start.Worker, Device: start.Device, Start: start.At, End: e.At}
			if iv.Partition < 0 {
				iv.Partition = e.Partition
			}
			if iv.Worker < 0 {
				iv.Worker = e.Worker
			}
			if iv.Device < 0 {
				iv.Device = e.Device
			}
			intervals = append(intervals, iv)
		}
	}
	for i, e := range sorted {
		if !used[i] {
			unpaired = append(unpaired, e)
		}
	}
	slices.SortStableFunc(intervals, func(a, b Interval) int { return cmp.Compare(a.Start, b.Start) })
	return intervals, unpaired
}

// span is a merged run of overlapping intervals of one device.
type span struct {
	start, end time.Duration
	first      Interval // starts the span
	last       Interval // reaches the span's end
}

// merge unions intervals (sorted by start): overlapping or touching
// intervals become one span.
func merge(ivs []Interval) []span {
	var out []span
	for _, iv := range ivs {
		if n := len(out); n > 0 && iv.Start <= out[n-1].end {
			if iv.End > out[n-1].end {
				out[n-1].end = iv.End
				out[n-1].last = iv
			}
			continue
		}
		out = append(out, span{start: iv.Start, end: iv.End, first: iv, last: iv})
	}
	return out
}
