package server

import (
	"context"
	"encoding/json"

	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"

	"github.com/cuzk-project/cuzk/engine"
)

// ClusterHeader is the GetStatus response header that carries a cluster
// daemon's ClusterJSON: the cuzk.v1 GetStatusResponse is Curio's wire
// contract and has no field for it, and a client that does not look
// (Curio) never sees it.
const ClusterHeader = "cuzk-cluster"

// ClusterJSON is the cluster part of /status and of ClusterHeader.
type ClusterJSON struct {
	Self    string              `json:"self"`
	Queues  []string            `json:"queues"`
	Workers []ClusterWorkerJSON `json:"workers"`
	Pending []PriorityCountJSON `json:"pending_by_priority"`
	Jobs    map[string]int      `json:"jobs_by_state"`
	Error   string              `json:"error,omitempty"`
	// Database is "ok" while the daemon reaches the database, else
	// "unreachable" (for DatabaseDownSeconds; the figures are then the
	// last ones read).
	Database            string  `json:"database"`
	DatabaseDownSeconds float64 `json:"database_down_seconds,omitempty"`
}

// ClusterWorkerJSON is one daemon of the cluster.
type ClusterWorkerJSON struct {
	ID              string  `json:"id"`
	Host            string  `json:"host"`
	Capacity        int     `json:"capacity"`
	Running         int     `json:"running"`
	Devices         int     `json:"devices"`
	LastSeenSeconds float64 `json:"last_seen_seconds"`
	Alive           bool    `json:"alive"`
}

// PriorityCountJSON is the number of waiting jobs of one priority.
type PriorityCountJSON struct {
	Priority string `json:"priority"`
	Count    int    `json:"count"`
}

func clusterDocument(c *engine.ClusterStatus) *ClusterJSON {
	if c == nil {
		return nil
	}
	doc := &ClusterJSON{Self: c.Self, Queues: c.Queues, Workers: []ClusterWorkerJSON{},
		Pending: []PriorityCountJSON{}, Jobs: map[string]int{}, Error: c.Error, Database: "ok"}
	if c.DatabaseDown > 0 {
		doc.Database, doc.DatabaseDownSeconds = "unreachable", c.DatabaseDown.Seconds()
	}
	for _, w := range c.Workers {
		doc.Workers = append(doc.Workers, ClusterWorkerJSON{w.ID, w.Host, w.Capacity, w.Running, w.Devices, w.LastSeen.Seconds(), w.Alive})
	}
	for _, p := range c.Pending {
		doc.Pending = append(doc.Pending, PriorityCountJSON{p.Priority.String(), p.Count})
	}
	for _, s := range c.Jobs {
		doc.Jobs[s.State] = s.Count
	}
	return doc
}

// setClusterHeader sends a cluster daemon's status with a GetStatus
// response; nothing for a daemon on its own.
func setClusterHeader(ctx context.Context, c *engine.ClusterStatus) {
	doc := clusterDocument(c)
	if doc == nil {
		return
	}
	b, err := json.Marshal(doc)
	if err != nil {
		return
	}
	_ = grpc.SetHeader(ctx, metadata.Pairs(ClusterHeader, string(b)))
}

// unreachable is why eng cannot answer requests now (nil when it can): a
// cluster daemon that cannot reach its database says so (/healthz answers
// 503 with it; the RPCs answer Unavailable once they have waited it out).
func unreachable(eng Engine) error {
	if u, ok := eng.(interface{ Unreachable() error }); ok {
		return u.Unreachable()
	}
	return nil
}
