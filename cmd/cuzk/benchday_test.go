package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cuzk-project/cuzk/groth16"
	cuzkv1 "github.com/cuzk-project/cuzk/proto/cuzk/v1"
	"github.com/cuzk-project/cuzk/timeline"
)

const dayMs = time.Millisecond

// daySampleOf is a proved (err nil) or failed proof of kind, submitted at
// submit and answered at done (milliseconds into the phase).
func daySampleOf(kind string, submit, done int, parts int, deadline int, err error) daySample {
	return daySample{Kind: kind, ID: fmt.Sprintf("%s-%d-%d", kind, submit, done), Submit: time.Duration(submit) * dayMs,
		Done: time.Duration(done) * dayMs, Partitions: parts, Deadline: deadline, Err: err}
}

var errDayProof = errors.New("proof failed")

func TestDayKindReport(t *testing.T) {
	tenSnap := func() []daySample {
		var s []daySample
		for i := 1; i <= 10; i++ { // latencies 10 … 100 s
			s = append(s, daySampleOf(daySnap, 0, i*10_000, 16, -1, nil))
		}
		return append(s, daySampleOf(daySnap, 1_000, 2_000, 0, -1, errDayProof), daySampleOf(dayPoRep, 0, 200_000, 10, -1, nil))
	}
	for _, tc := range []struct {
		name, kind                     string
		samples                        []daySample
		proved, failed, partitions     int
		p50, p99, max, span            time.Duration
		proofsPerMin, partitionsPerMin float64
	}{
		{name: "none", kind: dayPoRep},
		{
			name: "one", kind: dayPoRep,
			samples: []daySample{daySampleOf(dayPoRep, 0, 30_000, 10, -1, nil)},
			proved:  1, partitions: 10, p50: 30 * time.Second, p99: 30 * time.Second, max: 30 * time.Second,
			span: 30 * time.Second, proofsPerMin: 2, partitionsPerMin: 20,
		},
		{
			// nearest rank: p50 the 5th of ten, p99 the 10th; the failure
			// and the PoRep beside are left out of the latencies
			name: "ten, a failure and another kind beside", kind: daySnap,
			samples: tenSnap(),
			proved:  10, failed: 1, partitions: 160,
			p50: 50 * time.Second, p99: 100 * time.Second, max: 100 * time.Second,
			span: 100 * time.Second, proofsPerMin: 6, partitionsPerMin: 96,
		},
		{
			name: "only failures", kind: daySnap,
			samples: []daySample{daySampleOf(daySnap, 0, 500, 0, -1, errDayProof)},
			failed:  1, span: 500 * dayMs,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := kindReport(tc.kind, tc.samples)
			if r.Proved != tc.proved || r.Failed != tc.failed || r.Partitions != tc.partitions {
				t.Errorf("proved %d failed %d partitions %d, want %d %d %d", r.Proved, r.Failed, r.Partitions, tc.proved, tc.failed, tc.partitions)
			}
			if r.P50 != tc.p50 || r.P99 != tc.p99 || r.Max != tc.max || r.Span != tc.span {
				t.Errorf("p50 %v p99 %v max %v span %v, want %v %v %v %v", r.P50, r.P99, r.Max, r.Span, tc.p50, tc.p99, tc.max, tc.span)
			}
			if !dayNear(r.ProofsPerMin, tc.proofsPerMin) || !dayNear(r.PartitionsPerMin, tc.partitionsPerMin) {
				t.Errorf("%.3f proofs/min, %.3f partitions/min, want %.3f %.3f", r.ProofsPerMin, r.PartitionsPerMin, tc.proofsPerMin, tc.partitionsPerMin)
			}
			if (r.FirstError != "") != (tc.failed > 0) {
				t.Errorf("first error %q with %d failed", r.FirstError, tc.failed)
			}
		})
	}
}

func dayNear(a, b float64) bool { return a-b < 1e-9 && b-a < 1e-9 }

