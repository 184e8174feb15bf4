package timeline

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"time"
)

// Chrome trace layout (https://docs.google.com/document/d/1CvAClvFfyA5R-PhYUmn5OOQtYMH4h6I0nSsKchNAySU,
// opens in ui.perfetto.dev and chrome://tracing):
//
//   - process HostPID "host": one thread per synthesis worker (synth "X"
//     events), plus async spans for every job and every queued unit;
//   - process DevicePID(d) "device d": thread DeviceTID "kernels" with the
//     kernel "X" events on the device clock; per worker, thread WorkerTID(w)
//     with prep, lock_wait and lock "X" events, and thread FinishTID(w)
//     with finish (which may run off the worker loop, overlapping the
//     worker's next prep: slices on one thread must nest);
//   - instant ("i") events for JOB_SUBMIT, JOB_DONE, DEV_QUEUE, DEV_PICKUP
//     and for every unpaired event.
//
// pid and tid 0 are avoided: Perfetto treats them as the kernel's swapper.
const (
	HostPID   = 1
	DeviceTID = 1

	overlapTID = 1 << 20 // + k: kernels that overlap k earlier ones
)

// DevicePID is the trace pid of device d.
func DevicePID(d int) int { return d + 2 }

// WorkerTID is the trace tid of worker w (a device worker in a device's
// process, a synthesis worker in the host process).
func WorkerTID(w int) int { return 2*w + 2 }

// FinishTID is the trace tid of device worker w's finish stage.
func FinishTID(w int) int { return 2*w + 3 }

// TraceEvent is one entry of a Chrome trace's traceEvents array.
type TraceEvent struct {
	Name  string         `json:"name"`
	Cat   string         `json:"cat,omitempty"`
	Ph    string         `json:"ph"`
	Ts    float64        `json:"ts"`            // microseconds
	Dur   *float64       `json:"dur,omitempty"` // microseconds, "X" only
	Pid   int            `json:"pid"`
	Tid   int            `json:"tid"`
	ID    string         `json:"id,omitempty"` // async events
	Scope string         `json:"s,omitempty"`  // instant events
	Args  map[string]any `json:"args,omitempty"`
}

// Trace is a Chrome trace file.
type Trace struct {
	TraceEvents     []TraceEvent `json:"traceEvents"`
	DisplayTimeUnit string       `json:"displayTimeUnit"`
}

func micros(d time.Duration) float64 { return float64(d) / 1e3 }

func unitArgs(job string, partition, worker, device int) map[string]any {
	a := map[string]any{"job": job}
	if partition >= 0 {
		a["partition"] = partition
	}
	if worker >= 0 {
		a["worker"] = worker
	}
	if device >= 0 {
		a["device"] = device
	}
	return a
}

// BuildTrace lays events out as a Chrome trace (see the layout above).
func BuildTrace(events []Event) Trace {
	intervals, unpaired := Pair(events)
	b := traceBuilder{devices: map[int]bool{}, threads: map[[2]int]bool{}, kernelEnds: map[int][]time.Duration{}}
	b.meta("process_name", HostPID, 0, "host")
	for _, iv := range intervals {
		b.interval(iv)
	}
	for _, e := range SortByTime(events) {
		switch e.Kind {
		case JobSubmit, JobDone, DevQueue, DevPickup:
			b.instant(e, e.Kind.String())
		}
	}
	for _, e := range unpaired {
		b.instant(e, e.Kind.String()+" (unpaired)")
	}
	// Metadata first, then by time: easier to read, and some viewers want it.
	slices.SortStableFunc(b.out, func(x, y TraceEvent) int {
		if (x.Ph == "M") != (y.Ph == "M") {
			if x.Ph == "M" {
				return -1
			}
			return 1
		}
		switch {
		case x.Ts < y.Ts:
			return -1
		case x.Ts > y.Ts:
			return 1
		}
		return 0
	})
	return Trace{TraceEvents: b.out, DisplayTimeUnit: "ms"}
}

// traceBuilder accumulates trace events, naming each process and thread
// once, when it is first used.
type traceBuilder struct {
	out        []TraceEvent
	devices    map[int]bool
	threads    map[[2]int]bool
	kernelEnds map[int][]time.Duration // per device, per kernels thread
}

func (b *traceBuilder) meta(name string, pid, tid int, value string) {
	b.out = append(b.out, TraceEvent{Name: name, Ph: "M", Pid: pid, Tid: tid, Args: map[string]any{"name": value}})
}

func (b *traceBuilder) thread(pid, tid int, name string) {
	if !b.threads[[2]int{pid, tid}] {
		b.threads[[2]int{pid, tid}] = true
		b.meta("thread_name", pid, tid, name)
	}
}

