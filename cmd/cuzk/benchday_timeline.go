package main

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/cuzk-project/cuzk/timeline"
)

// dayTimeline is what the daemon's timeline says of the day's own jobs:
// each device's kernel utilization, how long each kind waited for the
// device lock, and which kind's kernels the device sat idle between
// (cross-job stalls, by the kind before and the kind after).
type dayTimeline struct {
	Events    int               `json:"events"`
	Devices   []dayDeviceUse    `json:"devices"`
	LockWaits []dayLockWait     `json:"lock_waits"`
	Stalls    []dayStallBetween `json:"stalls"`
	Late      []dayLateRun      `json:"late_winning,omitempty"`
	text      string            // writeUtilization of the day's jobs: devices and stages
}

// dayLateRun is where a late WinningPoSt's time went, from its job's
// intervals: each stage's time, and the wait between the end of its
// Prepare and the start of its kernels (the device's clock: a lane Run
// held up by another thread's CUDA call, or a Run waiting for the lock).
type dayLateRun struct {
	ID            string        `json:"id"`
	Job           time.Duration `json:"job_ns"`
	Synth         time.Duration `json:"synth_ns"`
	Queue         time.Duration `json:"queue_ns"`
	Prep          time.Duration `json:"prep_ns"`
	BeforeKernels time.Duration `json:"before_kernels_ns"`
	Kernels       time.Duration `json:"kernels_ns"`
	Finish        time.Duration `json:"finish_ns"`
}

type dayDeviceUse struct {
	Device     int           `json:"device"`
	Wall       time.Duration `json:"wall_ns"`
	KernelUtil float64       `json:"kernel_util"`
	LockUtil   float64       `json:"lock_util"`
	StallTime  time.Duration `json:"stall_ns"`
}

// dayLockWait is one kind's waits for a device lock (LOCK_WAIT → LOCK_HELD).
type dayLockWait struct {
	Kind  string        `json:"kind"`
	Count int           `json:"count"`
	Total time.Duration `json:"total_ns"`
	Max   time.Duration `json:"max_ns"`
}

// dayStallBetween is the device idle between a kernel of kind Before and
// the next kernel, of another job of kind After.
type dayStallBetween struct {
	Before string        `json:"before"`
	After  string        `json:"after"`
	Count  int           `json:"count"`
	Total  time.Duration `json:"total_ns"`
}

// analyzeDay reads the events of the day's jobs (kindOf: job id → kind;
// other jobs' events are left out); late names the WinningPoSts to break
// down (dayLateRun).
func analyzeDay(events []timeline.Event, kindOf map[string]string, late []string) *dayTimeline {
	var mine []timeline.Event
	jobs := map[string]bool{}
	for _, e := range events {
		if _, ok := kindOf[e.Job]; ok {
			mine = append(mine, e)
			jobs[e.Job] = true
		}
	}
	rep := timeline.Analyze(mine)
	t := &dayTimeline{Events: len(mine)}
	var b strings.Builder
	if writeUtilization(&b, mine, jobs) == nil {
		t.text = b.String()
	}

	stalls := map[[2]string]*dayStallBetween{}
	for _, d := range rep.Devices {
		t.Devices = append(t.Devices, dayDeviceUse{Device: d.Device, Wall: d.Wall, KernelUtil: d.KernelUtil, LockUtil: d.LockUtil, StallTime: d.StallTime})
		for _, g := range d.Stalls {
			key := [2]string{kindOf[g.Before.Job], kindOf[g.After.Job]}
			s := stalls[key]
			if s == nil {
				s = &dayStallBetween{Before: key[0], After: key[1]}
				stalls[key] = s
			}
			s.Count++
			s.Total += g.Len()
		}
	}
	for _, s := range stalls {
		t.Stalls = append(t.Stalls, *s)
	}
	slices.SortFunc(t.Stalls, func(a, b dayStallBetween) int {
		return strings.Compare(a.Before+"→"+a.After, b.Before+"→"+b.After)
	})

	ivs, _ := timeline.Pair(timeline.SortByTime(mine))
	waits := map[string]*dayLockWait{}
	for _, iv := range ivs {
		if iv.Stage != timeline.StageLockWait {
			continue
		}
		k := kindOf[iv.Job]
		w := waits[k]
		if w == nil {
			w = &dayLockWait{Kind: k}
			waits[k] = w
		}
		w.Count++
		w.Total += iv.Len()
		w.Max = max(w.Max, iv.Len())
	}
	for _, k := range dayKindOrder {
		if w := waits[k]; w != nil {
			t.LockWaits = append(t.LockWaits, *w)
		}
	}
	t.Late = lateRuns(ivs, late)
	return t
}