func TestJudgeDeadline(t *testing.T) {
	d := dayDeadline{Index: 1, Open: 10 * time.Second, Window: 5 * time.Second}
	for _, tc := range []struct {
		name               string
		samples            []daySample
		partitions, failed int
		took, margin       time.Duration
		met                bool
	}{
		{"all in time", []daySample{daySampleOf(dayWPoSt, 10_000, 12_000, 1, 1, nil), daySampleOf(dayWPoSt, 10_000, 14_000, 1, 1, nil)},
			2, 0, 4 * time.Second, time.Second, true},
		{"the last exactly at the close", []daySample{daySampleOf(dayWPoSt, 10_000, 15_000, 1, 1, nil)},
			1, 0, 5 * time.Second, 0, true},
		{"one late", []daySample{daySampleOf(dayWPoSt, 10_000, 12_000, 1, 1, nil), daySampleOf(dayWPoSt, 10_000, 15_001, 1, 1, nil)},
			2, 0, 5001 * dayMs, -dayMs, false},
		{"one failed in time", []daySample{daySampleOf(dayWPoSt, 10_000, 11_000, 1, 1, nil), daySampleOf(dayWPoSt, 10_000, 11_000, 0, 1, errDayProof)},
			2, 1, time.Second, 4 * time.Second, false},
		{"other deadlines and kinds left out", []daySample{daySampleOf(dayWPoSt, 10_000, 11_000, 1, 1, nil),
			daySampleOf(dayWPoSt, 0, 30_000, 1, 0, nil), daySampleOf(dayWinning, 10_000, 40_000, 1, -1, nil)},
			1, 0, time.Second, 4 * time.Second, true},
		{"never submitted", nil, 0, 0, 0, 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := judgeDeadline(d, tc.samples)
			if r.Partitions != tc.partitions || r.Failed != tc.failed || r.Took != tc.took || r.Margin != tc.margin || r.Met != tc.met {
				t.Errorf("partitions %d failed %d took %v margin %v met %v, want %d %d %v %v %v",
					r.Partitions, r.Failed, r.Took, r.Margin, r.Met, tc.partitions, tc.failed, tc.took, tc.margin, tc.met)
			}
		})
	}
}

func TestDayReportJudgement(t *testing.T) {
	day := []daySample{
		daySampleOf(daySynthetic, 0, 30_000, 10, -1, nil), daySampleOf(daySynthetic, 30_000, 60_000, 10, -1, nil),
		daySampleOf(dayPoRep, 0, 60_000, 10, -1, nil),
		daySampleOf(dayWinning, 10_000, 10_500, 1, -1, nil), daySampleOf(dayWinning, 20_000, 21_500, 1, -1, nil),
		daySampleOf(dayWinning, 30_000, 30_100, 0, -1, errDayProof),
		daySampleOf(dayWPoSt, 5_000, 9_000, 1, 0, nil),
	}
	solo := map[string][]daySample{
		// 40 and 20 partitions/min alone; 20 and 10 in the day: half of each
		daySynthetic: {daySampleOf(daySynthetic, 0, 15_000, 10, -1, nil)},
		dayPoRep:     {daySampleOf(dayPoRep, 0, 30_000, 10, -1, nil)},
	}
	deadlines := []dayDeadline{{0, 5 * time.Second, 10 * time.Second}, {1, 50 * time.Second, 10 * time.Second}}
	r := newDayReport(day, deadlines, time.Second, solo)
	var kinds []string
	for _, k := range r.Kinds {
		kinds = append(kinds, k.Kind)
	}
	if got := strings.Join(kinds, ","); got != "porep,synthetic,wpost,winning" {
		t.Errorf("kinds %s", got)
	}
	if r.Wall != time.Minute {
		t.Errorf("wall %v, want 1m", r.Wall)
	}
	if len(r.Deadlines) != 2 || !r.Deadlines[0].Met || r.Deadlines[1].Met {
		t.Errorf("deadlines %+v: want the first met, the second (never submitted) missed", r.Deadlines)
	}
	if r.Winning == nil || r.Winning.Late != 1 || r.Winning.Worst != 1500*dayMs {
		t.Errorf("winning %+v: want 1 late, worst 1.5 s", r.Winning)
	}
	if len(r.SoloRatio) != 2 || !dayNear(r.SoloRatio[0].Ratio, 0.5) || !dayNear(r.SoloRatio[1].Ratio, 0.5) || !dayNear(r.Share, 1) {
		t.Errorf("solo ratios %+v share %v: want 0.5 each, share 1", r.SoloRatio, r.Share)
	}
	f := strings.Join(r.faults(), "; ")
	for _, want := range []string{"1 winning failed", "1 of 2 WindowPoSt deadlines missed", "1 WinningPoSt over 1s"} {
		if !strings.Contains(f, want) {
			t.Errorf("faults %q: no %q", f, want)
		}
	}
	var b strings.Builder
	r.writeText(&b)
	for _, want := range []string{"bulk share of solo throughput: 100 %, within", "MISSED (not submitted)", "margin 6s: met"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("report has no %q:\n%s", want, b.String())
		}
	}
	r = newDayReport(day, nil, time.Minute, map[string][]daySample{dayPoRep: {daySampleOf(dayPoRep, 0, 10_000, 10, -1, nil)}})
	if !dayNear(r.Share, 1.0/6) {
		t.Errorf("share %v, want 1/6", r.Share)
	}
	b.Reset()
	r.writeText(&b)
	if !strings.Contains(b.String(), "NOT within") {
		t.Errorf("a share of 1/6 is within 10 %% of solo:\n%s", b.String())
	}
}

