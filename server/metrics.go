package server

import (
	"bytes"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/common/expfmt"
)

// Metrics is the daemon's Prometheus registry: engine state read from
// Engine.Status on every scrape, per-kind proof outcomes observed at the
// API, RPC counts and latencies, and the Go runtime and process
// collectors. Names follow the Prometheus conventions (cuzk_<noun>_<unit>,
// counters ending in _total, base units), which metrics_test.go checks
// with promlint. Per-kind outcomes are cuzk_proof_results_total{status}:
// the Rust cuzk's cuzk_proofs_completed{proof_kind} and
// cuzk_proofs_failed{proof_kind} are not exported, being counters without
// _total whose OpenMetrics names would be those of the engine-wide
// cuzk_proofs_completed_total and cuzk_proofs_failed_total.
type Metrics struct {
	Registry *prometheus.Registry

	outcomes   *prometheus.CounterVec   // cuzk_proof_results_total{proof_kind,status}
	duration   *prometheus.HistogramVec // cuzk_proof_duration_seconds{proof_kind}
	rpcs       *prometheus.CounterVec   // cuzk_rpc_requests_total{method,code}
	rpcSeconds *prometheus.HistogramVec // cuzk_rpc_duration_seconds{method}
	panics     prometheus.Counter       // cuzk_rpc_panics_total
	engine     *engineCollector
	jobKinds   *jobKinds
}

// NewMetrics builds a registry around eng. workersPerDevice feeds
// cuzk_gpu_workers (devices × workers).
func NewMetrics(eng Engine, workersPerDevice int) *Metrics {
	reg := prometheus.NewRegistry()
	m := &Metrics{
		Registry: reg,
		outcomes: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "cuzk_proof_results_total",
			Help: "Job results returned to clients, by proof kind and final status (counted once per job, when a client first receives it).",
		}, []string{"proof_kind", "status"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "cuzk_proof_duration_seconds",
			Help:    "Submit-to-result time of completed proofs.",
			Buckets: []float64{0.1, 0.5, 1, 2, 5, 10, 20, 30, 60, 120, 300, 600, 1200},
		}, []string{"proof_kind"}),
		rpcs: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "cuzk_rpc_requests_total",
			Help: "gRPC requests handled, by method and status code.",
		}, []string{"method", "code"}),
		rpcSeconds: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "cuzk_rpc_duration_seconds",
			Help:    "gRPC handling time, by method.",
			Buckets: prometheus.ExponentialBuckets(0.0005, 4, 12),
		}, []string{"method"}),
		panics: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "cuzk_rpc_panics_total",
			Help: "Panics recovered in RPC handlers (each one is a bug).",
		}),
		jobKinds: newJobKinds(4096),
	}
	m.engine = &engineCollector{eng: eng, workersPerDevice: workersPerDevice}
	reg.MustRegister(m.collectors()...)
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// collectors are the daemon's own metrics (the Go runtime and process
// collectors aside).
func (m *Metrics) collectors() []prometheus.Collector {
	return []prometheus.Collector{m.outcomes, m.duration, m.rpcs, m.rpcSeconds, m.panics, m.engine}
}

// Text renders the registry in the Prometheus text format (GetMetrics).
func (m *Metrics) Text() (string, error) {
	families, err := m.Registry.Gather()
	if err != nil {
		return "", fmt.Errorf("gathering metrics: %w", err)
	}
	var buf bytes.Buffer
	enc := expfmt.NewEncoder(&buf, expfmt.NewFormat(expfmt.TypeTextPlain))
	for _, f := range families {
		if err := enc.Encode(f); err != nil {
			return "", fmt.Errorf("encoding metric %s: %w", f.GetName(), err)
		}
	}
	return buf.String(), nil
}

// rememberKind records a submitted job's kind so its result, awaited
// later, can be counted under that kind.
func (m *Metrics) rememberKind(jobID, kind string) { m.jobKinds.put(jobID, kind) }

