package cluster

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/cuzk-project/cuzk/engine"
)

// aliveWithin is how recent a heartbeat must be for its worker to count
// as alive in the status.
const aliveWithin = 30 * time.Second

// Status is the local engine's snapshot (on a frontend: the queue's
// unfinished jobs by kind) with the cluster's: its daemons, the queue's
// waiting jobs by priority and its jobs by state. Database errors show in
// Cluster.Error; while the database is unreachable, Cluster.DatabaseDown
// says for how long and the figures are the last ones read.
func (c *Cluster) Status() engine.Snapshot {
	var s engine.Snapshot
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if c.local != nil {
		s = c.local.Status()
	} else {
		s.Uptime = time.Since(c.start)
		var q []engine.QueueStatus
		err := c.try(ctx, func(ctx context.Context) (err error) {
			q, err = c.queueStatus(ctx)
			return err
		})
		if err != nil && !transient(err) { // an unreachable database is logged once, by try
			c.log.Warn("cluster status: queues", "err", err)
		}
		s.Queues = c.last.queues(q, err)
	}
	var cs *engine.ClusterStatus
	err := c.try(ctx, func(ctx context.Context) (err error) {
		cs, err = c.clusterStatus(ctx)
		return err
	})
	cs = c.last.cluster(cs, err)
	if d, derr := c.health.down(); d > 0 {
		cs.DatabaseDown = d
		cs.Error = unavailable(d, derr).Error()
	}
	s.Cluster = cs
	return s
}

// lastStatus keeps the last figures read from the database, for the
// status while it is unreachable.
type lastStatus struct {
	mu sync.Mutex
	cs *engine.ClusterStatus
	q  []engine.QueueStatus
}

// cluster is cs when it was read (err nil), else the last one read with
// err, or cs with err before any.
func (l *lastStatus) cluster(cs *engine.ClusterStatus, err error) *engine.ClusterStatus {
	l.mu.Lock()
	defer l.mu.Unlock()
	if err == nil {
		l.cs = cs
		out := *cs
		return &out
	}
	if l.cs != nil && transient(err) {
		cs = l.cs
	}
	out := *cs
	out.Error = err.Error()
	return &out
}

// queues is q when it was read, else the last one read.
func (l *lastStatus) queues(q []engine.QueueStatus, err error) []engine.QueueStatus {
	l.mu.Lock()
	defer l.mu.Unlock()
	if err == nil {
		l.q = q
		return q
	}
	if transient(err) {
		return l.q
	}
	return q
}

func (c *Cluster) clusterStatus(ctx context.Context) (*engine.ClusterStatus, error) {
	qs := c.queues()
	cs := &engine.ClusterStatus{Self: c.id, Queues: qs, Pending: []engine.PriorityCount{}, Jobs: []engine.StateCount{}}
	rows, err := c.pool.Query(ctx, `
		SELECT id, host, capacity, running, devices, extract(epoch FROM now() - heartbeat_at)::float8
		FROM cuzk_worker WHERE heartbeat_at > now() - interval '10 minutes' ORDER BY id`)
	if err != nil {
		return cs, fmt.Errorf("cluster status: workers: %w", err)
	}
	for rows.Next() {
		var w engine.ClusterWorker
		var age float64
		if err := rows.Scan(&w.ID, &w.Host, &w.Capacity, &w.Running, &w.Devices, &age); err != nil {
			rows.Close()
			return cs, fmt.Errorf("cluster status: workers: %w", err)
		}
		w.LastSeen = time.Duration(age * float64(time.Second))
		w.Alive = w.LastSeen < aliveWithin
		cs.Workers = append(cs.Workers, w)
	}
	rows.Close()
	rows, err = c.pool.Query(ctx, `
		SELECT priority, count(*) FROM river_job
		WHERE queue = ANY($1) AND kind = $2 AND state IN ('available', 'retryable', 'scheduled')
		GROUP BY priority ORDER BY priority`, qs, JobKind)
	if err != nil {
		return cs, fmt.Errorf("cluster status: queue: %w", err)
	}
	for rows.Next() {
		var p, n int
		if err := rows.Scan(&p, &n); err != nil {
			rows.Close()
			return cs, fmt.Errorf("cluster status: queue: %w", err)
		}
		cs.Pending = append(cs.Pending, engine.PriorityCount{Priority: enginePriority(p), Count: n})
	}
	rows.Close()
	rows, err = c.pool.Query(ctx, `
		SELECT state::text, count(*) FROM river_job WHERE queue = ANY($1) AND kind = $2
		GROUP BY state ORDER BY state`, qs, JobKind)
	if err != nil {
		return cs, fmt.Errorf("cluster status: jobs: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var sc engine.StateCount
		if err := rows.Scan(&sc.State, &sc.Count); err != nil {
			return cs, fmt.Errorf("cluster status: jobs: %w", err)
		}
		cs.Jobs = append(cs.Jobs, sc)
	}
	return cs, rows.Err()
}

// heartbeat writes this daemon's cuzk_worker row.
func (c *Cluster) heartbeat(ctx context.Context) error {
	_, err := c.pool.Exec(ctx, `
		INSERT INTO cuzk_worker (id, host, queue, capacity, running, devices, started_at, heartbeat_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, now())
		ON CONFLICT (id) DO UPDATE SET capacity = EXCLUDED.capacity, running = EXCLUDED.running,
			devices = EXCLUDED.devices, heartbeat_at = now()`,
		c.id, c.host, strings.Join(c.queues(), ","), c.capacity(), int(c.running.Load()), c.opts.Devices, c.start)
	return err
}

// maintain beats the heart and cleans up until ctx ends: results past
// their TTL (their payloads with them), payloads of ended requests,
// results for jobs River gave up without one, and daemons gone an hour.
// Every daemon does it; the statements are idempotent.
func (c *Cluster) maintain(ctx context.Context) {
	t := time.NewTicker(c.opts.Heartbeat)
	defer t.Stop()
	for n := 0; ; n++ {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		// A beat that takes longer than two is a database that does not
		// answer: the health (and /healthz) says so within seconds.
		if err := c.tryWithin(ctx, 2*c.opts.Heartbeat, c.heartbeat); err != nil {
			if ctx.Err() != nil {
				return
			}
			if !transient(err) {
				c.log.Warn("cluster heartbeat failed", "err", err)
			}
			continue // the rest would fail alike; the next beat tries again
		}
		// While the database was away every daemon's heartbeat failed: a
		// worker is judged by its heartbeats again only DeadAfter after
		// the database is back, so that a live worker's jobs stay its own.
		if !c.health.backWithin(c.opts.DeadAfter) {
			if err := c.try(ctx, c.rescueDead); err != nil && ctx.Err() == nil {
				c.log.Warn("cluster: handing back a silent worker's jobs failed", "err", err)
			}
		}
		if n%6 != 5 {
			continue
		}
		if err := c.try(ctx, c.cleanUp); err != nil && ctx.Err() == nil {
			c.log.Warn("cluster clean-up failed", "err", err)
		}
	}
}

func (c *Cluster) cleanUp(ctx context.Context) error {
	for _, q := range []string{
		`DELETE FROM cuzk_request WHERE expires_at < now()`,
		`DELETE FROM cuzk_payload p USING cuzk_request r WHERE p.request_id = r.request_id AND r.status <> 0`,
		`DELETE FROM cuzk_worker WHERE heartbeat_at < now() - interval '1 hour'`,
	} {
		if _, err := c.pool.Exec(ctx, q); err != nil {
			return err
		}
	}
	rows, err := c.pool.Query(ctx, `
		SELECT r.request_id FROM cuzk_request r LEFT JOIN river_job j ON j.id = r.river_job_id
		WHERE r.status = 0 AND r.created_at < now() - interval '1 minute'
		  AND (j.id IS NULL OR j.state IN ('discarded', 'cancelled')) LIMIT 1000`)
	if err != nil {
		return err
	}
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return err
		}
		ids = append(ids, id)
	}
	rows.Close()
	for _, id := range ids {
		if _, _, err := c.lookup(ctx, id); err != nil { // writes the result River left out
			return err
		}
	}
	return nil
}

