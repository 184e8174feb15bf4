package main

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/cuzk-project/cuzk/timeline"
)

// TestWinningBreakdown splits a WinningPoSt's latency by its timeline
// events: with the device lock, on a CRITICAL lane (no lock events), and a
// job whose events the recorder lost.
func TestWinningBreakdown(t *testing.T) {
	ms := func(n int) time.Duration { return time.Duration(n) * time.Millisecond }
	ev := func(at int, k timeline.Kind, job string) timeline.Event {
		return timeline.Event{At: ms(at), Kind: k, Job: job, Partition: 0, Worker: -1, Device: -1}
	}
	unit := func(job string, lock bool) []timeline.Event {
		out := []timeline.Event{
			ev(100, timeline.JobSubmit, job), ev(105, timeline.SynthStart, job), ev(305, timeline.SynthEnd, job),
			ev(305, timeline.DevQueue, job), ev(306, timeline.DevPickup, job), ev(306, timeline.PrepStart, job),
			ev(326, timeline.PrepEnd, job),
		}
		if lock {
			out = append(out, ev(326, timeline.LockWait, job), ev(1026, timeline.LockHeld, job),
				ev(1028, timeline.KernelStart, job), ev(1076, timeline.KernelEnd, job), ev(1080, timeline.LockFree, job))
		} else {
			out = append(out, ev(330, timeline.KernelStart, job), ev(384, timeline.KernelEnd, job))
		}
		end := 1080
		if !lock {
			end = 384
		}
		return append(out, ev(end, timeline.FinishStart, job), ev(end+100, timeline.FinishEnd, job), ev(end+110, timeline.JobDone, job))
	}
	var events []timeline.Event
	events = append(events, unit("locked", true)...)
	events = append(events, unit("lane", false)...)
	// A PoRep unit whose Run the locked WinningPoSt waited behind; not a
	// WinningPoSt itself, so not a sample.
	events = append(events, ev(200, timeline.KernelStart, "porep"), ev(1020, timeline.KernelEnd, "porep"))
	events = append(events, ev(0, timeline.JobSubmit, "lost"))
	latency := map[string]time.Duration{"locked": ms(1200), "lane": ms(500), "lost": ms(900)}

	got := winningBreakdown(events, latency)
	want := []winningSample{
		// lane: no lock wait; Run is the kernel interval.
		{Job: "lane", Latency: ms(500), SynthQueue: ms(5), Synth: ms(200), DevQueue: ms(1), Prep: ms(20),
			Run: ms(54), Finish: ms(100), Rest: ms(500 - 5 - 200 - 1 - 20 - 54 - 100)},
		// locked: Run is the host time under the lock; it waited while the
		// PoRep unit's and the lane WinningPoSt's Runs went on.
		{Job: "locked", Latency: ms(1200), SynthQueue: ms(5), Synth: ms(200), DevQueue: ms(1), Prep: ms(20),
			LockWait: ms(700), Run: ms(54), Finish: ms(100), Rest: ms(1200 - 5 - 200 - 1 - 20 - 700 - 54 - 100), Behind: 2},
	}
	if len(got) != len(want) {
		t.Fatalf("%d samples %+v, want %d (the job with lost events left out)", len(got), got, len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("sample %d:\n got %+v\nwant %+v", i, got[i], want[i])
		}
	}
	if w := got[1].waiting(); w != ms(706) {
		t.Errorf("locked waited %v, want 706ms", w)
	}
}

func TestQuantile(t *testing.T) {
	d := []time.Duration{5, 1, 4, 2, 3}
	for _, tc := range []struct {
		p    float64
		want time.Duration
	}{{0.5, 3}, {0.99, 5}, {1, 5}, {0, 1}} {
		if got := quantile(d, tc.p); got != tc.want {
			t.Errorf("quantile %v = %v, want %v", tc.p, got, tc.want)
		}
	}
	if quantile(nil, 0.5) != 0 {
		t.Error("quantile of nothing")
	}
}

func TestWinningOptionsValidate(t *testing.T) {
	base := benchOptions{count: 1, concurrency: 1, constraints: 1 << 10, partitions: 2, budgetGiB: 1, kind: "porep", device: "cpu", workers: 2}
	ok := winningOptions{count: 3, interval: time.Second, constraints: 1 << 9, inputs: 8}
	tests := []struct {
		name    string
		mod     func(o *benchOptions, w *winningOptions)
		wantErr string
	}{
		{"default", func(*benchOptions, *winningOptions) {}, ""},
		{"count", func(_ *benchOptions, w *winningOptions) { w.count = 0 }, "--count"},
		{"interval", func(_ *benchOptions, w *winningOptions) { w.interval = 0 }, "--interval"},
		{"remote", func(o *benchOptions, _ *winningOptions) { o.addr = "unix:///x" }, "--addr"},
		{"winning too large", func(_ *benchOptions, w *winningOptions) { w.constraints = 1 << 25 }, "--winning-constraints"},
		{"winning inputs", func(_ *benchOptions, w *winningOptions) { w.inputs = -1 }, "--winning-inputs"},
		{"priority", func(_ *benchOptions, w *winningOptions) { w.priority = "urgent" }, "--winning-priority"},
		{"real ignores the synthetic shape", func(_ *benchOptions, w *winningOptions) { w.real, w.constraints = true, 1<<25 }, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o, w := base, ok
			tc.mod(&o, &w)
			err := w.validate(&o)
			if tc.wantErr == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("err = %v, want one naming %s", err, tc.wantErr)
			}
		})
	}
}

// TestBenchWinning runs the mode end to end on the CPU device with tiny
// synthetic shapes: PoRep jobs flow, every WinningPoSt is proved and
// verified, and the breakdown is printed.
func TestBenchWinning(t *testing.T) {
	var out bytes.Buffer
	root := newRootCmd()
	root.SetOut(&out)
	root.SetErr(&out)
	root.SetArgs([]string{"bench", "winning", "--params-dir", t.TempDir(), "--constraints", "1024", "--partitions", "2",
		"-j", "2", "--winning-constraints", "512", "--winning-inputs", "4", "--count", "3", "--interval", "50ms"})
	if err := root.Execute(); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	s := out.String()
	for _, want := range []string{"3 WinningPoSt proved and verified, 0 failed", "device lock", "synthesis queue", "kernel utilization"} {
		if !strings.Contains(s, want) {
			t.Errorf("output lacks %q:\n%s", want, s)
		}
	}
}
