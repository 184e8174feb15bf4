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
	// OnTime is where the WinningPoSts that were not late arrived, to
	// compare with the late ones' Arrival.
	OnTime dayArrivals `json:"on_time_winning"`
	text   string      // writeUtilization of the day's jobs: devices and stages
}

// dayArrival is what the other kinds' Runs were doing when a
// WinningPoSt's Prepare ended (the moment its own Run could begin): the
// Run holding a device lock then and how long it had run, and the last
// Run that had ended before and how long before. A Run is a LOCK
// interval (LOCK_HELD → LOCK_FREE) of a job of another kind.
type dayArrival struct {
	InRun    string        `json:"in_run,omitempty"` // that Run's kind; empty: none held a lock
	IntoRun  time.Duration `json:"into_run_ns"`
	RunLeft  time.Duration `json:"run_left_ns"`
	Ended    string        `json:"ended,omitempty"` // the kind of the last Run ended before; empty: none
	SinceEnd time.Duration `json:"since_end_ns"`
}

// dayArrivals counts WinningPoSts by where they arrived: within
// afterRunEnd of another kind's Run's end (by that kind), or not.
type dayArrivals struct {
	Count         int            `json:"count"`
	AfterRunEnd   map[string]int `json:"after_run_end,omitempty"`
	ElsewhereRuns int            `json:"elsewhere"`
}

// afterRunEnd is how soon after another Run's end an arrival counts as
// "just after" it: a worker's Finish and its next Prepare follow a Run's
// end by up to ≈ 150 ms (a 32 GiB PoRep partition's).
const afterRunEnd = 150 * time.Millisecond

func (a *dayArrivals) add(r dayArrival) {
	a.Count++
	if r.Ended != "" && r.SinceEnd <= afterRunEnd {
		if a.AfterRunEnd == nil {
			a.AfterRunEnd = map[string]int{}
		}
		a.AfterRunEnd[r.Ended]++
		return
	}
	a.ElsewhereRuns++
}

// arrivalAt is the dayArrival of a moment at, from the LOCK intervals of
// the jobs of kinds other than WinningPoSt.
func arrivalAt(at time.Duration, runs []timeline.Interval, kindOf map[string]string) dayArrival {
	var r dayArrival
	lastEnd := time.Duration(-1)
	for _, iv := range runs {
		switch {
		case iv.Start <= at && at < iv.End:
			r.InRun, r.IntoRun, r.RunLeft = kindOf[iv.Job], at-iv.Start, iv.End-at
		case iv.End <= at && iv.End > lastEnd:
			lastEnd, r.Ended, r.SinceEnd = iv.End, kindOf[iv.Job], at-iv.End
		}
	}
	return r
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
	Arrival       dayArrival    `json:"arrival"`
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
	t.arrivals(ivs, kindOf, late)
	return t
}

// arrivals sets where each WinningPoSt arrived (the end of its Prepare):
// the late ones' Arrival, and the count of those on time.
func (t *dayTimeline) arrivals(ivs []timeline.Interval, kindOf map[string]string, late []string) {
	var runs []timeline.Interval
	prepEnd := map[string]time.Duration{}
	for _, iv := range ivs {
		switch {
		case iv.Stage == timeline.StageLock && kindOf[iv.Job] != dayWinning:
			runs = append(runs, iv)
		case iv.Stage == timeline.StagePrep && kindOf[iv.Job] == dayWinning:
			prepEnd[iv.Job] = max(prepEnd[iv.Job], iv.End)
		}
	}
	for i := range t.Late {
		if at, ok := prepEnd[t.Late[i].ID]; ok {
			t.Late[i].Arrival = arrivalAt(at, runs, kindOf)
		}
	}
	for id, at := range prepEnd {
		if !slices.Contains(late, id) {
			t.OnTime.add(arrivalAt(at, runs, kindOf))
		}
	}
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
		fmt.Fprintf(w, "  late WinningPoSt %s: %s = synth %s, queue %s, prep %s, before its kernels %s, kernels %s, finish %s; %s\n",
			l.ID, fmtMs(l.Job), fmtMs(l.Synth), fmtMs(l.Queue), fmtMs(l.Prep), fmtMs(l.BeforeKernels), fmtMs(l.Kernels), fmtMs(l.Finish), l.Arrival)
	}
	if len(t.Late) > 0 && t.OnTime.Count > 0 {
		fmt.Fprintf(w, "  the %d on time arrived %s\n", t.OnTime.Count, t.OnTime)
	}
}

// String says where a WinningPoSt arrived, for the report.
func (a dayArrival) String() string {
	var parts []string
	if a.InRun != "" {
		parts = append(parts, fmt.Sprintf("arrived %s into a %s Run (%s left)", fmtMs(a.IntoRun), a.InRun, fmtMs(a.RunLeft)))
	} else {
		parts = append(parts, "arrived with no Run holding a device lock")
	}
	if a.Ended != "" {
		parts = append(parts, fmt.Sprintf("%s after a %s Run ended", fmtMs(a.SinceEnd), a.Ended))
	}
	return strings.Join(parts, ", ")
}

// String says where WinningPoSts arrived, for the report.
func (a dayArrivals) String() string {
	var parts []string
	for _, k := range dayKindOrder {
		if n := a.AfterRunEnd[k]; n > 0 {
			parts = append(parts, fmt.Sprintf("%d within %s after a %s Run ended", n, fmtMs(afterRunEnd), k))
		}
	}
	parts = append(parts, fmt.Sprintf("%d elsewhere", a.ElsewhereRuns))
	return strings.Join(parts, ", ")
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
