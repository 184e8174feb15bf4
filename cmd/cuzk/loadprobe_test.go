package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cuzk-project/cuzk/circuits"
	"github.com/cuzk-project/cuzk/circuits/synthetic"
	"github.com/cuzk-project/cuzk/client"
	"github.com/cuzk-project/cuzk/config"
	cuzkv1 "github.com/cuzk-project/cuzk/proto/cuzk/v1"
)

// TestLoadProbe is the probe's load, kept as a regression test: bursts of
// concurrent mixed jobs (every proof kind and priority; Prove, and Submit
// then AwaitProof, and Submit then Cancel) against a daemon on the sim
// device over its unix socket. No job may be lost: each gets its final
// answer — the sim device's proofs do not verify, so that answer is
// FAILED "proof failed verification" after the whole pipeline ran, or
// CANCELLED — the daemon's counts match, and after the bursts the
// goroutines come back to the baseline. It is gated (minutes on a shared
// machine):
//
//	CUZK_LOAD_PROBE=1 go test -run TestLoadProbe -v ./cmd/cuzk/
//
// CUZK_LOAD_PROBE_JOBS and CUZK_LOAD_PROBE_BURSTS change the 200 × 3.
func TestLoadProbe(t *testing.T) {
	if os.Getenv("CUZK_LOAD_PROBE") == "" {
		t.Skip("set CUZK_LOAD_PROBE=1 to run the load probe (200 concurrent mixed jobs × 3 bursts)")
	}
	jobs, bursts := envInt("CUZK_LOAD_PROBE_JOBS", 200), envInt("CUZK_LOAD_PROBE_BURSTS", 3)
	dir, err := os.MkdirTemp("", "cuzkl")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	cfg := testDaemonConfig(t, dir)
	cfg.Device.Kind = "sim"
	cfg.Device.SimPrepare = config.Duration(time.Millisecond)
	cfg.Device.SimRun = config.Duration(3 * time.Millisecond)
	cfg.Device.SimFinish = config.Duration(time.Millisecond)
	cfg.Timeline.Events = 0
	c, stop := startDaemon(t, cfg)
	baseline := runtime.NumGoroutine()

	kinds := []cuzkv1.ProofKind{cuzkv1.ProofKind_POREP_SEAL_COMMIT, cuzkv1.ProofKind_SNAP_DEALS_UPDATE,
		cuzkv1.ProofKind_WINDOW_POST_PARTITION, cuzkv1.ProofKind_WINNING_POST}
	sc := synthetic.Default(1 << 8)
	completed := 0
	for b := range bursts {
		t0 := time.Now()
		type outcome struct {
			cancelled bool
			err       error
		}
		out := make(chan outcome, jobs)
		var wg sync.WaitGroup
		for i := range jobs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				req := &cuzkv1.SubmitProofRequest{
					RequestId: fmt.Sprintf("b%d-j%d", b, i), ProofKind: kinds[i%len(kinds)],
					Priority:     cuzkv1.Priority(1 + i%4),
					VanillaProof: circuits.SyntheticDescriptor(sc, 1+i%2),
				}
				ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
				defer cancel()
				out <- probeJob(ctx, c, req, i%10)
			}()
		}
		wg.Wait()
		close(out)
		var failed, cancelled int
		for o := range out {
			switch {
			case o.err != nil:
				failed++
				if failed <= 5 {
					t.Errorf("burst %d: %v", b, o.err)
				}
			case o.cancelled:
				cancelled++
			default:
				completed++
			}
		}
		t.Logf("burst %d: %d jobs in %v: %d proved, %d cancelled, %d lost", b, jobs, time.Since(t0).Round(time.Millisecond), jobs-cancelled-failed, cancelled, failed)
	}
	st, err := c.Status(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if got := int(st.TotalProofsCompleted + st.TotalProofsFailed); got != completed {
		t.Errorf("daemon counts %d proofs completed or failed, the clients got %d", got, completed)
	}
	deadline := time.Now().Add(30 * time.Second)
	for runtime.NumGoroutine() > baseline+10 && time.Now().Before(deadline) {
		time.Sleep(100 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > baseline+10 {
		t.Errorf("%d goroutines after the bursts, %d before", n, baseline)
	} else {
		t.Logf("goroutines: %d before, %d after", baseline, n)
	}
	if err := stop(); err != nil {
		t.Errorf("daemon: %v", err)
	}
}

// probeJob runs one job the way mode (0–9) says: 0–4 Prove, 5–8 Submit
// then AwaitProof, 9 Submit then Cancel then AwaitProof.
func probeJob(ctx context.Context, c *client.Client, req *cuzkv1.SubmitProofRequest, mode int) (o struct {
	cancelled bool
	err       error
}) {
	if mode < 5 {
		_, err := c.Prove(ctx, req)
		o.err = simAnswered(err)
		return o
	}
	id, _, err := c.Submit(ctx, req)
	if err != nil {
		o.err = err
		return o
	}
	if mode == 9 {
		if _, err := c.Cancel(ctx, id); err != nil {
			o.err = err
			return o
		}
	}
	res, err := c.Await(ctx, id, 0)
	var pe *client.ProofError
	switch {
	case mode == 9 && errors.As(err, &pe) && pe.Status == cuzkv1.AwaitProofResponse_CANCELLED:
		o.cancelled = true
	case mode == 9 && err == nil && len(res.Proof) > 0: // finished before the cancel
	default:
		o.err = simAnswered(err)
	}
	return o
}

// simAnswered is nil for the final answer a sim-device job gets: FAILED
// at verification (its proofs are not valid), or COMPLETED.
func simAnswered(err error) error {
	var pe *client.ProofError
	if err == nil || errors.As(err, &pe) && pe.Status == cuzkv1.AwaitProofResponse_FAILED && strings.Contains(pe.Message, "proof failed verification") {
		return nil
	}
	return err
}

func envInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v > 0 {
		return v
	}
	return def
}
