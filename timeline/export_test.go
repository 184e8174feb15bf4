package timeline

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// fullPipeline is a small engine-like run: 2 jobs × 2 partitions, one
// synthesis worker, 2 device workers on device 0.
func fullPipeline() []Event {
	var ev []Event
	add := func(at time.Duration, k Kind, job string, p, w, d int) {
		ev = append(ev, Event{At: at * ms, Kind: k, Job: job, Partition: p, Worker: w, Device: d})
	}
	for j, job := range []string{"job-a", "job-b"} {
		base := time.Duration(j) * 1200
		add(base, JobSubmit, job, -1, -1, -1)
		for p := range 2 {
			t := base + time.Duration(p)*600
			w := p
			add(t, SynthStart, job, p, 0, -1)
			add(t+100, SynthEnd, job, p, 0, -1)
			add(t+100, DevQueue, job, p, -1, -1)
			add(t+110, DevPickup, job, p, w, 0)
			add(t+110, PrepStart, job, p, w, 0)
			add(t+200, PrepEnd, job, p, w, 0)
			add(t+200, LockWait, job, p, w, 0)
			add(t+210, LockHeld, job, p, w, 0)
			add(t+215, KernelStart, job, p, w, 0)
			add(t+500, KernelEnd, job, p, w, 0)
			add(t+510, LockFree, job, p, w, 0)
			add(t+510, FinishStart, job, p, w, 0)
			add(t+600, FinishEnd, job, p, w, 0)
		}
		add(base+1210, JobDone, job, -1, -1, -1)
	}
	return ev
}

func TestTraceParsesBack(t *testing.T) {
	ev := fullPipeline()
	ev = append(ev, Event{At: 5, Kind: KernelEnd, Job: "ghost", Partition: 0, Worker: 0, Device: 0})
	// Device 1: finish off the worker loop overlaps the worker's next prep.
	ev = append(ev, cat(
		stage(FinishStart, FinishEnd, "c", 0, 0, 1, 500*ms, 900*ms),
		stage(PrepStart, PrepEnd, "c", 1, 0, 1, 510*ms, 700*ms),
		stage(LockWait, LockHeld, "c", 1, 0, 1, 700*ms, 710*ms),
		stage(LockHeld, LockFree, "c", 1, 0, 1, 710*ms, 1000*ms)[1:],
		// Device 2: overlapping kernels (no lock): an overflow thread.
		stage(KernelStart, KernelEnd, "d", 0, 0, 2, 0, 500*ms),
		stage(KernelStart, KernelEnd, "d", 1, 1, 2, 400*ms, 900*ms),
	)...)
	var buf bytes.Buffer
	if err := WriteTrace(&buf, ev); err != nil {
		t.Fatal(err)
	}
	var tr struct {
		TraceEvents []struct {
			Name string         `json:"name"`
			Ph   string         `json:"ph"`
			Ts   float64        `json:"ts"`
			Dur  float64        `json:"dur"`
			Pid  int            `json:"pid"`
			Tid  int            `json:"tid"`
			Args map[string]any `json:"args"`
		} `json:"traceEvents"`
	}
	if err := json.Unmarshal(buf.Bytes(), &tr); err != nil {
		t.Fatalf("trace is not JSON: %v", err)
	}
	count := map[string]int{}
	names := map[string]bool{}
	for _, e := range tr.TraceEvents {
		count[e.Ph+" "+e.Name]++
		if e.Pid == 0 || (e.Ph != "M" && e.Tid == 0) {
			t.Errorf("event %+v uses pid/tid 0", e)
		}
		if e.Ph == "M" {
			names[fmt.Sprint(e.Args["name"])] = true
		}
		if e.Ph == "X" && e.Name == "kernel" && e.Args["job"] != "d" {
			if e.Pid != DevicePID(0) || e.Tid != DeviceTID || e.Dur != 285000 {
				t.Errorf("kernel event %+v: want pid %d tid %d dur 285000 µs", e, DevicePID(0), DeviceTID)
			}
		}
		if e.Ph == "X" && e.Name == "prep" && e.Tid != WorkerTID(int(e.Args["worker"].(float64))) {
			t.Errorf("prep event %+v not on its worker's thread", e)
		}
		if e.Ph == "X" && e.Name == "finish" && e.Tid != FinishTID(int(e.Args["worker"].(float64))) {
			t.Errorf("finish event %+v not on its worker's finish thread", e)
		}
	}
	for key, want := range map[string]int{
		"X synth": 4, "X prep": 5, "X lock_wait": 5, "X lock": 5, "X kernel": 6, "X finish": 5,
		"i JOB_SUBMIT": 2, "i JOB_DONE": 2, "i DEV_QUEUE": 4, "i DEV_PICKUP": 4, "i KERNEL_END (unpaired)": 1,
		"b job job-a": 1, "e job job-a": 1, "b queue job-b/1": 1,
	} {
		if count[key] != want {
			t.Errorf("%q: %d events, want %d", key, count[key], want)
		}
	}
	// Slices on one thread must nest (Perfetto drops or mangles the rest).
	type thr struct{ pid, tid int }
	open := map[thr][]float64{} // end times of enclosing slices
	for _, e := range tr.TraceEvents {
		if e.Ph != "X" {
			continue
		}
		k := thr{e.Pid, e.Tid}
		st := open[k]
		for len(st) > 0 && st[len(st)-1] <= e.Ts {
			st = st[:len(st)-1]
		}
		if len(st) > 0 && e.Ts+e.Dur > st[len(st)-1] {
			t.Errorf("slice %s at %v overlaps its enclosing slice on pid %d tid %d", e.Name, e.Ts, e.Pid, e.Tid)
		}
		open[k] = append(st, e.Ts+e.Dur)
	}
	for _, n := range []string{"host", "device 0", "kernels", "worker 0", "worker 1", "worker 0 finish", "synth worker 0", "kernels (overlapping 1)"} {
		if !names[n] {
			t.Errorf("no process or thread named %q", n)
		}
	}
}

