package server

import (
	"encoding/json"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/cuzk-project/cuzk/engine"
)

// statusJSON is the /status document: the engine snapshot with units in
// the field names.
type statusJSON struct {
	UptimeSeconds   float64      `json:"uptime_seconds"`
	ProofsCompleted uint64       `json:"proofs_completed"`
	ProofsFailed    uint64       `json:"proofs_failed"`
	MemoryUsed      uint64       `json:"memory_used_bytes"`
	MemoryLimit     uint64       `json:"memory_limit_bytes"`
	Devices         []deviceJSON `json:"devices"`
	SRS             []srsJSON    `json:"srs"`
	Queues          []queueJSON  `json:"queues"`
	Time            time.Time    `json:"time"`
	Cluster         *ClusterJSON `json:"cluster,omitempty"`
}

type deviceJSON struct {
	Ordinal          uint32 `json:"ordinal"`
	Name             string `json:"name"`
	MemoryTotal      uint64 `json:"memory_total_bytes"`
	MemoryFree       uint64 `json:"memory_free_bytes"`
	CurrentJobID     string `json:"current_job_id"`
	CurrentProofKind string `json:"current_proof_kind"`
}

type srsJSON struct {
	CircuitID string `json:"circuit_id"`
	Tier      string `json:"tier"`
	SizeBytes uint64 `json:"size_bytes"`
	RefCount  uint32 `json:"ref_count"`
}

type queueJSON struct {
	ProofKind  string `json:"proof_kind"`
	Pending    uint32 `json:"pending"`
	InProgress uint32 `json:"in_progress"`
}

func statusDocument(s engine.Snapshot, now time.Time) statusJSON {
	doc := statusJSON{
		UptimeSeconds:   s.Uptime.Seconds(),
		ProofsCompleted: s.ProofsCompleted,
		ProofsFailed:    s.ProofsFailed,
		MemoryUsed:      s.MemoryUsed,
		MemoryLimit:     s.MemoryLimit,
		Devices:         []deviceJSON{},
		SRS:             []srsJSON{},
		Queues:          []queueJSON{},
		Time:            now.UTC(),
		Cluster:         clusterDocument(s.Cluster),
	}
	for _, d := range s.Devices {
		doc.Devices = append(doc.Devices, deviceJSON{d.Ordinal, d.Name, d.MemoryTotal, d.MemoryFree, d.CurrentJobID, d.CurrentProofKind})
	}
	for _, e := range s.SRS {
		doc.SRS = append(doc.SRS, srsJSON{e.CircuitID, tierLabel(e.Tier), e.SizeBytes, e.RefCount})
	}
	for _, q := range s.Queues {
		doc.Queues = append(doc.Queues, queueJSON{q.ProofKind, q.Pending, q.InProgress})
	}
	return doc
}

// HTTPHandler serves /metrics (Prometheus), /status (JSON of the engine
// snapshot) and /healthz.
func HTTPHandler(eng Engine, m *Metrics) http.Handler {
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", promhttp.HandlerFor(m.Registry, promhttp.HandlerOpts{}))
	mux.HandleFunc("GET /status", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		_ = enc.Encode(statusDocument(eng.Status(), time.Now()))
	})
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte("ok\n"))
	})
	return mux
}
