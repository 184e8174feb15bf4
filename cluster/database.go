package cluster

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/cuzk-project/cuzk/engine"
)

// DefaultRideOut is how long a call waits out an unreachable database
// when Options.RideOut is 0.
const DefaultRideOut = time.Minute

// Backoff between tries of a statement while the database is unreachable,
// and how long one try may wait for the database to answer.
const (
	firstBackoff = 50 * time.Millisecond
	maxBackoff   = 2 * time.Second
	tryTimeout   = 30 * time.Second
)

// errSilent is a statement the database did not answer within tryTimeout
// (a host that is gone drops packets rather than refusing them).
var errSilent = errors.New("the database did not answer")

// transient reports whether err says the database could not be reached
// or dropped the statement for a reason of its own (it is restarting,
// the connection broke, a serialization conflict), so that the same
// statement may succeed later. The caller's own context ending is not
// transient.
func transient(err error) bool {
	if errors.Is(err, errSilent) {
		return true
	}
	if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return false
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) { // a refused login (28xxx) or a missing database (3D000) stays refused
		switch {
		case strings.HasPrefix(pe.Code, "08"): // connection exception
			return true
		case pe.Code == "57P01", pe.Code == "57P02", pe.Code == "57P03": // admin or crash shutdown, starting up
			return true
		case pe.Code == "53300": // too many connections
			return true
		case pe.Code == "40001", pe.Code == "40P01": // serialization failure, deadlock
			return true
		}
		return false
	}
	var ce *pgconn.ConnectError
	if errors.As(err, &ce) || pgconn.SafeToRetry(err) || errors.Is(err, pgconn.ErrConnClosed) {
		return true
	}
	var ne net.Error
	if errors.As(err, &ne) {
		return true
	}
	for _, e := range []error{io.EOF, io.ErrUnexpectedEOF, syscall.ECONNREFUSED, syscall.ECONNRESET, syscall.EPIPE} {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}

// dbHealth is what this daemon last learnt of the database: whether its
// last statement reached it, and since when it has not.
type dbHealth struct {
	mu        sync.Mutex
	downSince time.Time // zero while it answers
	lastErr   error
	upSince   time.Time // when it last answered again after being unreachable
}

// note records the outcome of a statement: a transient error marks the
// database down (from the first such error on), an answer up; a context
// that ended says nothing. It reports the changes: went down, or came back
// after being down for downFor.
func (h *dbHealth) note(err error) (wentDown bool, downFor time.Duration) {
	h.mu.Lock()
	defer h.mu.Unlock()
	switch {
	case transient(err):
		wentDown = h.downSince.IsZero()
		if wentDown {
			h.downSince = time.Now()
		}
		h.lastErr = err
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
	case !h.downSince.IsZero():
		h.upSince = time.Now()
		downFor = h.upSince.Sub(h.downSince)
		h.downSince, h.lastErr = time.Time{}, nil
	}
	return wentDown, downFor
}

// backWithin reports whether the database came back from being
// unreachable less than d ago.
func (h *dbHealth) backWithin(d time.Duration) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return !h.upSince.IsZero() && time.Since(h.upSince) < d
}

// down is how long the database has been unreachable and the last error
// (0, nil while it answers).
func (h *dbHealth) down() (time.Duration, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.downSince.IsZero() {
		return 0, nil
	}
	return time.Since(h.downSince), h.lastErr
}

// Unreachable is nil while the database answers this daemon's
// statements; else an error wrapping engine.ErrUnavailable that says for
// how long it has not, and why.
func (c *Cluster) Unreachable() error {
	d, err := c.health.down()
	if d == 0 {
		return nil
	}
	return unavailable(d, err)
}

// cutOff is err, or when ctx ended while the database is unreachable an
// error that says so: the statement was cut off waiting for it.
func (c *Cluster) cutOff(ctx context.Context, err error) error {
	if err == nil || ctx.Err() == nil {
		return err
	}
	if d, derr := c.health.down(); d > 0 {
		return unavailable(d, derr)
	}
	return err
}

func unavailable(d time.Duration, err error) error {
	return fmt.Errorf("%w: cluster database unreachable for %v: %w", engine.ErrUnavailable, d.Round(100*time.Millisecond), err)
}

// try runs f once, at most tryTimeout, and notes its outcome in the
// daemon's database health (a log line when it changes).
func (c *Cluster) try(ctx context.Context, f func(ctx context.Context) error) error {
	return c.tryWithin(ctx, tryTimeout, f)
}

// tryWithin is try with at most d for f.
func (c *Cluster) tryWithin(ctx context.Context, d time.Duration, f func(ctx context.Context) error) error {
	tctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	err := f(tctx)
	if err != nil && ctx.Err() == nil && tctx.Err() != nil {
		err = fmt.Errorf("%w within %v: %w", errSilent, d, err)
	}
	switch wentDown, downFor := c.health.note(err); {
	case wentDown:
		c.log.Warn("cluster database unreachable: calls wait for it and try again", "err", err)
	case downFor > 0:
		c.log.Info("cluster database reachable again", "after", downFor.Round(time.Millisecond))
	}
	return err
}

// retry runs f until it returns something other than a transient
// database error, waiting between tries (50 ms doubling up to 2 s). It
// gives up when ctx ends or, with rideOut > 0, once the database has been
// unreachable that long: then the error wraps engine.ErrUnavailable (and
// the last database error). Every outcome is noted in the daemon's
// database health.
func (c *Cluster) retry(ctx context.Context, rideOut time.Duration, f func(ctx context.Context) error) error {
	var (
		first   time.Time
		backoff = firstBackoff
	)
	for {
		err := c.try(ctx, f)
		if !transient(err) {
			return c.cutOff(ctx, err)
		}
		now := time.Now()
		if first.IsZero() {
			first = now
		}
		if rideOut > 0 && now.Sub(first) >= rideOut {
			return unavailable(now.Sub(first), err)
		}
		wait := backoff
		if rideOut > 0 {
			wait = min(wait, first.Add(rideOut).Sub(now))
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return unavailable(time.Since(first), err)
		case <-c.closing:
			t.Stop()
			return unavailable(time.Since(first), err)
		case <-t.C:
		}
		backoff = min(2*backoff, maxBackoff)
	}
}
