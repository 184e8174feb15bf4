package server

import (
	"encoding/json"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus/promhttp"
	"google.golang.org/grpc/metadata"

	"github.com/cuzk-project/cuzk/auth"
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
	Draining        bool         `json:"draining"`
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
	Where     string `json:"where"`                     // "devices" (the points in GPU memory), "devices+file" (part of them read from the file at every proof) or "host"
	HostCopy  uint64 `json:"host_copy_bytes,omitempty"` // devices+file: of size_bytes, the page-locked copy of part of what streams
	Kept      string `json:"kept,omitempty"`            // why it is not evicted for other work
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
		where := "host"
		switch {
		case e.FromFile:
			where = "devices+file"
		case e.OnDevice:
			where = "devices"
		}
		doc.SRS = append(doc.SRS, srsJSON{e.CircuitID, tierLabel(e.Tier), e.SizeBytes, e.RefCount, where, e.HostCopy, e.Kept})
	}
	for _, q := range s.Queues {
		doc.Queues = append(doc.Queues, queueJSON{q.ProofKind, q.Pending, q.InProgress})
	}
	return doc
}

// HTTPHandler serves /metrics (Prometheus), /status (JSON of the engine
// snapshot) and /healthz.
func HTTPHandler(eng Engine, m *Metrics) http.Handler { return httpHandler(eng, m, nil) }

// httpHandler is HTTPHandler whose /status and /healthz say when the
// daemon is draining (draining may be nil).
func httpHandler(eng Engine, m *Metrics, draining func() bool) http.Handler {
	isDraining := func() bool { return draining != nil && draining() }
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", promhttp.HandlerFor(m.Registry, promhttp.HandlerOpts{}))
	mux.HandleFunc("GET /status", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		doc := statusDocument(eng.Status(), time.Now())
		doc.Draining = isDraining()
		_ = enc.Encode(doc)
	})
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		// 200 while draining too: the process is alive and finishing
		// its RPCs; a liveness probe must not kill it now.
		if isDraining() {
			_, _ = w.Write([]byte("draining\n"))
			return
		}
		if err := unreachable(eng); err != nil {
			http.Error(w, err.Error(), http.StatusServiceUnavailable)
			return
		}
		_, _ = w.Write([]byte("ok\n"))
	})
	return mux
}

// requireToken guards every route but /healthz with a read token in an
// "Authorization: Bearer <token>" header: the HTTP listener's rule when
// it is not bound to loopback (job ids on /status let a caller aim
// CancelProof).
func requireToken(secret auth.Secret, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/healthz" {
			next.ServeHTTP(w, r)
			return
		}
		tok, err := bearerToken(metadata.MD{"authorization": r.Header.Values("Authorization")})
		if err != nil {
			w.Header().Set("WWW-Authenticate", `Bearer realm="cuzk"`)
			http.Error(w, "a read token is needed: Authorization: Bearer <token>", http.StatusUnauthorized)
			return
		}
		allow, err := auth.Verify(secret, tok)
		if err != nil {
			w.Header().Set("WWW-Authenticate", `Bearer realm="cuzk", error="invalid_token"`)
			http.Error(w, "token does not verify against this daemon's secret", http.StatusUnauthorized)
			return
		}
		if !auth.Allows(allow, auth.Read) {
			http.Error(w, "token does not allow read", http.StatusForbidden)
			return
		}
		next.ServeHTTP(w, r)
	})
}