func TestHTMLWaterfall(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteHTML(&buf, fullPipeline()); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	for _, want := range []string{
		"<!DOCTYPE html>", "device 0 kernels", "device 0 worker 0", "device 0 worker 1", "synth worker 0", "job job-a",
		StageColor[StageKernel], StageColor[StageLock], "<title>kernel job-a/p0 w0: 285.000 ms",
		"kernel util", "cross-job stalls", "legend",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	for _, bad := range []string{"<script", "http://", "https://", "src=", "@import"} {
		if bad == "http://" {
			// The SVG namespace is the one URL allowed; it is never fetched.
			page = strings.ReplaceAll(page, `xmlns="http://www.w3.org/2000/svg"`, "")
		}
		if strings.Contains(page, bad) {
			t.Errorf("page is not self-contained: has %q", bad)
		}
	}
	// The SVG is well-formed XML.
	svg := page[strings.Index(page, "<svg"):]
	svg = svg[:strings.Index(svg, "</svg>")+len("</svg>")]
	d := xml.NewDecoder(strings.NewReader(svg))
	for {
		_, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("svg is not well-formed: %v", err)
		}
	}
	// Hostile job ids are escaped.
	buf.Reset()
	_ = WriteHTML(&buf, []Event{{Kind: JobSubmit, Job: "<script>x</script>", Partition: -1, Worker: -1, Device: -1}, {At: ms, Kind: JobDone, Job: "<script>x</script>", Partition: -1, Worker: -1, Device: -1}})
	if strings.Contains(buf.String(), "<script>") {
		t.Fatal("job id not escaped")
	}
}

func TestHandler(t *testing.T) {
	rec := NewRecorder(64)
	for _, e := range fullPipeline() {
		rec.Add(e)
	}
	srv := httptest.NewServer(Handler(rec))
	defer srv.Close()
	for _, tc := range []struct {
		query, ctype, contains string
		status                 int
	}{
		{"", "text/csv", CSVHeader, 200},
		{"?format=trace", "application/json", "traceEvents", 200},
		{"?format=html", "text/html", "<svg", 200},
		{"?format=text", "text/plain", "kernel (device clock)", 200},
		{"?format=xls", "text/plain", "unknown format", 400},
	} {
		resp, err := http.Get(srv.URL + "/timeline" + tc.query)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != tc.status || !strings.HasPrefix(resp.Header.Get("Content-Type"), tc.ctype) || !strings.Contains(string(body), tc.contains) {
			t.Errorf("GET %s: %d %s, body %.80q", tc.query, resp.StatusCode, resp.Header.Get("Content-Type"), body)
		}
		if resp.StatusCode == 200 && resp.Header.Get(DroppedHeader) != "0" {
			t.Errorf("GET %s: %s = %q, want 0", tc.query, DroppedHeader, resp.Header.Get(DroppedHeader))
		}
		if tc.query == "" {
			ev, err := ReadCSV(bytes.NewReader(body))
			if err != nil || len(ev) != rec.Len() {
				t.Errorf("CSV from the handler: %d events, %v; want %d", len(ev), err, rec.Len())
			}
		}
	}
	resp, err := http.Post(srv.URL, "text/plain", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("POST: %d, want 405", resp.StatusCode)
	}
}