func TestDaySchedule(t *testing.T) {
	if got := scheduleDeadlines(10*time.Second, 0, time.Minute, time.Minute); len(got) != 1 || got[0].Open != 10*time.Second {
		t.Errorf("once: %+v", got)
	}
	if got := scheduleDeadlines(10*time.Second, 20*time.Second, time.Minute, time.Minute); len(got) != 3 || got[2].Open != 50*time.Second || got[2].Index != 2 {
		t.Errorf("every 20 s from 10 s in a minute: %+v", got)
	}
	if got := scheduleWinning(30*time.Second, 5*time.Minute); len(got) != 9 || got[0] != 30*time.Second || got[8] != 270*time.Second {
		t.Errorf("winning every 30 s over 5 m: %v", got)
	}
}

// fakeDayProver answers every request after delay, with partitions
// partition proofs, or fails the ids that contain fail.
type fakeDayProver struct {
	delay      time.Duration
	partitions int
	fail       string

	mu  sync.Mutex
	ids map[string]bool
}

func (f *fakeDayProver) Prove(ctx context.Context, req *cuzkv1.SubmitProofRequest) (*cuzkv1.AwaitProofResponse, error) {
	f.mu.Lock()
	if f.ids[req.RequestId] {
		f.mu.Unlock()
		return nil, fmt.Errorf("request id %s submitted twice", req.RequestId)
	}
	f.ids[req.RequestId] = true
	f.mu.Unlock()
	select {
	case <-time.After(f.delay):
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	if f.fail != "" && strings.Contains(req.RequestId, f.fail) {
		return nil, errDayProof
	}
	return &cuzkv1.AwaitProofResponse{Status: cuzkv1.AwaitProofResponse_COMPLETED, Proof: make([]byte, f.partitions*groth16.ProofSize)}, nil
}

// The schedule's submissions each get their own id; bulk keeps its jobs in
// flight until the duration and drains; a deadline's partitions go
// together.
func TestRunDayPhase(t *testing.T) {
	f := &fakeDayProver{delay: 40 * dayMs, partitions: 2, fail: "winning", ids: map[string]bool{}}
	req := &cuzkv1.SubmitProofRequest{RequestId: "template"}
	s := daySchedule{
		Duration: 300 * dayMs, Bulk: []dayBulk{{Kind: dayPoRep, Req: req, Jobs: 2}},
		WPoSt: req, Partitions: 3, Deadlines: scheduleDeadlines(100*dayMs, 0, time.Second, 300*dayMs),
		Winning: req, WinningAt: scheduleWinning(100*dayMs, 300*dayMs),
	}
	samples := runDayPhase(context.Background(), f, "t", s, nil)
	r := newDayReport(samples, s.Deadlines, time.Second, nil)
	byKind := map[string]dayKindReport{}
	for _, k := range r.Kinds {
		byKind[k.Kind] = k
	}
	// 2 jobs × 40 dayMs back to back for 300 dayMs: at most 8 each (the last started at 280 dayMs)
	if p := byKind[dayPoRep]; p.Proved < 10 || p.Proved > 16 || p.Partitions != 2*p.Proved || p.Span < 300*dayMs {
		t.Errorf("porep %+v: want 10–16 proved back to back by 2 jobs over 300 dayMs, drained", p)
	}
	if w := byKind[dayWPoSt]; w.Proved != 3 || len(r.Deadlines) != 1 || !r.Deadlines[0].Met || r.Deadlines[0].Partitions != 3 {
		t.Errorf("wpost %+v deadlines %+v: want one deadline of 3 partitions, met", w, r.Deadlines)
	}
	if w := byKind[dayWinning]; w.Failed != 2 || w.Proved != 0 {
		t.Errorf("winning %+v: want 2 failed", w)
	}
	if req.RequestId != "template" {
		t.Errorf("the template was changed: id %q", req.RequestId)
	}
}

func TestDayOptionsValidate(t *testing.T) {
	good := func() *dayOptions {
		return &dayOptions{winning: "w.json", porep: "p.json", porepJobs: 2, duration: time.Minute, deadlinePartitions: 4,
			deadlineAt: 20 * time.Second, deadlineWindow: time.Minute, winningEvery: 30 * time.Second, winningDeadline: time.Second}
	}
	o := &benchOptions{addr: "unix:///run/cuzk.sock"}
	if err := good().validate(o); err != nil {
		t.Fatalf("the defaults: %v", err)
	}
	for _, tc := range []struct {
		name string
		edit func(d *dayOptions, o *benchOptions)
		want string
	}{
		{"no daemon", func(_ *dayOptions, o *benchOptions) { o.addr = "" }, "give --addr"},
		{"nothing to prove", func(d *dayOptions, _ *benchOptions) { d.winning, d.porep = "", "" }, "nothing to prove"},
		{"no duration", func(d *dayOptions, _ *benchOptions) { d.duration = 0 }, "--duration 0s"},
		{"no PoRep in flight", func(d *dayOptions, _ *benchOptions) { d.porepJobs = 0 }, "--porep-jobs 0"},
		{"a deadline after the day", func(d *dayOptions, _ *benchOptions) { d.deadlineAt = time.Minute }, "--deadline-at 1m0s"},
		{"no window", func(d *dayOptions, _ *benchOptions) { d.deadlineWindow = 0 }, "--deadline-window 0s"},
		{"no partitions", func(d *dayOptions, _ *benchOptions) { d.deadlinePartitions = 0 }, "--deadline-partitions 0"},
		{"no threshold", func(d *dayOptions, _ *benchOptions) { d.winningDeadline = 0 }, "--winning-deadline 0s"},
		{"no WinningPoSt within the day", func(d *dayOptions, _ *benchOptions) { d.winningEvery = time.Minute }, "--winning-every 1m0s"},
		{"negative solo", func(d *dayOptions, _ *benchOptions) { d.solo = -time.Second }, "--solo -1s"},
	} {
		d, o := good(), *o
		tc.edit(d, &o)
		if err := d.validate(&o); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error with %q", tc.name, err, tc.want)
		}
	}
}

