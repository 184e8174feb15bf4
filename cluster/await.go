package cluster

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river/rivertype"

	"github.com/cuzk-project/cuzk/engine"
)

// Await waits for a job's result, as the engine's Await does: a finished
// job answers at once; timeout > 0 bounds the wait (then the result has
// Status StatusTimeout and the job goes on); ctx ending stops the wait,
// not the job; an unknown (or expired) id returns ErrNotFound. Any daemon
// of the cluster answers for any queued job. An unreachable database is
// waited out, looking again with backoff, for Options.RideOut; a wait
// that ends (ride-out, timeout or ctx) while the database is unreachable
// returns an error wrapping engine.ErrUnavailable: the job's fate is not
// known, and the same Await may be sent again.
func (c *Cluster) Await(ctx context.Context, jobID string, timeout time.Duration) (engine.Result, error) {
	if c.local != nil {
		res, err := c.local.Await(ctx, jobID, timeout)
		if !errors.Is(err, engine.ErrNotFound) {
			return res, err
		}
	}
	wake, done := c.waiters.add(jobID)
	defer done()
	var expired <-chan time.Time
	if timeout > 0 {
		t := time.NewTimer(timeout)
		defer t.Stop()
		expired = t.C
	}
	poll := time.NewTicker(c.opts.PollInterval)
	defer poll.Stop()
	var (
		downSince time.Time // the database unreachable since, zero while it answers
		dbErr     error
		backoff   = firstBackoff
		look      = time.NewTimer(time.Hour) // the next look while the database is unreachable
	)
	look.Stop()
	defer look.Stop()
	for {
		var (
			res   engine.Result
			final bool
		)
		err := c.try(ctx, func(ctx context.Context) (err error) {
			res, final, err = c.lookup(ctx, jobID)
			return err
		})
		var again <-chan time.Time // a look sooner than the poll while the database is down
		switch {
		case transient(err):
			if downSince.IsZero() {
				downSince = time.Now()
			}
			dbErr = err
			if time.Since(downSince) >= c.opts.RideOut {
				return engine.Result{}, unavailable(time.Since(downSince), err)
			}
			look.Reset(min(backoff, time.Until(downSince.Add(c.opts.RideOut))))
			again = look.C
			backoff = min(2*backoff, maxBackoff)
		case err != nil:
			return res, c.cutOff(ctx, err)
		case final:
			return res, nil
		default:
			downSince, dbErr, backoff = time.Time{}, nil, firstBackoff
		}
		select {
		case <-wake:
		case <-poll.C:
		case <-again:
		case <-expired:
			if !downSince.IsZero() {
				return engine.Result{}, unavailable(time.Since(downSince), dbErr)
			}
			return engine.Result{JobID: jobID, Status: engine.StatusTimeout, Error: fmt.Sprintf("not done after %v", timeout)}, nil
		case <-ctx.Done():
			if !downSince.IsZero() {
				return engine.Result{}, unavailable(time.Since(downSince), dbErr)
			}
			return engine.Result{}, ctx.Err()
		}
	}
}