// lateRuns breaks down the jobs of ids, in that order, from their
// intervals (a job with none is left out).
func lateRuns(ivs []timeline.Interval, ids []string) []dayLateRun {
	of := map[string][]timeline.Interval{}
	for _, iv := range ivs {
		of[iv.Job] = append(of[iv.Job], iv)
	}
	var out []dayLateRun
	for _, id := range ids {
		if len(of[id]) == 0 {
			continue
		}
		r := dayLateRun{ID: id}
		var prepEnd, kernelStart time.Duration = -1, -1
		for _, iv := range of[id] {
			switch iv.Stage {
			case timeline.StageJob:
				r.Job += iv.Len()
			case timeline.StageSynth:
				r.Synth += iv.Len()
			case timeline.StageQueue:
				r.Queue += iv.Len()
			case timeline.StagePrep:
				r.Prep += iv.Len()
				prepEnd = max(prepEnd, iv.End)
			case timeline.StageKernel:
				r.Kernels += iv.Len()
				if kernelStart < 0 || iv.Start < kernelStart {
					kernelStart = iv.Start
				}
			case timeline.StageFinish:
				r.Finish += iv.Len()
			}
		}
		if prepEnd >= 0 && kernelStart > prepEnd {
			r.BeforeKernels = kernelStart - prepEnd
		}
		out = append(out, r)
	}
	return out
}

func (t *dayTimeline) writeText(w io.Writer) {
	fmt.Fprintf(w, "timeline of the day's jobs (%d events; cuzk timeline --url for the gaps one by one):\n", t.Events)
	if len(t.Devices) == 0 {
		fmt.Fprintln(w, "  no device events for the day's jobs (did the daemon's timeline ring overwrite them?)")
		return
	}
	for line := range strings.Lines(t.text) {
		fmt.Fprint(w, "  ", line)
	}
	for _, l := range t.LockWaits {
		fmt.Fprintf(w, "  %-10s waited for a device lock %s, total %v, max %v\n", l.Kind, times(l.Count), roundShort(l.Total), roundShort(l.Max))
	}
	for _, s := range t.Stalls {
		fmt.Fprintf(w, "  device idle between a %s kernel and a %s kernel (cross-job stall) %s, total %v\n",
			s.Before, s.After, times(s.Count), roundShort(s.Total))
	}
	for _, l := range t.Late {
		fmt.Fprintf(w, "  late WinningPoSt %s: %s = synth %s, queue %s, prep %s, before its kernels %s, kernels %s, finish %s\n",
			l.ID, fmtMs(l.Job), fmtMs(l.Synth), fmtMs(l.Queue), fmtMs(l.Prep), fmtMs(l.BeforeKernels), fmtMs(l.Kernels), fmtMs(l.Finish))
	}
}

func times(n int) string {
	if n == 1 {
		return "once"
	}
	return fmt.Sprintf("%d times", n)
}

// roundShort rounds d to 100 µs below a second, to the millisecond above.
func roundShort(d time.Duration) time.Duration {
	if d < time.Second {
		return d.Round(100 * time.Microsecond)
	}
	return d.Round(time.Millisecond)
}