func TestParseBulkSynthetic(t *testing.T) {
	for _, tc := range []struct {
		in          string
		rows, parts int
		bad         bool
	}{
		{"16384x10", 16384, 10, false},
		{"2^14X4", 1 << 14, 4, false},
		{"1024", 0, 0, true},
		{"2^25x1", 0, 0, true},
		{"1024x0", 0, 0, true},
		{"1024x257", 0, 0, true},
		{"ax2", 0, 0, true},
		{"16777217x1", 0, 0, true},
	} {
		rows, parts, err := parseBulkSynthetic(tc.in)
		if (err != nil) != tc.bad || rows != tc.rows || parts != tc.parts {
			t.Errorf("%q: %d × %d, %v", tc.in, rows, parts, err)
		}
	}
}

// A tiny day against a development daemon on the CPU device: a synthetic
// bulk load, 2 KiB WindowPoSt deadlines and WinningPoSt. The first day's
// deadline (a generous window) is met and its WinningPoSts (over a
// threshold of 1 ns) are all late; the second day's deadline (a window of
// 1 ns) is missed and its WinningPoSts (a garbage vanilla proof) all fail.
// A missing or wrong-kind request file is refused before any contact with
// the daemon.
func TestBenchDay(t *testing.T) {
	params := testParamsDir(t)
	dir := t.TempDir()
	win := genProof(t, dir, kindWinning, "StackedDrgWinning2KiBV1", kindWinning, "--seed", "3")
	wpost := genProof(t, dir, kindWindow, "StackedDrgWindow2KiBV1_2", kindWindow, "--seed", "3", "--sectors", "1-4", "--partition", "1")
	for _, p := range []struct{ kind, proof string }{{kindWinning, "StackedDrgWinning2KiBV1"}, {kindWindow, "StackedDrgWindow2KiBV1_2"}} {
		c, err := lookupProof(p.kind, p.proof)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(filepath.Join(params, c.paramsFile)); err != nil {
			if out, code := run(t, "setup", "--proof-type", p.proof, "--kind", p.kind, "--params-dir", params); code != 0 {
				t.Fatalf("setup %s: exit %d: %s", p.proof, code, out)
			}
		}
	}
	sockDir, err := os.MkdirTemp("", "cuzkday")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(sockDir)
	cfg := testDaemonConfig(t, sockDir)
	cfg.SRS.ParamCache = params
	cfg.Daemon.StatusListen = daemonFreePort(t)

	// Refused before anything is sent: the daemon is not started yet.
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"WinningPoSt as --wpost", []string{"--wpost", win.req}, "--wpost " + win.req + ": bad request file: a WINNING_POST request, want WINDOW_POST_PARTITION"},
		{"WindowPoSt as --winning", []string{"--winning", wpost.req}, "want WINNING_POST"},
		{"WindowPoSt as --porep", []string{"--porep", wpost.req}, "want POREP_SEAL_COMMIT"},
		{"missing file", []string{"--snap", filepath.Join(dir, "none.json")}, "--snap: bad request file: open "},
		{"nothing", nil, "nothing to prove"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"bench", "day", "--addr", cfg.Daemon.Listen, "--duration", "1m"}, tc.args...)
			out, code := run(t, args...)
			if code == 0 || !strings.Contains(out, tc.want) {
				t.Errorf("exit %d: %s\nwant an error with %q", code, out, tc.want)
			}
			if strings.Contains(out, "daemon at") {
				t.Errorf("it started the day:\n%s", out)
			}
		})
	}

	startDaemon(t, cfg)
	garbage := filepath.Join(dir, "garbage-winning.json")
	r, err := readRequest(win.req)
	if err != nil {
		t.Fatal(err)
	}
	r.VanillaProofs[0] = []byte("\x00\xffnot bincode")
	if err := writeRequest(garbage, r); err != nil {
		t.Fatal(err)
	}

	day := func(t *testing.T, args ...string) (dayReport, string, int) {
		t.Helper()
		js := filepath.Join(t.TempDir(), "day.json")
		all := append([]string{"bench", "day", "--addr", cfg.Daemon.Listen, "--timeline-url", cfg.Daemon.StatusListen,
			"--bulk-synthetic", "1024x2", "--bulk-jobs", "1", "--wpost", wpost.req, "--deadline-partitions", "2",
			"--winning-every", "1s", "--json", js}, args...)
		out, code := run(t, all...)
		var rep dayReport
		b, err := os.ReadFile(js)
		if err != nil {
			t.Fatalf("exit %d, no report: %v\n%s", code, err, out)
		}
		if err := json.Unmarshal(b, &rep); err != nil {
			t.Fatal(err)
		}
		return rep, out, code
	}
	kinds := func(r dayReport) map[string]dayKindReport {
		m := map[string]dayKindReport{}
		for _, k := range r.Kinds {
			m[k.Kind] = k
		}
		return m
	}

	t.Run("deadline met, WinningPoSt late", func(t *testing.T) {
		rep, out, code := day(t, "--duration", "3500ms", "--deadline-at", "1s", "--deadline-window", "2m",
			"--winning", win.req, "--winning-deadline", "1ns")
		t.Log(out)
		k := kinds(rep)
		if k[daySynthetic].Proved < 1 || k[daySynthetic].Failed != 0 || k[daySynthetic].Partitions != 2*k[daySynthetic].Proved {
			t.Errorf("synthetic bulk %+v: want at least one proved, 2 partitions each", k[daySynthetic])
		}
		if k[dayWPoSt].Proved != 2 || k[dayWPoSt].Failed != 0 {
			t.Errorf("wpost %+v: want the deadline's 2 partitions proved", k[dayWPoSt])
		}
		if k[dayWinning].Proved != 3 || k[dayWinning].Failed != 0 {
			t.Errorf("winning %+v: want 3 proved (at 1, 2 and 3 s)", k[dayWinning])
		}
		if len(rep.Deadlines) != 1 || !rep.Deadlines[0].Met || rep.Deadlines[0].Margin <= 0 {
			t.Errorf("deadlines %+v: want one, met with a margin", rep.Deadlines)
		}
		if rep.Winning == nil || rep.Winning.Late != 3 {
			t.Errorf("winning %+v: want all 3 over 1 ns", rep.Winning)
		}
		if rep.Timeline == nil || len(rep.Timeline.Devices) == 0 || rep.Timeline.Devices[0].KernelUtil <= 0 {
			t.Errorf("timeline %+v: want the device's kernel utilization", rep.Timeline)
		}
		if code == 0 || !strings.Contains(out, errDayFaults.Error()+": 3 WinningPoSt over 1ns") {
			t.Errorf("exit %d: want the late WinningPoSts as the day's only fault", code)
		}
		if !strings.Contains(out, "margin") || !strings.Contains(out, ": met") || !strings.Contains(out, "kernel utilization") {
			t.Errorf("the text report lacks the deadline or the utilization:\n%s", out)
		}
	})

	t.Run("deadline missed, WinningPoSt failed", func(t *testing.T) {
		rep, out, code := day(t, "--duration", "2500ms", "--deadline-at", "500ms", "--deadline-window", "1ns",
			"--winning", garbage, "--winning-deadline", "1m")
		t.Log(out)
		k := kinds(rep)
		if k[dayWinning].Failed != 2 || k[dayWinning].Proved != 0 || k[dayWinning].FirstError == "" {
			t.Errorf("winning %+v: want 2 failed (at 1 and 2 s)", k[dayWinning])
		}
		if k[dayWPoSt].Proved != 2 {
			t.Errorf("wpost %+v: want the deadline's 2 partitions proved", k[dayWPoSt])
		}
		if len(rep.Deadlines) != 1 || rep.Deadlines[0].Met || rep.Deadlines[0].Margin >= 0 {
			t.Errorf("deadlines %+v: want one, missed", rep.Deadlines)
		}
		if code == 0 || !strings.Contains(out, "2 winning failed") || !strings.Contains(out, "1 of 1 WindowPoSt deadlines missed") || !strings.Contains(out, "MISSED (late by") {
			t.Errorf("exit %d: want the failures and the missed deadline as faults:\n%s", code, out)
		}
	})
}

