package cluster

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river/rivertype"

	"github.com/cuzk-project/cuzk/engine"
)

// Cancel ends a job as the engine's Cancel does: its result is CANCELLED
// at once (unless it has one), River cancels the job, and a worker running
// it stops. wasRunning reports whether a worker had it. An unreachable
// database is waited out as in Submit.
func (c *Cluster) Cancel(jobID string) (wasRunning bool, err error) {
	if c.local != nil {
		was, err := c.local.Cancel(jobID)
		if !errors.Is(err, engine.ErrNotFound) {
			return was, err
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), c.opts.RideOut+tryTimeout)
	defer cancel()
	err = c.retry(ctx, c.opts.RideOut, func(ctx context.Context) (err error) {
		wasRunning, err = c.cancel1(ctx, jobID)
		return err
	})
	return wasRunning, err
}

// cancel1 is one try of Cancel's statements.
func (c *Cluster) cancel1(ctx context.Context, jobID string) (wasRunning bool, err error) {
	var (
		status  int
		riverID *int64
		state   *string
	)
	err = c.pool.QueryRow(ctx, `
		SELECT r.status, r.river_job_id, j.state::text
		FROM cuzk_request r LEFT JOIN river_job j ON j.id = r.river_job_id
		WHERE r.request_id = $1`, jobID).Scan(&status, &riverID, &state)
	if errors.Is(err, pgx.ErrNoRows) {
		return false, fmt.Errorf("%w: %q", engine.ErrNotFound, jobID)
	}
	if err != nil {
		return false, fmt.Errorf("cluster: cancel: %w", err)
	}
	switch engine.Status(status) {
	case engine.StatusUnknown:
		if err := c.finish(ctx, jobID, engine.Result{Status: engine.StatusCancelled, Error: engine.ErrCancelled.Error()}, ""); err != nil {
			return false, err
		}
	case engine.StatusCancelled: // a try cut off after its result was written: River's job still to cancel
	default:
		return false, nil
	}
	if riverID != nil {
		if _, err := c.river.JobCancel(ctx, *riverID); err != nil && !errors.Is(err, rivertype.ErrNotFound) {
			return false, fmt.Errorf("cluster: cancel: %w", err)
		}
	}
	return state != nil && *state == string(rivertype.JobStateRunning), nil
}