// observeResult counts a job's result once, under its kind. Results of
// jobs whose kind is unknown (submitted before a restart, or forgotten
// after many newer submissions) are counted as "unknown".
func (m *Metrics) observeResult(jobID, kind string, st string, total time.Duration) {
	if kind == "" {
		var ok bool
		if kind, ok = m.jobKinds.lookup(jobID); !ok {
			kind = "unknown"
		}
	}
	if !m.jobKinds.markCounted(jobID, st, total) {
		return
	}
	m.outcomes.WithLabelValues(kind, st).Inc()
	if st == "completed" {
		m.duration.WithLabelValues(kind).Observe(total.Seconds())
	}
}

// jobKinds is a bounded memory of job id → kind, and of which jobs'
// results were already counted, so that repeated AwaitProof calls on one
// job count it once. Oldest entries are forgotten first.
type jobKinds struct {
	mu      sync.Mutex
	max     int
	kinds   map[string]string
	order   []string
	counted map[string]bool
	corder  []string
}

func newJobKinds(max int) *jobKinds {
	return &jobKinds{max: max, kinds: map[string]string{}, counted: map[string]bool{}}
}

func (j *jobKinds) put(id, kind string) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if _, ok := j.kinds[id]; !ok {
		j.order = append(j.order, id)
	}
	j.kinds[id] = kind
	for len(j.order) > j.max {
		delete(j.kinds, j.order[0])
		j.order = j.order[1:]
	}
}

func (j *jobKinds) lookup(id string) (string, bool) {
	j.mu.Lock()
	defer j.mu.Unlock()
	k, ok := j.kinds[id]
	return k, ok
}

// markCounted reports whether id's result (status st, total time) was not
// counted before, and marks it. A result is told apart by its status and
// total time because a request under the id of a FAILED or CANCELLED job
// starts a new job, whose result counts too.
func (j *jobKinds) markCounted(id, st string, total time.Duration) bool {
	j.mu.Lock()
	defer j.mu.Unlock()
	key := id + "\x00" + st + "\x00" + strconv.FormatInt(int64(total), 10)
	if j.counted[key] {
		return false
	}
	delete(j.kinds, id)
	j.counted[key] = true
	j.corder = append(j.corder, key)
	for len(j.corder) > j.max {
		delete(j.counted, j.corder[0])
		j.corder = j.corder[1:]
	}
	return true
}

// engineCollector turns Engine.Status into metrics at scrape time, so the
// figures are never stale and the engine keeps no metric state.
type engineCollector struct {
	eng              Engine
	workersPerDevice int
}