// TestDayLateRuns: a late WinningPoSt is broken down from its job's
// intervals: each stage's time, and the wait between the end of its
// Prepare and the start of its kernels; a job not named, or with no
// events, is left out.
func TestDayLateRuns(t *testing.T) {
	ms := func(n int) time.Duration { return time.Duration(n) * time.Millisecond }
	ev := func(at int, k timeline.Kind, job string) timeline.Event {
		return timeline.Event{At: ms(at), Kind: k, Job: job, Partition: 0, Worker: 2, Device: 0}
	}
	var events []timeline.Event
	for _, j := range []struct {
		id    string
		start int
		wait  int // between Prepare's end and the kernels
	}{{"w-late", 1000, 1230}, {"w-on-time", 5000, 0}} {
		s := j.start
		events = append(events,
			ev(s, timeline.JobSubmit, j.id), ev(s, timeline.SynthStart, j.id), ev(s+8, timeline.SynthEnd, j.id),
			ev(s+8, timeline.DevQueue, j.id), ev(s+8, timeline.DevPickup, j.id),
			ev(s+8, timeline.PrepStart, j.id), ev(s+16, timeline.PrepEnd, j.id),
			ev(s+16+j.wait, timeline.KernelStart, j.id), ev(s+126+j.wait, timeline.KernelEnd, j.id),
			ev(s+126+j.wait, timeline.FinishStart, j.id), ev(s+127+j.wait, timeline.FinishEnd, j.id),
			ev(s+128+j.wait, timeline.JobDone, j.id))
	}
	// PoRep Runs under the device lock (workers 0 and 1): one ends at 976,
	// 40 ms before w-late's Prepare ends at 1016, the next holds the lock
	// from 986 to 2400; w-on-time's ends at 5016, 516 ms into a Run and
	// 1,516 ms after the last one ended.
	for _, r := range []struct {
		job        string
		worker     int
		start, end int
	}{{"p-a", 0, 0, 976}, {"p-b", 1, 986, 2400}, {"p-c", 0, 2410, 3500}, {"p-d", 1, 4500, 6000}} {
		events = append(events,
			timeline.Event{At: ms(r.start), Kind: timeline.LockHeld, Job: r.job, Worker: r.worker, Device: 0},
			timeline.Event{At: ms(r.end), Kind: timeline.LockFree, Job: r.job, Worker: r.worker, Device: 0})
	}
	kindOf := map[string]string{"w-late": dayWinning, "w-on-time": dayWinning, "p-a": dayPoRep, "p-b": dayPoRep, "p-c": dayPoRep, "p-d": dayPoRep}
	d := analyzeDay(events, kindOf, []string{"w-late", "w-missing"})
	want := []dayLateRun{{ID: "w-late", Job: ms(1358), Synth: ms(8), Prep: ms(8), BeforeKernels: ms(1230),
		Kernels: ms(110), Finish: ms(1), Arrival: dayArrival{InRun: dayPoRep, IntoRun: ms(30), RunLeft: ms(1384), Ended: dayPoRep, SinceEnd: ms(40)}}}
	if !slices.Equal(d.Late, want) {
		t.Fatalf("late runs %+v, want %+v", d.Late, want)
	}
	if d.OnTime.Count != 1 || d.OnTime.ElsewhereRuns != 1 || len(d.OnTime.AfterRunEnd) != 0 {
		t.Errorf("on time %+v: want the one, not just after a Run's end", d.OnTime)
	}
	var b strings.Builder
	d.writeText(&b)
	for _, line := range []string{
		"late WinningPoSt w-late: 1358 ms = synth 8 ms, queue 0 ms, prep 8 ms, before its kernels 1230 ms, kernels 110 ms, finish 1 ms; " +
			"arrived 30 ms into a porep Run (1384 ms left), 40 ms after a porep Run ended",
		"the 1 on time arrived 1 elsewhere",
	} {
		if !strings.Contains(b.String(), line) {
			t.Errorf("report:\n%s\nwant the line %q", b.String(), line)
		}
	}
}

