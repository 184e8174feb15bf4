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
	text      string            // writeUtilization of the day's jobs: devices and stages
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
// other jobs' events are left out).
func analyzeDay(events []timeline.Event, kindOf map[string]string) *dayTimeline {
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
	return t
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