var (
	descCompletedTotal = prometheus.NewDesc("cuzk_proofs_completed_total", "Proofs the engine completed since start, all kinds, whether or not a client received them.", nil, nil)
	descFailedTotal    = prometheus.NewDesc("cuzk_proofs_failed_total", "Proofs the engine failed since start, all kinds, whether or not a client received them.", nil, nil)
	descUptime         = prometheus.NewDesc("cuzk_uptime_seconds", "Seconds since the engine started.", nil, nil)
	descQueueDepth     = prometheus.NewDesc("cuzk_queue_depth", "Jobs waiting, all kinds.", nil, nil)
	descRunningJobs    = prometheus.NewDesc("cuzk_running_jobs", "Jobs in progress, all kinds.", nil, nil)
	descGPUWorkers     = prometheus.NewDesc("cuzk_gpu_workers", "Device workers (devices × workers per device).", nil, nil)
	descDevices        = prometheus.NewDesc("cuzk_devices", "Proving devices.", nil, nil)
	descQueuePending   = prometheus.NewDesc("cuzk_queue_pending_jobs", "Jobs waiting, by proof kind.", []string{"proof_kind"}, nil)
	descQueueRunning   = prometheus.NewDesc("cuzk_queue_in_progress_jobs", "Jobs in progress, by proof kind.", []string{"proof_kind"}, nil)
	descMemUsed        = prometheus.NewDesc("cuzk_memory_used_bytes", "Bytes reserved in the memory budget.", nil, nil)
	descMemLimit       = prometheus.NewDesc("cuzk_memory_limit_bytes", "The memory budget.", nil, nil)
	descSRSSize        = prometheus.NewDesc("cuzk_srs_size_bytes", "Size of a parameter set known to the engine.", []string{"circuit_id", "tier"}, nil)
	descSRSRefs        = prometheus.NewDesc("cuzk_srs_references", "In-flight proofs using a parameter set.", []string{"circuit_id"}, nil)
	descDevMemTotal    = prometheus.NewDesc("cuzk_device_memory_total_bytes", "Device memory.", []string{"device", "name"}, nil)
	descDevMemFree     = prometheus.NewDesc("cuzk_device_memory_free_bytes", "Free device memory.", []string{"device", "name"}, nil)
	descDevBusy        = prometheus.NewDesc("cuzk_device_busy", "1 while the device is working on a job.", []string{"device", "name"}, nil)
	descDevLost        = prometheus.NewDesc("cuzk_device_lost", "1 once the device was lost (its units moved to the other devices).", []string{"device", "name"}, nil)
	descDevKept        = prometheus.NewDesc("cuzk_device_kept_bytes", "Memory budget held by buffers the device keeps for the next partition (the CUDA device's a, b stagings).", []string{"device", "name"}, nil)
	descDevPhase       = prometheus.NewDesc("cuzk_device_kernel_phase_seconds_total", "Time of a timed part of the device's Runs (upload, spmv, ntt, msm_h …; the parts overlap), summed.", []string{"device", "name", "circuit", "phase"}, nil)
	descDevPhaseRuns   = prometheus.NewDesc("cuzk_device_kernel_phase_runs_total", "Runs that timed the phase: seconds_total / runs_total is its mean per partition.", []string{"device", "name", "circuit", "phase"}, nil)
	descPrepPhase      = prometheus.NewDesc("cuzk_device_prepare_phase_seconds_total", "Time of a timed part of the device's Prepares on the host (alloc, kept, eval, split, await), summed.", []string{"device", "name", "circuit", "phase"}, nil)
	descPrepPhaseRuns  = prometheus.NewDesc("cuzk_device_prepare_phase_runs_total", "Prepares that timed the phase: seconds_total / runs_total is its mean per partition.", []string{"device", "name", "circuit", "phase"}, nil)
	descClaims         = prometheus.NewDesc("cuzk_memory_claims_total", "Partitions whose memory reservation took over a staging's share of the budget instead of the staging being freed: one kept already (via=kept), or one the Run in flight would keep, the partition reserved ahead and synthesized during that Run (via=ahead; those whose staging did not come are also in cuzk_memory_claims_missed_total).", []string{"via"}, nil)
	descClaimsMissed   = prometheus.NewDesc("cuzk_memory_claims_missed_total", "Partitions reserved ahead of a Run whose staging then did not come (the Run failed or kept none): they reserved the rest themselves.", nil, nil)
	descAuxKept        = prometheus.NewDesc("cuzk_memory_aux_kept_bytes", "Bytes of the budget that hold the last partition's dead aux vector, kept for the next witness synthesis of its size.", nil, nil)
	descAuxReused      = prometheus.NewDesc("cuzk_witness_aux_reused_total", "Partitions whose witness synthesis filled a kept aux vector instead of one made anew.", nil, nil)
)

func (c *engineCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{descCompletedTotal, descFailedTotal, descUptime, descQueueDepth,
		descRunningJobs, descGPUWorkers, descDevices, descQueuePending, descQueueRunning, descMemUsed,
		descMemLimit, descSRSSize, descSRSRefs, descDevMemTotal, descDevMemFree, descDevBusy, descDevLost, descDevKept, descDevPhase, descDevPhaseRuns, descPrepPhase, descPrepPhaseRuns, descClaims, descClaimsMissed, descAuxKept, descAuxReused} {
		ch <- d
	}
}

