package cluster

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/cuzk-project/cuzk/cluster/pgtest"
	"github.com/cuzk-project/cuzk/engine"
)

// The queue's own cost: workers whose engine proves in no time, so what
// is measured is River and the cuzk tables (insert, claim, payload read
// and hash check, result write, notification, the waiter's read).
//
//	go test -run '^$' -bench Cluster -benchtime 1x ./cluster
func BenchmarkClusterThroughput(b *testing.B) {
	pg := pgtest.Start(b)
	url := pg.NewDB(b)
	const workers, capacity, jobs, clients = 3, 4, 600, 24
	front := startClusterB(b, url, nil, 0)
	for range workers {
		startClusterB(b, url, newFake(0), capacity)
	}
	ctx := context.Background()
	for b.Loop() {
		start := time.Now()
		var wg sync.WaitGroup
		next := make(chan int)
		for range clients {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range next {
					res, err := front.Prove(ctx, postReq(fmt.Sprintf("t%d-%d", time.Now().UnixNano(), i), 0, fmt.Sprint(i)))
					if err != nil || res.Status != engine.StatusCompleted {
						b.Errorf("job %d: %+v %v", i, res, err)
					}
				}
			}()
		}
		for i := range jobs {
			next <- i
		}
		close(next)
		wg.Wait()
		b.ReportMetric(float64(jobs)/time.Since(start).Seconds(), "jobs/s")
	}
}

// The latency a job gains from the queue on an idle cluster: Prove at a
// frontend, proved by one worker, against Prove on the worker's engine.
func BenchmarkClusterLatency(b *testing.B) {
	pg := pgtest.Start(b)
	url := pg.NewDB(b)
	front := startClusterB(b, url, nil, 0)
	local := newFake(0)
	startClusterB(b, url, local, 1)
	ctx := context.Background()
	const n = 100
	for b.Loop() {
		var queued, direct time.Duration
		for i := range n {
			id := fmt.Sprintf("l%d-%d", time.Now().UnixNano(), i)
			t0 := time.Now()
			if res, err := front.Prove(ctx, postReq(id, 0, id)); err != nil || res.Status != engine.StatusCompleted {
				b.Fatalf("%+v %v", res, err)
			}
			queued += time.Since(t0)
			t0 = time.Now()
			r := postReq(id+"-direct", 0, id)
			jid, _, err := local.Submit(ctx, r)
			if err == nil {
				_, err = local.Await(ctx, jid, 0)
			}
			if err != nil {
				b.Fatal(err)
			}
			direct += time.Since(t0)
		}
		b.ReportMetric(float64((queued-direct).Microseconds())/n/1000, "added-ms/job")
	}
}

func startClusterB(b *testing.B, url string, local Engine, capacity int) *Cluster {
	b.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c, err := New(ctx, Options{DatabaseURL: url, Migrate: true, Local: local, Capacity: capacity, Log: quiet})
	if err != nil {
		b.Fatal(err)
	}
	if err := c.Start(ctx); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { c.Close(5 * time.Second) })
	return c
}
