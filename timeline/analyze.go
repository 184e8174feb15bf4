package timeline

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"
)

// Gap-histogram bucket bounds: < GapShort, GapShort–GapLong, > GapLong.
const (
	GapShort = 50 * time.Millisecond
	GapLong  = 500 * time.Millisecond
)

// TopGaps is how many of the largest gaps a DeviceReport lists.
const TopGaps = 5

// maxDuring caps the neighbouring events listed with a gap.
const maxDuring = 8

// Report is the analysis of a timeline.
type Report struct {
	Events     int
	Start, End time.Duration // first and last event of the whole record
	Devices    []DeviceReport
	Stages     []StageTotal // one per stage that occurred, pipeline order
	Unpaired   []Event      // events that found no partner (see Pair)
}

// DeviceReport is what one device was doing.
//
// Wall is the span from the first to the last event that names the device
// (from the first PREP_START or DEV_PICKUP to the last FINISH_END, say), so
// a device that sat idle between units is charged for it, but the time
// before the first unit reached it is not.
//
// Kernel is the union of the [KERNEL_START, KERNEL_END] intervals (device
// time); Lock the union of [LOCK_HELD, LOCK_FREE] (host time under the
// device lock, which includes launch and synchronization overhead). Lock ≥
// Kernel on a healthy engine; a large difference is time the lock was held
// without the device computing.
type DeviceReport struct {
	Device     int
	Workers    int // distinct workers seen on this device
	Start, End time.Duration
	Wall       time.Duration
	Kernel     time.Duration
	Lock       time.Duration
	KernelUtil float64 // Kernel / Wall, 0–1
	LockUtil   float64 // Lock / Wall, 0–1
	Kernels    int     // kernel intervals, before merging
	Locks      int     // lock-held intervals, before merging

	// Gaps between consecutive merged kernel intervals.
	Gaps     GapHistogram
	GapTotal time.Duration
	GapP50   time.Duration
	GapP99   time.Duration
	GapMax   time.Duration
	TopGaps  []Gap // the largest, longest first, at most TopGaps

	// Stalls are the gaps whose kernel before and after belong to
	// different jobs, in time order.
	Stalls    []Gap
	StallTime time.Duration
}

// GapHistogram counts gaps by length.
type GapHistogram struct {
	Short  int // < GapShort
	Medium int // GapShort ≤ gap ≤ GapLong
	Long   int // > GapLong
}

// Gap is device idle time between two kernel intervals.
type Gap struct {
	Device     int
	Start, End time.Duration
	Before     Interval // the kernel interval that ended at Start
	After      Interval // the kernel interval that started at End
	During     []Event  // events of this device inside the gap, at most 8
	CrossJob   bool
}

// Len is End − Start.
func (g Gap) Len() time.Duration { return g.End - g.Start }

// StageTotal summarizes one stage over all its intervals.
type StageTotal struct {
	Stage Stage
	Count int
	Total time.Duration
	Mean  time.Duration
	P50   time.Duration
	Max   time.Duration
}

// Analyze pairs the events and measures, per device, kernel and lock
// utilization, the gaps between kernels and the cross-job stalls, and the
// totals of every stage. The events need not be sorted.
func Analyze(events []Event) Report {
	sorted := SortByTime(events)
	intervals, unpaired := Pair(sorted)
	rep := Report{Events: len(sorted), Unpaired: unpaired}
	if len(sorted) > 0 {
		rep.Start, rep.End = sorted[0].At, sorted[len(sorted)-1].At
	}

	var devices []int
	byDevice := make(map[int][]Event)
	for _, e := range sorted {
		if e.Device < 0 {
			continue
		}
		if _, ok := byDevice[e.Device]; !ok {
			devices = append(devices, e.Device)
		}
		byDevice[e.Device] = append(byDevice[e.Device], e)
	}
	slices.Sort(devices)
	ivByDevice := make(map[int][]Interval)
	for _, iv := range intervals {
		if iv.Device >= 0 && (iv.Stage == StageKernel || iv.Stage == StageLock) {
			ivByDevice[iv.Device] = append(ivByDevice[iv.Device], iv)
		}
	}
	for _, d := range devices {
		rep.Devices = append(rep.Devices, analyzeDevice(d, byDevice[d], ivByDevice[d]))
	}

	var per [numStages][]time.Duration
	for _, iv := range intervals {
		per[iv.Stage] = append(per[iv.Stage], iv.Len())
	}
	for s, lens := range per {
		if len(lens) == 0 {
			continue
		}
		slices.Sort(lens)
		st := StageTotal{Stage: Stage(s), Count: len(lens), Max: lens[len(lens)-1], P50: quantile(lens, 0.5)}
		for _, l := range lens {
			st.Total += l
		}
		st.Mean = st.Total / time.Duration(len(lens))
		rep.Stages = append(rep.Stages, st)
	}
	return rep
}

