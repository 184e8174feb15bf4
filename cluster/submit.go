package cluster

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/riverqueue/river"

	"github.com/cuzk-project/cuzk/engine"
)

// Submit makes req a job of the cluster (a LocalKinds request on a daemon
// with a worker: of the local engine) and returns its job id, the request
// id (or a generated one), and its position among the queue's waiting
// jobs. A request id already known joins that job as the engine does: the
// same content gets the same job (a finished one: its result); other
// content under the id is ErrInvalidRequest; a job that ended FAILED or
// CANCELLED is started again. With Options.Planner the request is
// planned first, as a single daemon's Submit does: what the planner
// refuses (a malformed vanilla proof, an unknown circuit) is refused here.
// An unreachable database is waited out (Options.RideOut, ctx) and tried
// again: the request id makes a second try join what the first may have
// inserted; then the error wraps engine.ErrUnavailable.
func (c *Cluster) Submit(ctx context.Context, r engine.Request) (string, int, error) {
	if c.local != nil && c.localKinds[r.Kind] {
		return c.local.Submit(ctx, r)
	}
	prio, err := checkRequest(&r)
	if err != nil {
		return "", 0, err
	}
	if err := c.plan(ctx, &r); err != nil {
		return "", 0, err
	}
	id := r.RequestID
	if id == "" {
		var b [12]byte
		if _, err := rand.Read(b[:]); err != nil {
			return "", 0, fmt.Errorf("cluster: job id: %w", err)
		}
		id = hex.EncodeToString(b[:])
	}
	payload := encodeRequest(&r)
	sum := sha256.Sum256(payload)
	args := ProofArgs{RequestID: id, Proof: r.Kind, Priority: prio, SHA256: sum[:], Size: len(payload)}
	var pos int
	err = c.retry(ctx, c.opts.RideOut, func(ctx context.Context) error {
		for try := 0; ; try++ {
			pos, err = c.insert(ctx, args, payload)
			var pe *pgconn.PgError
			if errors.As(err, &pe) && pe.Code == "23505" && try < 3 {
				continue // a concurrent Submit of the same id inserted first: join it
			}
			return err
		}
	})
	if err != nil {
		return "", 0, err
	}
	return id, pos, nil
}

// Prove is Submit followed by Await without a timeout. ctx ending stops
// the wait, not the job: Curio's retry under the same request id joins it.
func (c *Cluster) Prove(ctx context.Context, r engine.Request) (engine.Result, error) {
	id, _, err := c.Submit(ctx, r)
	if err != nil {
		return engine.Result{}, err
	}
	return c.Await(ctx, id, 0)
}

// insert enters the request and its job in one transaction, or joins the
// job its id already names.
func (c *Cluster) insert(ctx context.Context, a ProofArgs, payload []byte) (queuePos int, err error) {
	tx, err := c.pool.Begin(ctx)
	if err != nil {
		return 0, fmt.Errorf("cluster: submit: %w", err)
	}
	defer tx.Rollback(context.WithoutCancel(ctx)) //nolint:errcheck

	var (
		content []byte
		status  int
		jobID   *int64
		state   *string
	)
	err = tx.QueryRow(ctx, `
		SELECT r.content_sha256, r.status, r.river_job_id, j.state::text
		FROM cuzk_request r LEFT JOIN river_job j ON j.id = r.river_job_id
		WHERE r.request_id = $1 FOR UPDATE OF r`, a.RequestID).Scan(&content, &status, &jobID, &state)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		_, err = tx.Exec(ctx, `INSERT INTO cuzk_request (request_id, content_sha256, kind, priority)
			VALUES ($1, $2, $3, $4)`, a.RequestID, a.SHA256, int(a.Proof), int(a.Priority))
		if err != nil {
			return 0, fmt.Errorf("cluster: submit: %w", err)
		}
	case err != nil:
		return 0, fmt.Errorf("cluster: submit: %w", err)
	case restartable(engine.Status(status), state):
		_, err = tx.Exec(ctx, `UPDATE cuzk_request SET content_sha256 = $2, kind = $3, priority = $4,
			river_job_id = NULL, created_at = now(), status = 0, proof = NULL, error = '', worker = '',
			finished_at = NULL, expires_at = NULL WHERE request_id = $1`,
			a.RequestID, a.SHA256, int(a.Proof), int(a.Priority))
		if err != nil {
			return 0, fmt.Errorf("cluster: submit: %w", err)
		}
	case !bytes.Equal(content, a.SHA256):
		return 0, fmt.Errorf("%w: request id %q is in use by a different request", engine.ErrInvalidRequest, a.RequestID)
	default: // join
		if err := tx.Commit(ctx); err != nil {
			return 0, fmt.Errorf("cluster: submit: %w", err)
		}
		if jobID == nil || engine.Status(status) != engine.StatusUnknown {
			return 0, nil
		}
		return c.queuePosition(ctx, *jobID)
	}
	_, err = tx.Exec(ctx, `INSERT INTO cuzk_payload (request_id, sha256, data) VALUES ($1, $2, $3)
		ON CONFLICT (request_id) DO UPDATE SET sha256 = EXCLUDED.sha256, data = EXCLUDED.data`,
		a.RequestID, a.SHA256, payload)
	if err != nil {
		return 0, fmt.Errorf("cluster: submit: payload: %w", err)
	}
	res, err := c.river.InsertTx(ctx, tx, a, &river.InsertOpts{
		Queue: c.queueOf(a.Proof), Priority: riverPriority(a.Priority), MaxAttempts: c.opts.MaxAttempts,
	})
	if err != nil {
		return 0, fmt.Errorf("cluster: submit: river insert: %w", err)
	}
	if _, err := tx.Exec(ctx, `UPDATE cuzk_request SET river_job_id = $2 WHERE request_id = $1`,
		a.RequestID, res.Job.ID); err != nil {
		return 0, fmt.Errorf("cluster: submit: %w", err)
	}
	if err := tx.Commit(ctx); err != nil {
		return 0, fmt.Errorf("cluster: submit: %w", err)
	}
	return c.queuePosition(ctx, res.Job.ID)
}

