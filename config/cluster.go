package config

import (
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/cuzk-project/cuzk/engine"
)

// Cluster makes the daemon one of several that share one job queue in
// PostgreSQL (River). Off (Enabled false), the daemon proves only what it
// receives.
type Cluster struct {
	// Enabled turns cluster mode on: every request (but LocalKinds on a
	// daemon with a worker) becomes a job in the shared queue.
	Enabled bool `toml:"enabled"`
	// DatabaseURL is the PostgreSQL connection string (URL or key=value
	// form), e.g. "postgres://cuzk@db/cuzk" or "host=/run/postgresql
	// dbname=cuzk"; a search_path in it selects the schema.
	DatabaseURL string `toml:"database_url"`
	// Migrate runs River's migrations (rivermigrate) and creates the cuzk
	// tables at start. Off, an operator runs `cuzk cluster migrate`.
	Migrate bool `toml:"migrate"`
	// Worker claims jobs into this daemon's engine. Off, the daemon is a
	// frontend only and builds no device.
	Worker bool `toml:"worker"`
	// Queue is the River queue the jobs go into (those of a kind Routes
	// does not name) and are claimed from.
	Queue string `toml:"queue"`
	// Capacity bounds the jobs of Queue this daemon proves at once; 0 =
	// its devices × gpus.gpu_workers_per_device.
	Capacity int `toml:"capacity"`
	// Routes sends a proof kind's jobs to a queue of its own, e.g.
	// {"porep-c2" = "porep"}; every daemon of a cluster routes alike. A
	// kind is spelled as anywhere else (engine.ParseKind: "porep-c2",
	// "POREP_SEAL_COMMIT", the older "porep").
	Routes map[string]string `toml:"routes"`
	// Queues are more queues this daemon claims from, name → capacity
	// (0 = not here), e.g. {porep = 1}.
	Queues map[string]int `toml:"queues"`
	// LocalKinds are proved on the receiving daemon when it has a worker,
	// never queued ("winning-post": the queue never stands between a
	// block and its proof); spelled as Routes' kinds.
	LocalKinds []string `toml:"local_kinds"`
	// MaxAttempts is how often a job is tried (on any daemon) before it is
	// discarded and its error returned to the waiter.
	MaxAttempts int `toml:"max_attempts"`
	// PollInterval bounds how late a waiter learns of a result whose
	// notification it missed.
	PollInterval Duration `toml:"poll_interval"`
	// DeadAfter is how long a daemon's heartbeat (every 5 s) may be
	// silent before its running jobs go back into the queue.
	DeadAfter Duration `toml:"dead_after"`
	// RideOut is how long an RPC waits out an unreachable database (trying
	// again with backoff) before it answers Unavailable.
	RideOut Duration `toml:"ride_out"`
	// Timeouts is how long one attempt of a job may run, per proof kind;
	// past it River's rescuer returns the job to the queue (the fallback
	// when dead_after did not).
	Timeouts ClusterTimeouts `toml:"timeouts"`
}

// ClusterTimeouts is the longest attempt of each proof kind.
type ClusterTimeouts struct {
	PoRep       Duration `toml:"porep"`
	SnapDeals   Duration `toml:"snap"`
	WindowPoSt  Duration `toml:"window_post"`
	WinningPoSt Duration `toml:"winning_post"`
}

// Cluster defaults.
const (
	DefaultClusterQueue       = "cuzk"
	DefaultClusterMaxAttempts = 3
	DefaultClusterPoll        = time.Second
	DefaultClusterDeadAfter   = 30 * time.Second
	DefaultClusterRideOut     = time.Minute
)

// DefaultCluster is the [cluster] section of Default: off, with the
// values a cluster gets when it is turned on.
func DefaultCluster() Cluster {
	return Cluster{
		Migrate:      true,
		Worker:       true,
		Queue:        DefaultClusterQueue,
		LocalKinds:   []string{"winning-post"},
		MaxAttempts:  DefaultClusterMaxAttempts,
		PollInterval: Duration(DefaultClusterPoll),
		DeadAfter:    Duration(DefaultClusterDeadAfter),
		RideOut:      Duration(DefaultClusterRideOut),
		Timeouts: ClusterTimeouts{
			PoRep:       Duration(time.Hour),
			SnapDeals:   Duration(time.Hour),
			WindowPoSt:  Duration(20 * time.Minute),
			WinningPoSt: Duration(30 * time.Second),
		},
	}
}

// validate reports the [cluster] section's problems through bad.
func (c *Cluster) validate(bad func(key, format string, args ...any)) {
	if !c.Enabled {
		return
	}
	if strings.TrimSpace(c.DatabaseURL) == "" {
		bad("cluster.database_url", "empty (cluster mode needs the PostgreSQL connection string)")
	} else if strings.Contains(c.DatabaseURL, "://") {
		if _, err := url.Parse(c.DatabaseURL); err != nil {
			bad("cluster.database_url", "%v", redactURLError(err))
		}
	}
	if c.Queue == "" || len(c.Queue) > 128 {
		bad("cluster.queue", "%q: want 1-128 characters", c.Queue)
	}
	routed := map[engine.ProofKind]string{}
	for k, q := range c.Routes {
		if kind, err := engine.LookupKind(k); err != nil {
			bad("cluster.routes", "%v", err)
		} else if other, dup := routed[kind]; dup {
			bad("cluster.routes", "%q and %q are both %s", min(k, other), max(k, other), kind)
		} else {
			routed[kind] = k
		}
		if q == "" || len(q) > 128 {
			bad("cluster.routes", "%s → %q: want a queue name of 1-128 characters", k, q)
		}
	}
	for q, n := range c.Queues {
		if q == "" || len(q) > 128 {
			bad("cluster.queues", "%q: want a queue name of 1-128 characters", q)
		}
		if n < 0 {
			bad("cluster.queues", "%s: capacity %d is negative", q, n)
		}
	}
	if c.Capacity < 0 {
		bad("cluster.capacity", "%d is negative (0 = devices × workers per device)", c.Capacity)
	}
	for _, k := range c.LocalKinds {
		if _, err := engine.LookupKind(k); err != nil {
			bad("cluster.local_kinds", "%v", err)
		}
	}
	if c.MaxAttempts < 1 || c.MaxAttempts > 100 {
		bad("cluster.max_attempts", "%d is out of range 1-100", c.MaxAttempts)
	}
	if c.PollInterval <= 0 {
		bad("cluster.poll_interval", "must be positive")
	}
	if c.DeadAfter.D() < 10*time.Second {
		bad("cluster.dead_after", "%v is under 10s (two heartbeats): a busy daemon would lose its jobs", c.DeadAfter.D())
	}
	if c.RideOut <= 0 {
		bad("cluster.ride_out", "must be positive")
	}
	for key, d := range map[string]Duration{
		"porep": c.Timeouts.PoRep, "snap": c.Timeouts.SnapDeals,
		"window_post": c.Timeouts.WindowPoSt, "winning_post": c.Timeouts.WinningPoSt,
	} {
		if d <= 0 {
			bad("cluster.timeouts."+key, "must be positive")
		}
	}
}

// redactURLError drops the URL (it may hold a password) from a parse
// error.
func redactURLError(err error) error {
	if ue, ok := err.(*url.Error); ok {
		return fmt.Errorf("not a valid URL: %w", ue.Err)
	}
	return err
}