// device returns device d's pid, naming its process on first use.
func (b *traceBuilder) device(d int) int {
	if !b.devices[d] {
		b.devices[d] = true
		b.meta("process_name", DevicePID(d), 0, fmt.Sprintf("device %d", d))
		b.out = append(b.out, TraceEvent{Name: "process_sort_index", Ph: "M", Pid: DevicePID(d), Args: map[string]any{"sort_index": d + 1}})
	}
	return DevicePID(d)
}

// interval adds one stage interval on its process and thread.
func (b *traceBuilder) interval(iv Interval) {
	dur := micros(iv.Len())
	x := TraceEvent{Name: iv.Stage.String(), Cat: iv.Stage.String(), Ph: "X", Ts: micros(iv.Start), Dur: &dur,
		Args: unitArgs(iv.Job, iv.Partition, iv.Worker, iv.Device)}
	switch {
	case iv.Stage == StageJob || iv.Stage == StageQueue:
		b.async(iv, x.Args)
		return
	case iv.Stage == StageKernel && iv.Device >= 0:
		b.kernel(iv, &x)
	case iv.Stage == StageFinish && iv.Device >= 0:
		x.Pid, x.Tid = b.device(iv.Device), FinishTID(iv.Worker)
		b.thread(x.Pid, x.Tid, fmt.Sprintf("worker %d finish", iv.Worker))
	case iv.Device >= 0:
		x.Pid, x.Tid = b.device(iv.Device), WorkerTID(iv.Worker)
		b.thread(x.Pid, x.Tid, fmt.Sprintf("worker %d", iv.Worker))
	default:
		x.Pid, x.Tid = HostPID, WorkerTID(iv.Worker)
		b.thread(x.Pid, x.Tid, fmt.Sprintf("synth worker %d", iv.Worker))
	}
	b.out = append(b.out, x)
}

// async adds a job's or a queued unit's span: spans that overlap on one
// lane, so async begin/end pairs.
func (b *traceBuilder) async(iv Interval, args map[string]any) {
	id := iv.Job
	if iv.Stage == StageQueue {
		id = fmt.Sprintf("%s/%d", iv.Job, iv.Partition)
	}
	b.thread(HostPID, DeviceTID, "jobs and queue")
	begin := TraceEvent{Name: iv.Stage.String() + " " + id, Cat: iv.Stage.String(), Ph: "b", Ts: micros(iv.Start), Pid: HostPID, Tid: DeviceTID, ID: id, Args: args}
	end := begin
	end.Ph, end.Ts, end.Args = "e", micros(iv.End), nil
	b.out = append(b.out, begin, end)
}

// kernel places a kernel interval on its device's kernels thread. Kernels
// of one device should not overlap (the lock), but if they do (two
// streams, clock mapping error) the later one goes to an overflow thread
// so slices still nest.
func (b *traceBuilder) kernel(iv Interval, x *TraceEvent) {
	ends := b.kernelEnds[iv.Device]
	k := 0
	for k < len(ends) && ends[k] > iv.Start {
		k++
	}
	if k == len(ends) {
		ends = append(ends, 0)
	}
	ends[k] = iv.End
	b.kernelEnds[iv.Device] = ends
	x.Pid, x.Tid = b.device(iv.Device), DeviceTID
	name := "kernels"
	if k > 0 {
		x.Tid, name = overlapTID+k, fmt.Sprintf("kernels (overlapping %d)", k)
	}
	b.thread(x.Pid, x.Tid, name)
}

// instant adds an instant event on the lane of its worker or the host's.
func (b *traceBuilder) instant(e Event, name string) {
	i := TraceEvent{Name: name, Cat: "event", Ph: "i", Ts: micros(e.At), Pid: HostPID, Tid: DeviceTID, Scope: "t",
		Args: unitArgs(e.Job, e.Partition, e.Worker, e.Device)}
	if e.Device >= 0 {
		i.Pid = b.device(e.Device)
		if e.Worker >= 0 {
			i.Tid = WorkerTID(e.Worker)
			b.thread(i.Pid, i.Tid, fmt.Sprintf("worker %d", e.Worker))
		}
	} else {
		b.thread(HostPID, DeviceTID, "jobs and queue")
	}
	b.out = append(b.out, i)
}

// WriteTrace writes events as Chrome trace JSON.
func WriteTrace(w io.Writer, events []Event) error {
	if err := json.NewEncoder(w).Encode(BuildTrace(events)); err != nil {
		return fmt.Errorf("timeline: write trace: %w", err)
	}
	return nil
}