// analyzeDevice measures device d from its events and its kernel and lock
// intervals (sorted by start).
func analyzeDevice(d int, events []Event, intervals []Interval) DeviceReport {
	r := DeviceReport{Device: d, Start: events[0].At, End: events[len(events)-1].At}
	r.Wall = r.End - r.Start
	workers := make(map[int]bool)
	for _, e := range events {
		if e.Worker >= 0 {
			workers[e.Worker] = true
		}
	}
	r.Workers = len(workers)

	var kernels, locks []Interval
	for _, iv := range intervals {
		switch iv.Stage {
		case StageKernel:
			kernels = append(kernels, iv)
		case StageLock:
			locks = append(locks, iv)
		}
	}
	r.Kernels, r.Locks = len(kernels), len(locks)
	kspans := merge(kernels)
	for _, s := range kspans {
		r.Kernel += s.end - s.start
	}
	for _, s := range merge(locks) {
		r.Lock += s.end - s.start
	}
	if r.Wall > 0 {
		r.KernelUtil = float64(r.Kernel) / float64(r.Wall)
		r.LockUtil = float64(r.Lock) / float64(r.Wall)
	}

	var gaps []Gap
	for i := 1; i < len(kspans); i++ {
		prev, next := kspans[i-1], kspans[i]
		g := Gap{Device: d, Start: prev.end, End: next.start, Before: prev.last, After: next.first}
		g.CrossJob = g.Before.Job != g.After.Job
		gaps = append(gaps, g)
	}
	lens := make([]time.Duration, len(gaps))
	for i, g := range gaps {
		l := g.Len()
		lens[i] = l
		r.GapTotal += l
		switch {
		case l < GapShort:
			r.Gaps.Short++
		case l <= GapLong:
			r.Gaps.Medium++
		default:
			r.Gaps.Long++
		}
	}
	if len(lens) > 0 {
		slices.Sort(lens)
		r.GapP50, r.GapP99, r.GapMax = quantile(lens, 0.5), quantile(lens, 0.99), lens[len(lens)-1]
	}
	for _, g := range gaps {
		if g.CrossJob {
			r.Stalls = append(r.Stalls, g)
			r.StallTime += g.Len()
		}
	}
	top := slices.Clone(gaps)
	slices.SortStableFunc(top, func(a, b Gap) int { return cmp.Compare(b.Len(), a.Len()) })
	r.TopGaps = top[:min(len(top), TopGaps)]
	for i := range r.TopGaps {
		r.TopGaps[i].During = eventsDuring(events, r.TopGaps[i].Start, r.TopGaps[i].End)
	}
	return r
}

// eventsDuring returns up to maxDuring events of events (sorted) with
// start ≤ At ≤ end, skipping the kernel events that bound the gap.
func eventsDuring(events []Event, start, end time.Duration) []Event {
	i, _ := slices.BinarySearchFunc(events, start, func(e Event, t time.Duration) int { return cmp.Compare(e.At, t) })
	var out []Event
	for ; i < len(events) && events[i].At <= end && len(out) < maxDuring; i++ {
		if k := events[i].Kind; k == KernelStart || k == KernelEnd {
			continue
		}
		out = append(out, events[i])
	}
	return out
}

// quantile of sorted by nearest rank.
func quantile(sorted []time.Duration, q float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := int(q*float64(len(sorted))+0.999999999) - 1
	return sorted[max(0, min(i, len(sorted)-1))]
}