// lookup reads a request's result; final is false while its job runs. A
// job River has given up (discarded after its last attempt, cancelled, or
// gone) without a result gets one here: its last error.
func (c *Cluster) lookup(ctx context.Context, id string) (res engine.Result, final bool, err error) {
	var (
		status                   int
		proof                    []byte
		errText                  string
		qw, srs, syn, gpu, total int64
		state, lastErr           *string
	)
	err = c.pool.QueryRow(ctx, `
		SELECT r.status, r.proof, r.error, r.queue_wait_us, r.srs_load_us, r.synthesis_us,
		       r.gpu_compute_us, r.total_us, j.state::text,
		       j.errors[array_length(j.errors, 1)]->>'error'
		FROM cuzk_request r LEFT JOIN river_job j ON j.id = r.river_job_id
		WHERE r.request_id = $1`, id).
		Scan(&status, &proof, &errText, &qw, &srs, &syn, &gpu, &total, &state, &lastErr)
	if errors.Is(err, pgx.ErrNoRows) {
		return engine.Result{}, false, fmt.Errorf("%w: %q", engine.ErrNotFound, id)
	}
	if err != nil {
		return engine.Result{}, false, fmt.Errorf("cluster: await: %w", err)
	}
	if engine.Status(status) == engine.StatusUnknown {
		st, msg, ended := abandoned(state, lastErr)
		if !ended {
			return engine.Result{}, false, nil
		}
		if err := c.finish(ctx, id, engine.Result{Status: st, Error: msg}, ""); err != nil {
			return engine.Result{}, false, err
		}
		return c.lookup(ctx, id)
	}
	us := func(v int64) time.Duration { return time.Duration(v) * time.Microsecond }
	return engine.Result{
		JobID: id, Status: engine.Status(status), Proof: proof, Error: errText,
		QueueWait: us(qw), SRSLoad: us(srs), Synthesis: us(syn), GPUCompute: us(gpu), Total: us(total),
	}, true, nil
}

// abandoned reports whether a job without a result has ended in River
// (state nil: its row is gone), and with what status and error.
func abandoned(state, lastErr *string) (engine.Status, string, bool) {
	msg := "job ended without a result"
	if lastErr != nil && *lastErr != "" {
		msg = *lastErr
	}
	switch {
	case state == nil:
		return engine.StatusFailed, "job lost: its queue entry is gone", true
	case *state == string(rivertype.JobStateDiscarded):
		return engine.StatusFailed, msg, true
	case *state == string(rivertype.JobStateCancelled):
		return engine.StatusCancelled, engine.ErrCancelled.Error(), true
	}
	return 0, "", false
}

// finish writes a request's result unless it has one (the first result
// is the only one), deletes its payload and wakes its waiters on every
// daemon.
func (c *Cluster) finish(ctx context.Context, id string, res engine.Result, worker string) error {
	_, err := c.finishTx(ctx, id, res, worker)
	return err
}

// finishTx is finish; written reports whether res became the result.
func (c *Cluster) finishTx(ctx context.Context, id string, res engine.Result, worker string) (written bool, err error) {
	tx, err := c.pool.Begin(ctx)
	if err != nil {
		return false, fmt.Errorf("cluster: result: %w", err)
	}
	defer tx.Rollback(context.WithoutCancel(ctx)) //nolint:errcheck
	us := func(d time.Duration) int64 { return d.Microseconds() }
	tag, err := tx.Exec(ctx, `
		UPDATE cuzk_request SET status = $2, proof = $3, error = $4, worker = $5,
			queue_wait_us = $6, srs_load_us = $7, synthesis_us = $8, gpu_compute_us = $9, total_us = $10,
			finished_at = now(), expires_at = now() + $11::bigint * interval '1 microsecond'
		WHERE request_id = $1 AND status = 0`,
		id, int(res.Status), res.Proof, res.Error, worker,
		us(res.QueueWait), us(res.SRSLoad), us(res.Synthesis), us(res.GPUCompute), us(res.Total),
		c.opts.ResultTTL.Microseconds())
	if err != nil {
		return false, fmt.Errorf("cluster: result: %w", err)
	}
	if _, err := tx.Exec(ctx, `DELETE FROM cuzk_payload WHERE request_id = $1`, id); err != nil {
		return false, fmt.Errorf("cluster: result: payload: %w", err)
	}
	if _, err := tx.Exec(ctx, `SELECT pg_notify($1, $2)`, notifyChannel, id); err != nil {
		return false, fmt.Errorf("cluster: result: notify: %w", err)
	}
	if err := tx.Commit(ctx); err != nil {
		return false, fmt.Errorf("cluster: result: %w", err)
	}
	return tag.RowsAffected() == 1, nil
}
