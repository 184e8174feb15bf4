package engine

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/cuzk-project/cuzk/device/sim"
	"github.com/cuzk-project/cuzk/groth16"
)

// finalizePlanner plans testJobs through testPlanner and gives each plan
// the Finalize hook fin.
type finalizePlanner struct {
	*testPlanner
	fin func(ctx context.Context, vk *groth16.VerifyingKey, proof []byte) ([]byte, error)
}

func (p *finalizePlanner) Plan(ctx context.Context, req *Request) (*Plan, error) {
	plan, err := p.testPlanner.Plan(ctx, req)
	if err != nil {
		return nil, err
	}
	plan.Finalize = p.fin
	return plan, nil
}

func newFinalizeEnv(t *testing.T, fin func(ctx context.Context, vk *groth16.VerifyingKey, proof []byte) ([]byte, error)) *testEnv {
	t.Helper()
	return newTestEnv(t, sim.Config{}, func(c *Config) {
		c.Planner = &finalizePlanner{testPlanner: c.Planner.(*testPlanner), fin: fin}
	})
}

func TestFinalize(t *testing.T) {
	const parts = 3
	boom := errors.New("aggregate does not verify")
	tests := []struct {
		name    string
		fin     func(proof []byte) ([]byte, error)
		status  Status
		proof   func(concat []byte) []byte
		errText string
	}{
		{
			name: "output returned",
			fin: func(proof []byte) ([]byte, error) {
				return append([]byte("agg:"), proof...), nil
			},
			status: StatusCompleted,
			proof:  func(c []byte) []byte { return append([]byte("agg:"), c...) },
		},
		{
			name:    "error fails the job",
			fin:     func([]byte) ([]byte, error) { return nil, boom },
			status:  StatusFailed,
			errText: "finalize: aggregate does not verify",
		},
		{
			name:    "panic fails the job",
			fin:     func([]byte) ([]byte, error) { panic("finalize panics") },
			status:  StatusFailed,
			errText: "finalize: panic: finalize panics",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var calls atomic.Int32
			var got []byte
			env := newFinalizeEnv(t, func(ctx context.Context, vk *groth16.VerifyingKey, proof []byte) ([]byte, error) {
				calls.Add(1)
				if vk == nil {
					return nil, errors.New("no verifying key")
				}
				got = bytes.Clone(proof)
				return tc.fin(proof)
			})
			id := env.submit(t, "", KindPoRepSealCommit, PriorityNormal, testJob{Tag: 7, Parts: parts})
			r := env.await(t, id)
			if r.Status != tc.status {
				t.Fatalf("status %v (%s), want %v", r.Status, r.Error, tc.status)
			}
			if n := calls.Load(); n != 1 {
				t.Fatalf("Finalize ran %d times, want once", n)
			}
			if len(got) != parts*192 {
				t.Fatalf("Finalize got %d bytes, want the %d-byte concatenation", len(got), parts*192)
			}
			if tc.proof != nil && !bytes.Equal(r.Proof, tc.proof(got)) {
				t.Fatalf("job returned %d bytes, not Finalize's output", len(r.Proof))
			}
			if tc.errText != "" && !strings.Contains(r.Error, tc.errText) {
				t.Fatalf("error %q does not say %q", r.Error, tc.errText)
			}
		})
	}
}

// TestFinalizeNotCalledWhenVerifyFails: a partition proof that does not
// verify fails the job before Finalize sees it.
func TestFinalizeNotCalledWhenVerifyFails(t *testing.T) {
	var calls atomic.Int32
	env := newFinalizeEnv(t, func(ctx context.Context, vk *groth16.VerifyingKey, proof []byte) ([]byte, error) {
		calls.Add(1)
		return proof, nil
	})
	id := env.submit(t, "", KindPoRepSealCommit, PriorityNormal, testJob{Tag: 7, Parts: 2, Panic: "verify"})
	if r := env.await(t, id); r.Status != StatusFailed {
		t.Fatalf("status %v, want failed", r.Status)
	}
	if n := calls.Load(); n != 0 {
		t.Fatalf("Finalize ran %d times after a failed verification", n)
	}
}

// TestFinalizeCancelled: cancelling a job while Finalize runs cancels the
// context Finalize got, and the job ends cancelled, not completed.
func TestFinalizeCancelled(t *testing.T) {
	started := make(chan struct{})
	var sawCancel atomic.Bool
	env := newFinalizeEnv(t, func(ctx context.Context, vk *groth16.VerifyingKey, proof []byte) ([]byte, error) {
		close(started)
		<-ctx.Done()
		sawCancel.Store(true)
		return nil, ctx.Err()
	})
	id := env.submit(t, "", KindPoRepSealCommit, PriorityNormal, testJob{Tag: 7, Parts: 2})
	<-started
	if _, err := env.e.Cancel(id); err != nil {
		t.Fatal(err)
	}
	r := env.await(t, id)
	if r.Status != StatusCancelled {
		t.Fatalf("status %v (%s), want cancelled", r.Status, r.Error)
	}
	waitFor(t, "Finalize to see the cancellation", sawCancel.Load)
}
