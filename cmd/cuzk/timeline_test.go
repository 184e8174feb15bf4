package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cuzk-project/cuzk/timeline"
)

// interlockRecorder records 1 worker running 10 units: kernel 500 ms per
// 1100 ms period (prep 300, run 500, finish 300).
func interlockRecorder() *timeline.Recorder {
	rec := timeline.NewRecorder(0)
	ms := time.Millisecond
	for u := range 10 {
		t := time.Duration(u) * 1100 * ms
		job := fmt.Sprintf("job-%d", u/5)
		for _, e := range []struct {
			at time.Duration
			k  timeline.Kind
		}{
			{0, timeline.PrepStart}, {300, timeline.PrepEnd}, {300, timeline.LockWait}, {300, timeline.LockHeld},
			{300, timeline.KernelStart}, {800, timeline.KernelEnd}, {800, timeline.LockFree},
			{800, timeline.FinishStart}, {1100, timeline.FinishEnd},
		} {
			rec.RecordAt(t+e.at*ms, e.k, job, u%5, 0, 0)
		}
	}
	return rec
}

func TestTimelineCommand(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.csv")
	var buf bytes.Buffer
	if err := timeline.WriteCSV(&buf, interlockRecorder().Events()); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(in, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(timeline.Handler(interlockRecorder()))
	defer srv.Close()

	for _, o := range []timelineOptions{
		{from: in},
		{url: srv.URL + "/timeline"},
		{url: strings.TrimPrefix(srv.URL, "http://")}, // bare host:port
	} {
		o.timeout = 10 * time.Second
		o.csvOut, o.traceOut, o.html = filepath.Join(dir, "out.csv"), filepath.Join(dir, "out.json"), filepath.Join(dir, "out.html")
		var out bytes.Buffer
		if err := runTimeline(context.Background(), o, nil, &out); err != nil {
			t.Fatalf("%+v: %v", o, err)
		}
		report := out.String()
		for _, want := range []string{"kernel (device clock)", "45.5%", "lock held", "> 500 ms: 9", "cross-job stalls: 1"} {
			if !strings.Contains(report, want) {
				t.Errorf("report lacks %q:\n%s", want, report)
			}
		}
		csv, _ := os.ReadFile(o.csvOut)
		if !bytes.Equal(csv, buf.Bytes()) {
			t.Errorf("--csv output differs from the input")
		}
		tr, _ := os.ReadFile(o.traceOut)
		if err := json.Unmarshal(tr, new(timeline.Trace)); err != nil {
			t.Errorf("--trace output: %v", err)
		}
		page, _ := os.ReadFile(o.html)
		if !bytes.Contains(page, []byte("device 0 worker 0")) {
			t.Errorf("--html output lacks the worker lane")
		}
	}

	var out bytes.Buffer
	if err := runTimeline(context.Background(), timelineOptions{from: "-"}, bytes.NewReader(buf.Bytes()), &out); err != nil || !strings.Contains(out.String(), "45.5%") {
		t.Fatalf("--from -: %v\n%s", err, out.String())
	}
}

func TestTimelineCommandErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.csv")
	os.WriteFile(bad, []byte("at_ms,event,job,partition,worker,device\n1.0,KERNEL_GO,j,0,0,0\n"), 0o644)
	srv := httptest.NewServer(http.NotFoundHandler())
	defer srv.Close()
	for _, tc := range []struct {
		o    timelineOptions
		want string
	}{
		{timelineOptions{}, "no events"},
		{timelineOptions{from: "x", url: "y"}, "not both"},
		{timelineOptions{from: filepath.Join(dir, "none.csv")}, "no such file"},
		{timelineOptions{from: bad}, `line 2: field event: unknown event "KERNEL_GO"`},
		{timelineOptions{url: srv.URL, timeout: time.Second}, "404"},
		{timelineOptions{url: "ftp://host/x"}, "http or https"},
	} {
		err := runTimeline(context.Background(), tc.o, nil, &bytes.Buffer{})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want an error mentioning %q", tc.o, err, tc.want)
		}
	}
}

func TestTimelineCommandNotesDroppedEvents(t *testing.T) {
	small := timeline.NewRecorder(10)
	for _, e := range interlockRecorder().Events() {
		small.Add(e)
	}
	srv := httptest.NewServer(timeline.Handler(small))
	defer srv.Close()
	var out bytes.Buffer
	if err := runTimeline(context.Background(), timelineOptions{url: srv.URL, timeout: 10 * time.Second}, nil, &out); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "dropped 80 older events") {
		t.Fatalf("no note of the dropped events:\n%s", out.String())
	}
}