// WriteText writes the report for a person: per device, kernel-level and
// lock-level utilization side by side, the gap histogram, the largest gaps
// with their neighbouring events and the cross-job stalls; then the stage
// totals.
func (r Report) WriteText(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "timeline: %d events over %s (%s – %s)", r.Events, fmtDur(r.End-r.Start), fmtAt(r.Start), fmtAt(r.End))
	if n := len(r.Unpaired); n > 0 {
		fmt.Fprintf(&b, ", %d unpaired", n)
	}
	b.WriteString("\n")
	if len(r.Devices) == 0 {
		b.WriteString("\nno device events: nothing reached a device\n")
	}
	for _, d := range r.Devices {
		fmt.Fprintf(&b, "\ndevice %d: %d worker(s), wall %s (%s – %s)\n", d.Device, d.Workers, fmtDur(d.Wall), fmtAt(d.Start), fmtAt(d.End))
		fmt.Fprintf(&b, "  %-28s %12s %8s %10s\n", "", "busy", "util", "intervals")
		fmt.Fprintf(&b, "  %-28s %12s %7.1f%% %10d\n", "kernel (device clock)", fmtDur(d.Kernel), 100*d.KernelUtil, d.Kernels)
		fmt.Fprintf(&b, "  %-28s %12s %7.1f%% %10d\n", "lock held (host, per job)", fmtDur(d.Lock), 100*d.LockUtil, d.Locks)
		n := d.Gaps.Short + d.Gaps.Medium + d.Gaps.Long
		fmt.Fprintf(&b, "  gaps between kernels: %d, total %s\n", n, fmtDur(d.GapTotal))
		if n > 0 {
			fmt.Fprintf(&b, "    < 50 ms: %d   50–500 ms: %d   > 500 ms: %d   p50 %s   p99 %s   max %s\n",
				d.Gaps.Short, d.Gaps.Medium, d.Gaps.Long, fmtDur(d.GapP50), fmtDur(d.GapP99), fmtDur(d.GapMax))
		}
		if len(d.TopGaps) > 0 {
			b.WriteString("  largest gaps:\n")
			for _, g := range d.TopGaps {
				fmt.Fprintf(&b, "    %10s at %s: after %s, before %s%s\n", fmtDur(g.Len()), fmtAt(g.Start), unitName(g.Before), unitName(g.After), crossMark(g))
				for _, e := range g.During {
					fmt.Fprintf(&b, "        %s %-12s %s\n", fmtAt(e.At), e.Kind, eventUnit(e))
				}
			}
		}
		fmt.Fprintf(&b, "  cross-job stalls: %d, total %s\n", len(d.Stalls), fmtDur(d.StallTime))
		stalls := slices.Clone(d.Stalls)
		slices.SortStableFunc(stalls, func(a, b Gap) int { return cmp.Compare(b.Len(), a.Len()) })
		for i, g := range stalls {
			if i == TopGaps {
				fmt.Fprintf(&b, "    … %d more\n", len(stalls)-i)
				break
			}
			fmt.Fprintf(&b, "    %10s at %s: %s → %s\n", fmtDur(g.Len()), fmtAt(g.Start), unitName(g.Before), unitName(g.After))
		}
	}
	if len(r.Stages) > 0 {
		fmt.Fprintf(&b, "\nstages (all devices and workers)\n  %-10s %7s %12s %12s %12s %12s\n", "stage", "count", "total", "mean", "p50", "max")
		for _, s := range r.Stages {
			fmt.Fprintf(&b, "  %-10s %7d %12s %12s %12s %12s\n", s.Stage, s.Count, fmtDur(s.Total), fmtDur(s.Mean), fmtDur(s.P50), fmtDur(s.Max))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func crossMark(g Gap) string {
	if g.CrossJob {
		return " (cross-job)"
	}
	return ""
}

func unitName(iv Interval) string {
	s := iv.Job
	if iv.Partition >= 0 {
		s += fmt.Sprintf("/p%d", iv.Partition)
	}
	if iv.Worker >= 0 {
		s += fmt.Sprintf(" w%d", iv.Worker)
	}
	return s
}

func eventUnit(e Event) string {
	return unitName(Interval{Job: e.Job, Partition: e.Partition, Worker: e.Worker})
}

// fmtDur prints a duration in ms below 10 s, in s above.
func fmtDur(d time.Duration) string {
	if d < 10*time.Second && d > -10*time.Second {
		return fmt.Sprintf("%.3f ms", float64(d)/float64(time.Millisecond))
	}
	return fmt.Sprintf("%.3f s", d.Seconds())
}

// fmtAt prints an offset on the timeline.
func fmtAt(d time.Duration) string { return fmt.Sprintf("t=%.3fs", d.Seconds()) }
