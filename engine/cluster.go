package engine

import (
	"errors"
	"time"
)

// ErrUnavailable: what the daemon needs to answer (in cluster mode the
// database) cannot be reached now; the same call may succeed later
// (→ gRPC Unavailable).
var ErrUnavailable = errors.New("unavailable")

// ClusterStatus is the shared queue of a daemon in cluster mode (package
// cluster fills it; the engine itself never does).
type ClusterStatus struct {
	Self    string          // this daemon's worker id
	Queues  []string        // the River queues it knows of
	Workers []ClusterWorker // daemons seen in the last ten minutes
	Pending []PriorityCount // jobs waiting, by priority, CRITICAL first
	Jobs    []StateCount    // jobs of the queue by River state
	Error   string          // why the figures are missing, if they are
	// DatabaseDown is how long the database has not answered (0: it
	// answers); the figures are then the last ones read.
	DatabaseDown time.Duration
}

// ClusterWorker is one daemon of a cluster.
type ClusterWorker struct {
	ID       string
	Host     string
	Capacity int // jobs it proves at once; 0 = a frontend only
	Running  int
	Devices  int
	LastSeen time.Duration // since its last heartbeat
	Alive    bool          // heartbeat recent enough
}

// PriorityCount is a number of jobs of one priority.
type PriorityCount struct {
	Priority Priority
	Count    int
}

// StateCount is a number of jobs in one River state (available, running,
// retryable, completed, discarded, cancelled, ...).
type StateCount struct {
	State string
	Count int
}
