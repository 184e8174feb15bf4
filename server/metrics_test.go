package server

import (
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/cuzk-project/cuzk/engine"
)

// fullMetrics is a registry in which every metric the daemon can export
// has at least one sample: an engine snapshot with every field set, a
// completed and a failed proof, an RPC and a recovered panic.
func fullMetrics(t *testing.T) *Metrics {
	t.Helper()
	eng := newFakeEngine()
	phases := []engine.PhaseTotal{{Name: "msm_h", Total: 3 * time.Second, Runs: 4}}
	eng.snapshot = engine.Snapshot{
		Devices: []engine.DeviceStatus{{
			Ordinal: 0, Name: "cuda0", MemoryTotal: 80 << 30, MemoryFree: 10 << 30, CurrentJobID: "j1",
			Phases: phases, PreparePhases: phases, KeptBytes: 1 << 30, Lost: "device lost",
		}},
		SRS:             []engine.SRSStatus{{CircuitID: "porep-32g", Tier: engine.TierHot, SizeBytes: 100, RefCount: 1}},
		Queues:          []engine.QueueStatus{{ProofKind: "porep-c2", Pending: 2, InProgress: 1}},
		ProofsCompleted: 3, ProofsFailed: 1, Uptime: time.Minute, MemoryUsed: 1 << 30, MemoryLimit: 2 << 30,
	}
	m := NewMetrics(eng, 1)
	m.observeResult("j1", "porep-c2", "completed", 2*time.Second)
	m.observeResult("j2", "porep-c2", "failed", time.Second)
	m.rpcs.WithLabelValues("/cuzk.v1.ProvingEngine/Prove", "OK").Inc()
	m.rpcSeconds.WithLabelValues("/cuzk.v1.ProvingEngine/Prove").Observe(0.1)
	m.panics.Inc()
	return m
}

var descName = regexp.MustCompile(`fqName: "([^"]+)"`)

// The daemon's /metrics follow the Prometheus conventions that promlint
// checks (counters end in _total, base units in the name, help on every
// metric, no duplicate series), and no two metric families collide:
// OpenMetrics exposes a counter c as c_total and a histogram h as h_count,
// h_sum and h_bucket, so no family may be named like another's series.
func TestMetricsFollowPrometheusConventions(t *testing.T) {
	m := fullMetrics(t)
	problems, err := testutil.GatherAndLint(m.Registry)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Errorf("%s: %s", p.Metric, p.Text)
	}

	families, err := m.Registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]string{}
	for _, f := range families {
		kinds[f.GetName()] = f.GetType().String()
	}
	for name, kind := range kinds {
		if !strings.HasPrefix(name, "cuzk_") { // the runtime collectors are client_golang's
			continue
		}
		for _, series := range []string{strings.TrimSuffix(name, "_total"), name + "_total", name + "_count", name + "_sum", name + "_bucket", name + "_created"} {
			if other, ok := kinds[series]; ok && series != name {
				t.Errorf("%s (%s) and %s (%s) share a series name", name, kind, series, other)
			}
		}
	}

	// The lint saw every metric the daemon registers: a metric without
	// samples would escape it.
	ch := make(chan *prometheus.Desc, 64)
	go func() {
		for _, c := range m.collectors() {
			c.Describe(ch)
		}
		close(ch)
	}()
	for d := range ch {
		match := descName.FindStringSubmatch(d.String())
		if match == nil {
			t.Errorf("no name in %s", d)
			continue
		}
		if _, ok := kinds[match[1]]; !ok {
			t.Errorf("%s has no sample in the test registry: the lint did not check it", match[1])
		}
	}
	if t.Failed() {
		names := make([]string, 0, len(kinds))
		for n := range kinds {
			names = append(names, n)
		}
		slices.Sort(names)
		t.Logf("families: %s", strings.Join(names, " "))
	}
}
