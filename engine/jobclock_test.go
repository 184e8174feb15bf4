package engine

import (
	"fmt"
	"testing"
	"time"

	"github.com/cuzk-project/cuzk/device/sim"
)

// Under a backlog on one device: GetStatus counts a job in progress only
// while a partition of it is at work (the others are pending, not all
// "running"), a LOW job that waited behind the backlog reports that wait
// in QueueWait, and every result's parts add up to no more than its
// total, with little left over.
func TestMetricsUnderBacklog(t *testing.T) {
	env := newTestEnv(t, sim.Config{Prepare: time.Millisecond, Run: 15 * time.Millisecond, Finish: time.Millisecond}, func(c *Config) {
		c.WorkersPerDevice = 1
	})
	const jobs = 10
	var ids []string
	for i := range jobs {
		ids = append(ids, env.submit(t, fmt.Sprintf("n%d", i), KindPoRepSealCommit, PriorityNormal, testJob{Tag: uint64(i + 1), Parts: 2, SynthMS: 2}))
	}
	low := env.submit(t, "low", KindPoRepSealCommit, PriorityLow, testJob{Tag: 99, Parts: 1, SynthMS: 2})

	sawPending := false
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		s := env.e.Status()
		var pending, running uint32
		for _, q := range s.Queues {
			pending += q.Pending
			running += q.InProgress
		}
		if pending+running == 0 {
			break
		}
		// At most: the synthesis workers, one device worker, and a job
		// between its two units' activities.
		if running > 4 {
			t.Errorf("%d jobs in progress on one device with 2 synthesis workers", running)
		}
		sawPending = sawPending || pending > 0
		time.Sleep(2 * time.Millisecond)
	}
	if !sawPending {
		t.Error("no job was ever pending under a backlog of 11 jobs on one device")
	}
	for _, id := range append(ids, low) {
		r := env.await(t, id)
		if r.Status != StatusCompleted {
			t.Fatalf("%s: %v %s", id, r.Status, r.Error)
		}
		parts := r.QueueWait + r.SRSLoad + r.Synthesis + r.GPUCompute
		if parts > r.Total {
			t.Errorf("%s: queue %v + srs %v + synthesis %v + gpu %v = %v > total %v", id, r.QueueWait, r.SRSLoad, r.Synthesis, r.GPUCompute, parts, r.Total)
		}
		if r.GPUCompute < 10*time.Millisecond || r.Synthesis <= 0 {
			t.Errorf("%s: synthesis %v, gpu %v", id, r.Synthesis, r.GPUCompute)
		}
		if other := r.Total - parts; other > r.Total/2 {
			t.Errorf("%s: %v of %v not attributed", id, other, r.Total)
		}
	}
	// The LOW job waited for the 20 NORMAL device runs (300 ms).
	if r := env.await(t, low); r.QueueWait < 150*time.Millisecond {
		t.Errorf("LOW job behind a backlog: queue wait %v of total %v", r.QueueWait, r.Total)
	}
}

func TestJobClock(t *testing.T) {
	t0 := time.Unix(1000, 0)
	var c jobClock
	c.last = t0
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	c.advance(at(10)) // queued 10
	c.n[actSynth]++
	c.advance(at(30)) // synth 20
	c.n[actGPU]++
	c.advance(at(35)) // gpu 5 (synth overlapped: not counted)
	c.n[actGPU]--
	c.n[actSynth]--
	c.n[actOther]++
	c.advance(at(40)) // other 5
	c.n[actOther]--
	q, o, s, g := c.stop(at(50)) // queued 10 more
	if q != 20*time.Millisecond || o != 5*time.Millisecond || s != 20*time.Millisecond || g != 5*time.Millisecond {
		t.Fatalf("queue %v other %v synth %v gpu %v", q, o, s, g)
	}
	c.advance(at(90))
	if q2, _, _, _ := c.stop(at(100)); q2 != q {
		t.Errorf("a stopped clock moved: %v → %v", q, q2)
	}
}