// TestDayArrivals: WinningPoSts are counted by the kind of the Run that
// ended just before they arrived.
func TestDayArrivals(t *testing.T) {
	ms := func(n int) time.Duration { return time.Duration(n) * time.Millisecond }
	runs := []timeline.Interval{
		{Job: "p", Stage: timeline.StageLock, Start: 0, End: ms(1000)},
		{Job: "s", Stage: timeline.StageLock, Start: ms(1010), End: ms(2000)},
	}
	kindOf := map[string]string{"p": dayPoRep, "s": daySnap}
	var a dayArrivals
	for _, tc := range []struct {
		at   int
		want dayArrival
	}{
		{500, dayArrival{InRun: dayPoRep, IntoRun: ms(500), RunLeft: ms(500)}},
		{1005, dayArrival{Ended: dayPoRep, SinceEnd: ms(5)}},
		{1100, dayArrival{InRun: daySnap, IntoRun: ms(90), RunLeft: ms(900), Ended: dayPoRep, SinceEnd: ms(100)}},
		{2200, dayArrival{Ended: daySnap, SinceEnd: ms(200)}},
	} {
		got := arrivalAt(ms(tc.at), runs, kindOf)
		if got != tc.want {
			t.Errorf("at %d ms: %+v, want %+v", tc.at, got, tc.want)
		}
		a.add(got)
	}
	if a.Count != 4 || a.AfterRunEnd[dayPoRep] != 2 || a.ElsewhereRuns != 2 {
		t.Errorf("arrivals %+v: want 2 just after a porep Run, 2 elsewhere", a)
	}
	if s := a.String(); s != "2 within 150 ms after a porep Run ended, 2 elsewhere" {
		t.Errorf("%q", s)
	}
}