func (c *engineCollector) Collect(ch chan<- prometheus.Metric) {
	s := c.eng.Status()
	gauge := func(d *prometheus.Desc, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, labels...)
	}
	ch <- prometheus.MustNewConstMetric(descCompletedTotal, prometheus.CounterValue, float64(s.ProofsCompleted))
	ch <- prometheus.MustNewConstMetric(descFailedTotal, prometheus.CounterValue, float64(s.ProofsFailed))
	gauge(descUptime, s.Uptime.Seconds())
	var pending, running uint64
	seen := map[string]bool{}
	for _, q := range s.Queues {
		pending += uint64(q.Pending)
		running += uint64(q.InProgress)
		if seen[q.ProofKind] { // a duplicate label set would fail the whole scrape
			continue
		}
		seen[q.ProofKind] = true
		gauge(descQueuePending, float64(q.Pending), q.ProofKind)
		gauge(descQueueRunning, float64(q.InProgress), q.ProofKind)
	}
	gauge(descQueueDepth, float64(pending))
	gauge(descRunningJobs, float64(running))
	gauge(descDevices, float64(len(s.Devices)))
	gauge(descGPUWorkers, float64(len(s.Devices)*c.workersPerDevice))
	gauge(descMemUsed, float64(s.MemoryUsed))
	gauge(descMemLimit, float64(s.MemoryLimit))
	ch <- prometheus.MustNewConstMetric(descClaims, prometheus.CounterValue, float64(s.Claims.Kept), "kept")
	ch <- prometheus.MustNewConstMetric(descClaims, prometheus.CounterValue, float64(s.Claims.Ahead), "ahead")
	ch <- prometheus.MustNewConstMetric(descClaimsMissed, prometheus.CounterValue, float64(s.Claims.Missed))
	gauge(descAuxKept, float64(s.AuxKept))
	ch <- prometheus.MustNewConstMetric(descAuxReused, prometheus.CounterValue, float64(s.AuxReused))
	seen = map[string]bool{}
	for _, e := range s.SRS {
		if seen[e.CircuitID] {
			continue
		}
		seen[e.CircuitID] = true
		gauge(descSRSSize, float64(e.SizeBytes), e.CircuitID, tierLabel(e.Tier))
		gauge(descSRSRefs, float64(e.RefCount), e.CircuitID)
	}
	seen = map[string]bool{}
	for _, d := range s.Devices {
		ord := strconv.FormatUint(uint64(d.Ordinal), 10)
		if seen[ord] {
			continue
		}
		seen[ord] = true
		busy := 0.0
		if d.CurrentJobID != "" {
			busy = 1
		}
		gauge(descDevMemTotal, float64(d.MemoryTotal), ord, d.Name)
		gauge(descDevMemFree, float64(d.MemoryFree), ord, d.Name)
		gauge(descDevBusy, busy, ord, d.Name)
		lost := 0.0
		if d.Lost != "" {
			lost = 1
		}
		gauge(descDevLost, lost, ord, d.Name)
		gauge(descDevKept, float64(d.KeptBytes), ord, d.Name)
		for _, p := range d.Phases {
			ch <- prometheus.MustNewConstMetric(descDevPhase, prometheus.CounterValue, p.Total.Seconds(), ord, d.Name, p.Circuit, p.Name)
			ch <- prometheus.MustNewConstMetric(descDevPhaseRuns, prometheus.CounterValue, float64(p.Runs), ord, d.Name, p.Circuit, p.Name)
		}
		for _, p := range d.PreparePhases {
			ch <- prometheus.MustNewConstMetric(descPrepPhase, prometheus.CounterValue, p.Total.Seconds(), ord, d.Name, p.Circuit, p.Name)
			ch <- prometheus.MustNewConstMetric(descPrepPhaseRuns, prometheus.CounterValue, float64(p.Runs), ord, d.Name, p.Circuit, p.Name)
		}
	}
}
