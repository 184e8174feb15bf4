package engine

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cuzk-project/cuzk/device/sim"
	"github.com/cuzk-project/cuzk/timeline"
)

// syncBuffer is a log destination read while jobs write to it.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// lines returns the JSON log lines whose job attribute starts with prefix.
func (b *syncBuffer) lines(t *testing.T, prefix string) []map[string]any {
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(b.buf.String()), "\n") {
		var m map[string]any
		if l == "" {
			continue
		}
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("log line %q: %v", l, err)
		}
		if job, _ := m["job"].(string); strings.HasPrefix(job, prefix) {
			out = append(out, m)
		}
	}
	return out
}

// Every accepted job that ends writes one structured line: its id, kind,
// partitions and milliseconds, and the error when it failed; a request
// whose plan failed was never a job and writes none.
func TestJobEndLogLine(t *testing.T) {
	// Not parallel: the engine logs to the default logger.
	var buf syncBuffer
	old := slog.Default()
	slog.SetDefault(slog.New(slog.NewJSONHandler(&buf, nil)))
	t.Cleanup(func() { slog.SetDefault(old) })

	env := newTestEnv(t, sim.Config{}, func(c *Config) { c.SynthesisWorkers = 1 })
	ok := env.submit(t, "log-ok", KindPoRepSealCommit, 0, testJob{Tag: 1, Parts: 3})
	bad := env.submit(t, "log-bad", KindSnapDealsUpdate, 0, testJob{Tag: 2, Parts: 2, FailSynth: 2})
	if r := env.await(t, ok); r.Status != StatusCompleted {
		t.Fatalf("%s: %v %s", ok, r.Status, r.Error)
	}
	if r := env.await(t, bad); r.Status != StatusFailed {
		t.Fatalf("%s: %v", bad, r.Status)
	}
	gated := env.submit(t, "log-gated", KindWinningPoSt, 0, testJob{Tag: 3, Parts: 1, Gate: "log"})
	waitFor(t, "the gated job to synthesize", func() bool { return env.count(timeline.SynthStart, gated) == 1 })
	if _, err := env.e.Cancel(gated); err != nil {
		t.Fatal(err)
	}
	close(env.planner.gate("log"))
	if _, _, err := env.e.Submit(t.Context(), Request{RequestID: "log-rejected", Kind: KindPoRepSealCommit, VanillaProof: []byte(`{"fail_plan":true}`)}); err == nil {
		t.Fatal("a failing plan was accepted")
	}
	// The line follows the result: wait for all three.
	waitFor(t, "three log lines", func() bool { return len(buf.lines(t, "log-")) >= 3 })
	time.Sleep(50 * time.Millisecond) // a duplicate line would come now

	want := map[string]struct {
		level, msg, kind string
		partitions       float64
		err              string
	}{
		ok:    {"INFO", "proof completed", "porep-c2", 3, ""},
		bad:   {"WARN", "proof failed", "snap-update", 2, "partition 1: synthesis"},
		gated: {"INFO", "proof cancelled", "winning-post", 1, ErrCancelled.Error()},
	}
	seen := map[string]int{}
	for _, l := range buf.lines(t, "log-") {
		job := l["job"].(string)
		seen[job]++
		w, known := want[job]
		if !known {
			t.Errorf("unexpected line %v", l)
			continue
		}
		if l["level"] != w.level || l["msg"] != w.msg || l["kind"] != w.kind || l["partitions"] != w.partitions {
			t.Errorf("%s: line %v, want level %s msg %q kind %s partitions %v", job, l, w.level, w.msg, w.kind, w.partitions)
		}
		if ms, isNum := l["ms"].(float64); !isNum || ms < 0 {
			t.Errorf("%s: ms = %v", job, l["ms"])
		}
		if e, _ := l["err"].(string); (w.err == "") != (e == "") || !strings.Contains(e, w.err) {
			t.Errorf("%s: err = %q, want it to contain %q", job, e, w.err)
		}
	}
	for job := range want {
		if seen[job] != 1 {
			t.Errorf("%s: %d log lines, want 1", job, seen[job])
		}
	}
}
