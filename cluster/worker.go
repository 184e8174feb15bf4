package cluster

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"

	"github.com/cuzk-project/cuzk/engine"
)

// proofWorker proves the queue's jobs on the local engine.
type proofWorker struct {
	river.WorkerDefaults[ProofArgs]
	c *Cluster
}

// Timeout is the longest attempt of the job's kind: past it a live
// worker's attempt is cancelled, and a dead worker's job is rescued.
func (w *proofWorker) Timeout(job *river.Job[ProofArgs]) time.Duration {
	if d, ok := w.c.timeouts[job.Args.Proof]; ok {
		return d
	}
	return DefaultTimeout
}

// NextRetry retries soon: a failed attempt is retried on any worker, and
// the usual reason (a dead or stopping worker) is not the job's fault.
func (w *proofWorker) NextRetry(job *river.Job[ProofArgs]) time.Time {
	return time.Now().Add(time.Duration(min(job.Attempt, 30)) * time.Second)
}

// Work proves one job on the local engine and stores its result. An
// error makes River retry it (anywhere) or, after its last attempt,
// discard it; a request that cannot succeed anywhere is cancelled with
// its error as the result.
func (w *proofWorker) Work(ctx context.Context, job *river.Job[ProofArgs]) error {
	c := w.c
	if c.local == nil {
		return errors.New("cluster: a frontend claimed a job") // never: no queues
	}
	c.running.Add(1)
	defer c.running.Add(-1)
	a := job.Args
	var (
		req   engine.Request
		ended bool
	)
	err := c.retry(ctx, 0, func(ctx context.Context) (err error) {
		req, ended, err = c.loadRequest(ctx, a)
		return err
	})
	switch {
	case ended:
		return nil // a result is in: an earlier attempt's, or a Cancel
	case errors.Is(err, ErrBadPayload), errors.Is(err, errNoRequest):
		return c.giveUp(ctx, a.RequestID, err)
	case err != nil:
		return err
	}
	req.RequestID, req.Priority = a.RequestID, a.Priority
	start := time.Now()
	id, _, err := c.local.Submit(ctx, req)
	if errors.Is(err, engine.ErrInvalidRequest) || errors.Is(err, engine.ErrUnknownCircuit) {
		return c.giveUp(ctx, a.RequestID, err)
	}
	if err != nil {
		return fmt.Errorf("cluster: worker %s: submit: %w", c.id, err)
	}
	res, err := c.local.Await(ctx, id, 0)
	if err != nil { // the attempt's timeout, a remote cancel, or our shutdown
		_, _ = c.local.Cancel(id)
		if c.stopping.Load() {
			return river.JobSnooze(0) // back to the queue, the attempt not counted
		}
		return fmt.Errorf("cluster: worker %s: %w", c.id, err)
	}
	switch res.Status {
	case engine.StatusCompleted:
		res.QueueWait += start.Sub(job.CreatedAt)
		written, err := c.store(ctx, a.RequestID, res)
		if err != nil {
			return err
		}
		if !written {
			c.log.Info("proof not delivered: the request already had a result", "request_id", a.RequestID)
		}
		return nil
	case engine.StatusCancelled:
		if c.stopping.Load() {
			return river.JobSnooze(0)
		}
		return fmt.Errorf("cluster: worker %s: local job cancelled: %s", c.id, res.Error)
	}
	if res.Invalid { // the request's own fault, found past Submit: no other attempt can succeed
		return c.giveUp(ctx, a.RequestID, errors.New(res.Error))
	}
	if job.Attempt >= job.MaxAttempts {
		if _, err := c.store(ctx, a.RequestID, engine.Result{Status: engine.StatusFailed, Error: res.Error}); err != nil {
			return err
		}
	}
	return fmt.Errorf("cluster: worker %s: %s", c.id, res.Error)
}

var errNoRequest = errors.New("cluster: the request of the job is gone")

// loadRequest reads a job's request from its payload and checks the
// payload's hash. ended reports that the request already has a result.
func (c *Cluster) loadRequest(ctx context.Context, a ProofArgs) (req engine.Request, ended bool, err error) {
	var (
		status int
		sum    []byte
		data   []byte
	)
	err = c.pool.QueryRow(ctx, `
		SELECT r.status, p.sha256, p.data
		FROM cuzk_request r LEFT JOIN cuzk_payload p ON p.request_id = r.request_id
		WHERE r.request_id = $1`, a.RequestID).Scan(&status, &sum, &data)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return engine.Request{}, false, fmt.Errorf("%w: %q", errNoRequest, a.RequestID)
	case err != nil:
		return engine.Request{}, false, fmt.Errorf("cluster: payload: %w", err)
	case engine.Status(status) != engine.StatusUnknown:
		return engine.Request{}, true, nil
	case data == nil:
		return engine.Request{}, false, fmt.Errorf("%w: request %q has no payload", ErrBadPayload, a.RequestID)
	}
	got := sha256.Sum256(data)
	if !bytes.Equal(got[:], a.SHA256) || !bytes.Equal(got[:], sum) {
		return engine.Request{}, false, fmt.Errorf("%w: request %q: sha256 %x, want %x", ErrBadPayload, a.RequestID, got, a.SHA256)
	}
	req, err = decodeRequest(data)
	return req, false, err
}

// giveUp ends a job that no worker could prove: its result is FAILED
// with err, and River does not try it again.
func (c *Cluster) giveUp(ctx context.Context, id string, err error) error {
	if _, ferr := c.store(ctx, id, engine.Result{Status: engine.StatusFailed, Error: err.Error()}); ferr != nil {
		return ferr
	}
	return river.JobCancel(err)
}

// store writes a job's result as this worker's (finishTx), past the
// job's context: a proof made is not dropped because the attempt's time
// ran out or the database went away meanwhile. An unreachable database is
// waited out until it answers or the daemon stops.
func (c *Cluster) store(ctx context.Context, id string, res engine.Result) (written bool, err error) {
	err = c.retry(context.WithoutCancel(ctx), 0, func(ctx context.Context) (err error) {
		written, err = c.finishTx(ctx, id, res, c.id)
		return err
	})
	return written, err
}
