package engine

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/cuzk-project/cuzk/device/sim"
	"github.com/cuzk-project/cuzk/timeline"
)

// TestDuplicateRequestIDWithOtherContent: a request id names one request.
// A second request under the same id with different content (another
// sector, other randomness) is rejected rather than silently given the
// first request's proof; the same content (priority aside) joins.
func TestDuplicateRequestIDWithOtherContent(t *testing.T) {
	env := newTestEnv(t, sim.Config{}, nil)
	tj := testJob{Tag: 1, Parts: 1, Gate: "g"}
	id := env.submit(t, "same", KindPoRepSealCommit, 0, tj)
	b, _ := json.Marshal(tj)
	base := Request{RequestID: "same", Kind: KindPoRepSealCommit, VanillaProof: b, SectorNumber: 0}
	tests := []struct {
		name    string
		mod     func(r *Request)
		wantErr bool
	}{
		{"identical", func(r *Request) {}, false},
		{"other priority", func(r *Request) { r.Priority = PriorityHigh }, false},
		{"other vanilla proof", func(r *Request) { r.VanillaProof = []byte(`{"tag":2,"parts":1}`) }, true},
		{"other kind", func(r *Request) { r.Kind = KindSnapDealsUpdate }, true},
		{"other sector", func(r *Request) { r.SectorNumber = 7 }, true},
		{"other randomness", func(r *Request) { r.Randomness = []byte{1} }, true},
		{"vanilla proofs split differently", func(r *Request) { r.VanillaProof = nil; r.VanillaProofs = [][]byte{b} }, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := base
			tc.mod(&r)
			got, _, err := env.e.Submit(context.Background(), r)
			if tc.wantErr {
				if !errors.Is(err, ErrInvalidRequest) || !strings.Contains(err.Error(), "different request") {
					t.Fatalf("err = %v, want ErrInvalidRequest (id used by a different request)", err)
				}
				return
			}
			if err != nil || got != id {
				t.Fatalf("Submit = %q, %v; want to join %q", got, err, id)
			}
		})
	}
	close(env.planner.gate("g"))
	if r := env.await(t, id); r.Status != StatusCompleted {
		t.Fatalf("%v %s", r.Status, r.Error)
	}
	if n := env.planner.calls.Load(); n != 1 {
		t.Fatalf("planned %d times, want 1", n)
	}
}

// TestRetryAfterFailureStartsOver: a request under the id of a job that
// failed or was cancelled starts a new job (Curio retries under the same
// id); a completed job is joined.
func TestRetryAfterFailureStartsOver(t *testing.T) {
	env := newTestEnv(t, sim.Config{}, nil)
	for _, tc := range []struct {
		id   string
		tj   testJob
		want Status
	}{
		{"failed", testJob{Tag: 1, Parts: 2, FailSynth: 1}, StatusFailed},
		{"cancelled", testJob{Tag: 2, Parts: 2, Gate: "c"}, StatusCancelled},
		{"completed", testJob{Tag: 3, Parts: 2}, StatusCompleted},
	} {
		id := env.submit(t, tc.id, KindPoRepSealCommit, 0, tc.tj)
		if tc.want == StatusCancelled {
			env.e.Cancel(id)
			close(env.planner.gate("c")) // the retry may run
		}
		if r := env.await(t, id); r.Status != tc.want {
			t.Fatalf("%s: %v %s", id, r.Status, r.Error)
		}
		runs := env.dev.Runs()
		env.submit(t, tc.id, KindPoRepSealCommit, 0, tc.tj) // the same request again
		r := env.await(t, id)
		if tc.want == StatusCompleted {
			if r.Status != StatusCompleted || env.dev.Runs() != runs || env.count(timeline.JobSubmit, id) != 1 {
				t.Fatalf("%s: a completed job was not joined (%v, %d more runs)", id, r.Status, env.dev.Runs()-runs)
			}
		} else if env.count(timeline.JobSubmit, id) != 2 {
			t.Fatalf("%s: the retry did not start a new job (%v)", id, r.Status)
		}
	}
}