// queueStatus counts the queues' unfinished jobs by proof kind, as the engine
// counts its own: waiting (Pending) and claimed by a worker (InProgress).
func (c *Cluster) queueStatus(ctx context.Context) ([]engine.QueueStatus, error) {
	rows, err := c.pool.Query(ctx, `
		SELECT (args->>'kind')::int, count(*) FILTER (WHERE state <> 'running'), count(*) FILTER (WHERE state = 'running')
		FROM river_job WHERE queue = ANY($1) AND kind = $2 AND state IN ('available', 'retryable', 'scheduled', 'running')
		GROUP BY 1`, c.queues(), JobKind)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	byKind := map[engine.ProofKind]engine.QueueStatus{}
	for rows.Next() {
		var k, pending, running int
		if err := rows.Scan(&k, &pending, &running); err != nil {
			return nil, err
		}
		byKind[engine.ProofKind(k)] = engine.QueueStatus{ProofKind: engine.ProofKind(k).String(), Pending: uint32(pending), InProgress: uint32(running)}
	}
	var out []engine.QueueStatus
	for _, k := range engine.KindsByPriority() {
		if q, ok := byKind[k]; ok {
			out = append(out, q)
		}
	}
	return out, rows.Err()
}

// rescueDead puts the running jobs of workers whose heartbeat has been
// silent for DeadAfter back into the queue, as River's rescuer would after
// the kind's timeout (an hour for a PoRep): the attempt stays counted and
// its error says why. Should the worker be alive after all, both attempts
// run and the first result is the only one delivered.
func (c *Cluster) rescueDead(ctx context.Context) error {
	rows, err := c.pool.Query(ctx, `
		UPDATE river_job j SET state = 'available', scheduled_at = now(),
			errors = array_append(coalesce(j.errors, '{}'), jsonb_build_object(
				'at', now(), 'attempt', j.attempt, 'trace', '',
				'error', 'worker ' || w.id || ' silent since ' || w.heartbeat_at::text))
		FROM cuzk_worker w
		WHERE j.state = 'running' AND j.kind = $1
		  AND j.attempted_by[array_length(j.attempted_by, 1)] = w.id
		  AND w.heartbeat_at < now() - $2::bigint * interval '1 microsecond'
		RETURNING j.args->>'request_id', w.id`, JobKind, c.opts.DeadAfter.Microseconds())
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var id, worker string
		if err := rows.Scan(&id, &worker); err != nil {
			return err
		}
		c.log.Warn("job handed back: its worker stopped heartbeating", "request_id", id, "worker", worker)
	}
	return rows.Err()
}
