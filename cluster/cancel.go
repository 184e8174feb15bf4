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

// Cancel ends a job as the engine's Cancel does: its result is CANCELLED
// at once (unless it has one), River cancels the job, and a worker running
// it stops. wasRunning reports whether a worker had it.
func (c *Cluster) Cancel(jobID string) (wasRunning bool, err error) {
	if c.local != nil {
		was, err := c.local.Cancel(jobID)
		if !errors.Is(err, engine.ErrNotFound) {
			return was, err
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
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
	if engine.Status(status) != engine.StatusUnknown {
		return false, nil
	}
	if err := c.finish(ctx, jobID, engine.Result{Status: engine.StatusCancelled, Error: engine.ErrCancelled.Error()}, ""); err != nil {
		return false, err
	}
	if riverID != nil {
		if _, err := c.river.JobCancel(ctx, *riverID); err != nil && !errors.Is(err, rivertype.ErrNotFound) {
			return false, fmt.Errorf("cluster: cancel: %w", err)
		}
	}
	return state != nil && *state == string(rivertype.JobStateRunning), nil
}
