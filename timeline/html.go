package timeline

import (
	"bufio"
	"cmp"
	"fmt"
	"html"
	"io"
	"math"
	"slices"
	"strings"
	"time"
)

// StageColor is the colour the waterfall draws a stage in.
var StageColor = [numStages]string{
	StageJob:      "#b07aa1",
	StageSynth:    "#4e79a7",
	StageQueue:    "#bab0ac",
	StagePrep:     "#f28e2b",
	StageLockWait: "#e15759",
	StageLock:     "#76b7b2",
	StageKernel:   "#59a14f",
	StageFinish:   "#edc948",
}

// maxJobLanes bounds the per-job lanes; beyond it jobs are not drawn one
// by one (the device and worker lanes still show everything).
const maxJobLanes = 64

const (
	laneH   = 18
	labelW  = 200
	plotW   = 1400
	axisH   = 24
	lanePad = 4
)

// kernelLane is the worker key of a device's kernel lane.
const kernelLane = math.MinInt

type lane struct {
	label string
	bars  []Interval
}

// WriteHTML writes a self-contained HTML page (inline SVG and CSS, no
// scripts, no external assets): the summary of rep, a legend, and a
// waterfall with one lane per device (its kernels), two per device worker
// (prep, lock wait and lock hold with the kernel inside; finish), one per
// synthesis worker, and one per job while there are at most 64. Every bar
// has a hover title.
func WriteHTML(w io.Writer, events []Event) error {
	rep := Analyze(events)
	intervals, _ := Pair(events)
	lanes := buildLanes(intervals)

	start, end := rep.Start, rep.End
	if end <= start {
		end = start + time.Millisecond
	}
	x := func(t time.Duration) float64 {
		return labelW + float64(t-start)/float64(end-start)*plotW
	}

	bw := bufio.NewWriter(w)
	p := func(format string, a ...any) { fmt.Fprintf(bw, format, a...) }
	p(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>cuzk timeline</title>
<style>
body{font:13px system-ui,sans-serif;margin:16px;color:#222}
pre{font:12px ui-monospace,monospace;background:#f6f6f6;padding:8px;overflow:auto}
.legend span{display:inline-block;margin-right:14px}
.legend i{display:inline-block;width:12px;height:12px;margin-right:4px;vertical-align:-2px}
svg text{font:11px ui-monospace,monospace}
svg rect:hover{stroke:#000;stroke-width:1}
</style></head><body>
<h1>cuzk timeline</h1>
`)
	p("<h2>Summary</h2>\n<table border=\"1\" cellpadding=\"4\" cellspacing=\"0\">\n<tr><th>device</th><th>workers</th><th>wall</th><th>kernel util</th><th>lock util</th><th>gaps &lt; 50 ms</th><th>50–500 ms</th><th>&gt; 500 ms</th><th>gap p50</th><th>gap p99</th><th>cross-job stalls</th></tr>\n")
	for _, d := range rep.Devices {
		p("<tr><td>%d</td><td>%d</td><td>%s</td><td>%.1f %%</td><td>%.1f %%</td><td>%d</td><td>%d</td><td>%d</td><td>%s</td><td>%s</td><td>%d (%s)</td></tr>\n",
			d.Device, d.Workers, fmtDur(d.Wall), 100*d.KernelUtil, 100*d.LockUtil, d.Gaps.Short, d.Gaps.Medium, d.Gaps.Long,
			fmtDur(d.GapP50), fmtDur(d.GapP99), len(d.Stalls), fmtDur(d.StallTime))
	}
	p("</table>\n<p>Kernel utilization is device time (union of kernel intervals, device clock) ÷ wall; lock utilization is host time under the device lock ÷ wall.</p>\n")

	p(`<h2>Waterfall</h2><div class="legend">`)
	for s := range numStages {
		p(`<span><i style="background:%s"></i>%s</span>`, StageColor[s], Stage(s))
	}
	p("</div>\n")

	height := axisH + len(lanes)*(laneH+lanePad) + lanePad
	p(`<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d">`+"\n", labelW+plotW+20, height, labelW+plotW+20, height)
	for i := 0; i <= 10; i++ {
		t := start + (end-start)*time.Duration(i)/10
		xi := x(t)
		p(`<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#ddd"/>`, xi, axisH-6, xi, height)
		p(`<text x="%.1f" y="%d" text-anchor="middle">%.3fs</text>`+"\n", xi, axisH-10, t.Seconds())
	}
	for li, l := range lanes {
		y := axisH + lanePad + li*(laneH+lanePad)
		p(`<g class="lane"><text x="4" y="%d">%s</text>`, y+laneH-5, html.EscapeString(l.label))
		p(`<rect x="%d" y="%d" width="%d" height="%d" fill="#fafafa"/>`, labelW, y, plotW, laneH)
		for _, iv := range l.bars {
			bx, bwid := x(iv.Start), max(x(iv.End)-x(iv.Start), 0.5)
			by, bh := y, laneH
			if iv.Stage == StageKernel && !strings.HasSuffix(l.label, "kernels") {
				by, bh = y+5, laneH-10 // inside its lock bar
			}
			p(`<rect x="%.2f" y="%d" width="%.2f" height="%d" fill="%s"><title>%s</title></rect>`,
				bx, by, bwid, bh, StageColor[iv.Stage], html.EscapeString(barTitle(iv)))
		}
		p("</g>\n")
	}
	p("</svg>\n")

	var report strings.Builder
	_ = rep.WriteText(&report)
	p("<h2>Report</h2>\n<pre>%s</pre>\n</body></html>\n", html.EscapeString(report.String()))
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("timeline: write html: %w", err)
	}
	return nil
}

func barTitle(iv Interval) string {
	return fmt.Sprintf("%s %s: %s, %s – %s", iv.Stage, unitName(iv), fmtDur(iv.Len()), fmtAt(iv.Start), fmtAt(iv.End))
}

// buildLanes groups intervals into lanes: devices in order, each with its
// kernel lane then its workers; then synthesis workers; then jobs.
func buildLanes(intervals []Interval) []lane {
	ls := laneSet{kernels: map[int]*lane{}, workers: map[wkey]*lane{}, finishes: map[wkey]*lane{},
		synth: map[int]*lane{}, jobs: map[string]*lane{}}
	for _, iv := range intervals {
		ls.add(iv)
	}
	out := ls.deviceLanes()
	sw := map[int]bool{}
	for w := range ls.synth {
		sw[w] = true
	}
	for _, w := range sortedKeys(sw) {
		out = append(out, *ls.synth[w])
	}
	if len(ls.jobOrder) <= maxJobLanes {
		for _, j := range ls.jobOrder {
			l := *ls.jobs[j]
			// The job span first, its queue waits on top.
			slices.SortStableFunc(l.bars, func(a, b Interval) int { return boolCmp(a.Stage != StageJob, b.Stage != StageJob) })
			out = append(out, l)
		}
	}
	return out
}

// wkey names a device worker's lanes (worker kernelLane: the device's
// kernel lane).
type wkey struct{ device, worker int }

// laneSet holds the lanes buildLanes fills, by what they show.
type laneSet struct {
	kernels  map[int]*lane
	workers  map[wkey]*lane
	finishes map[wkey]*lane
	synth    map[int]*lane
	jobs     map[string]*lane
	jobOrder []string
}

// lane returns m's lane for k, made with label on first use.
func laneOf[K comparable](m map[K]*lane, k K, label func() string) *lane {
	if m[k] == nil {
		m[k] = &lane{label: label()}
	}
	return m[k]
}

// add puts iv in its lane.
func (ls *laneSet) add(iv Interval) {
	var l *lane
	switch {
	case iv.Stage == StageJob || iv.Stage == StageQueue:
		// A queue wait has no worker yet: it is drawn in its job's lane.
		if ls.jobs[iv.Job] == nil {
			ls.jobOrder = append(ls.jobOrder, iv.Job)
		}
		l = laneOf(ls.jobs, iv.Job, func() string { return "job " + iv.Job })
	case iv.Device >= 0 && iv.Stage == StageFinish:
		// Finish may overlap the worker's next prep: its own lane.
		l = laneOf(ls.finishes, wkey{iv.Device, iv.Worker}, func() string {
			return fmt.Sprintf("device %d worker %d finish", iv.Device, iv.Worker)
		})
	case iv.Device >= 0:
		if iv.Stage == StageKernel {
			k := laneOf(ls.kernels, iv.Device, func() string { return fmt.Sprintf("device %d kernels", iv.Device) })
			k.bars = append(k.bars, iv)
		}
		l = laneOf(ls.workers, wkey{iv.Device, iv.Worker}, func() string {
			return fmt.Sprintf("device %d worker %d", iv.Device, iv.Worker)
		})
	default:
		l = laneOf(ls.synth, iv.Worker, func() string { return fmt.Sprintf("synth worker %d", iv.Worker) })
	}
	l.bars = append(l.bars, iv)
}

// deviceLanes lists the devices in order: the kernel lane, then each
// worker's lanes.
func (ls *laneSet) deviceLanes() []lane {
	keys := map[wkey]bool{}
	for _, m := range []map[wkey]*lane{ls.workers, ls.finishes} {
		for k := range m {
			keys[k] = true
		}
	}
	for d := range ls.kernels {
		keys[wkey{d, kernelLane}] = true // sorts before every worker of d
	}
	ordered := make([]wkey, 0, len(keys))
	for k := range keys {
		ordered = append(ordered, k)
	}
	slices.SortFunc(ordered, func(a, b wkey) int {
		if c := cmp.Compare(a.device, b.device); c != 0 {
			return c
		}
		return cmp.Compare(a.worker, b.worker)
	})
	var out []lane
	for _, k := range ordered {
		if k.worker == kernelLane {
			if l := ls.kernels[k.device]; l != nil {
				out = append(out, *l)
			}
			continue
		}
		if l := ls.workers[k]; l != nil {
			// Kernels after lock holds so they are drawn on top.
			slices.SortStableFunc(l.bars, func(a, b Interval) int { return boolCmp(a.Stage == StageKernel, b.Stage == StageKernel) })
			out = append(out, *l)
		}
		if l := ls.finishes[k]; l != nil {
			out = append(out, *l)
		}
	}
	return out
}

func sortedKeys(m map[int]bool) []int {
	out := make([]int, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

func boolCmp(a, b bool) int {
	switch {
	case a == b:
		return 0
	case !a:
		return -1
	}
	return 1
}