// restartable reports whether a request's job ended without a proof
// (FAILED, CANCELLED, or River gave it up or lost it before a result was
// written), so that a new request under its id starts over.
func restartable(status engine.Status, state *string) bool {
	switch status {
	case engine.StatusFailed, engine.StatusCancelled:
		return true
	case engine.StatusUnknown:
		return state == nil || *state == "discarded" || *state == "cancelled"
	}
	return false
}

// queuePosition counts the queue's waiting jobs served before job id.
func (c *Cluster) queuePosition(ctx context.Context, id int64) (int, error) {
	var n int
	err := c.pool.QueryRow(ctx, `
		SELECT count(*) FROM river_job o, river_job j
		WHERE j.id = $1 AND o.queue = j.queue AND o.id <> j.id
		  AND o.state IN ('available', 'retryable', 'scheduled', 'running')
		  AND (o.priority < j.priority OR (o.priority = j.priority AND o.id < j.id))`, id).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("cluster: queue position: %w", err)
	}
	return n, nil
}

// plan checks r with Options.Planner (none: nothing to check) and drops
// the plan: the worker's engine plans again, with its own parameters.
func (c *Cluster) plan(ctx context.Context, r *engine.Request) (err error) {
	if c.opts.Planner == nil {
		return nil
	}
	defer func() {
		if p := recover(); p != nil { // a planner bug must not take the daemon down
			err = fmt.Errorf("%w: planner panicked: %v", engine.ErrInvalidRequest, p)
		}
	}()
	_, err = c.opts.Planner.Plan(ctx, r)
	return err
}

// checkRequest checks what the frontend can check without a planner and
// returns the job's priority (the kind's default when unspecified).
func checkRequest(r *engine.Request) (engine.Priority, error) {
	if !r.Kind.Valid() {
		return 0, fmt.Errorf("%w: unknown proof kind %d", engine.ErrInvalidRequest, r.Kind)
	}
	p := r.Priority
	if p == engine.PriorityUnspecified {
		p = engine.DefaultPriority(r.Kind)
	}
	if p < engine.PriorityLow || p > engine.PriorityCritical {
		return 0, fmt.Errorf("%w: unknown priority %d", engine.ErrInvalidRequest, r.Priority)
	}
	if len(r.RequestID) > engine.MaxRequestIDLen {
		return 0, fmt.Errorf("%w: request id is %d bytes, at most %d", engine.ErrInvalidRequest, len(r.RequestID), engine.MaxRequestIDLen)
	}
	for i, ch := range r.RequestID {
		if ch < 0x20 || ch == 0x7f || ch == utf8.RuneError {
			return 0, fmt.Errorf("%w: request id has a control or invalid character at byte %d", engine.ErrInvalidRequest, i)
		}
	}
	return p, nil
}
