package cluster

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cuzk-project/cuzk/cluster/pgtest"
	"github.com/cuzk-project/cuzk/engine"
)

// TestDatabaseOutage stops PostgreSQL for a few seconds while clients
// wait for their proofs and submit new ones: every client gets its proof
// once the database is back (none sees an error), and while it is away
// the daemons say so (Unreachable, the status).
func TestDatabaseOutage(t *testing.T) {
	pg := pgtest.Start(t)
	url := pg.NewDB(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	front := startCluster(t, url, nil, nil)
	w := newFake(2 * time.Second)
	worker := startCluster(t, url, w, func(o *Options) { o.Capacity = 4 })

	const n = 12
	for i := range n {
		if _, _, err := front.Submit(ctx, postReq(fmt.Sprintf("j%d", i), 0, fmt.Sprint(i))); err != nil {
			t.Fatal(err)
		}
	}
	for len(w.submitted()) == 0 {
		time.Sleep(10 * time.Millisecond)
	}
	type outcome struct {
		id  string
		res engine.Result
		err error
	}
	out := make(chan outcome, 2*n)
	var wg sync.WaitGroup
	await := func(c *Cluster, id string) {
		defer wg.Done()
		res, err := c.Await(ctx, id, 0)
		out <- outcome{id, res, err}
	}
	for i := range n {
		wg.Add(1)
		c := front
		if i%2 == 1 {
			c = worker
		}
		go await(c, fmt.Sprintf("j%d", i))
	}

	if st := front.Status(); st.Cluster == nil || len(st.Cluster.Workers) != 2 {
		t.Fatalf("status: %+v", st.Cluster)
	}
	pg.Stop(t)
	stopped := time.Now()
	// Submitted while the database is away: it waits, then joins the queue.
	wg.Add(1)
	go func() {
		defer wg.Done()
		id, _, err := front.Submit(ctx, postReq("during", 0, "d"))
		if err != nil {
			out <- outcome{"during", engine.Result{}, fmt.Errorf("submit: %w", err)}
			return
		}
		res, err := front.Await(ctx, id, 0)
		out <- outcome{id, res, err}
	}()
	for front.Unreachable() == nil && time.Since(stopped) < 10*time.Second {
		time.Sleep(50 * time.Millisecond)
	}
	if err := front.Unreachable(); !errors.Is(err, engine.ErrUnavailable) {
		t.Errorf("with the database stopped, Unreachable = %v", err)
	}
	st := front.Status()
	if st.Cluster == nil || st.Cluster.DatabaseDown <= 0 || !strings.Contains(st.Cluster.Error, "unreachable") {
		t.Errorf("status with the database stopped: %+v", st.Cluster)
	} else if len(st.Cluster.Workers) != 2 {
		t.Errorf("status with the database stopped lists %d daemons, want the 2 last read", len(st.Cluster.Workers))
	}
	time.Sleep(4*time.Second - time.Since(stopped)) // results the worker tries to write meanwhile
	pg.Restart(t)

	wg.Wait()
	close(out)
	got := 0
	for o := range out {
		got++
		if o.err != nil || o.res.Status != engine.StatusCompleted || len(o.res.Proof) != 192 {
			t.Errorf("%s: %+v %v", o.id, o.res, o.err)
		}
	}
	if got != n+1 {
		t.Errorf("%d outcomes, want %d", got, n+1)
	}
	if err := front.Unreachable(); err != nil {
		t.Errorf("after the database came back: %v", err)
	}
	if st := front.Status(); st.Cluster.DatabaseDown != 0 || st.Cluster.Error != "" {
		t.Errorf("status after the database came back: %+v", st.Cluster)
	}
}

// TestDatabaseOutageRideOut: a call waits out an unreachable database for
// RideOut, then answers ErrUnavailable (gRPC Unavailable), not an
// internal error.
func TestDatabaseOutageRideOut(t *testing.T) {
	pg := pgtest.Start(t)
	url := pg.NewDB(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	const rideOut = 1500 * time.Millisecond
	front := startCluster(t, url, nil, func(o *Options) { o.RideOut = rideOut })
	if _, _, err := front.Submit(ctx, postReq("queued", 0, "q")); err != nil {
		t.Fatal(err)
	}
	pg.Stop(t)
	defer pg.Restart(t)
	for _, tc := range []struct {
		name string
		call func() error
	}{
		{"submit", func() error { _, _, err := front.Submit(ctx, postReq("new", 0, "n")); return err }},
		{"await", func() error { _, err := front.Await(ctx, "queued", 0); return err }},
		{"cancel", func() error { _, err := front.Cancel("queued"); return err }},
	} {
		t0 := time.Now()
		err := tc.call()
		took := time.Since(t0)
		if !errors.Is(err, engine.ErrUnavailable) || !strings.Contains(err.Error(), "unreachable") {
			t.Errorf("%s with the database stopped: %v, want ErrUnavailable", tc.name, err)
		}
		if took < rideOut-100*time.Millisecond || took > rideOut+5*time.Second {
			t.Errorf("%s answered after %v, want about the ride-out %v", tc.name, took, rideOut)
		}
	}
	// A caller's deadline bounds the wait too.
	short, stop := context.WithTimeout(ctx, 200*time.Millisecond)
	defer stop()
	if _, err := front.Await(short, "queued", 0); !errors.Is(err, engine.ErrUnavailable) {
		t.Errorf("await under a short deadline: %v", err)
	}
}
