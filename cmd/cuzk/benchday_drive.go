package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	pb "google.golang.org/protobuf/proto"

	"github.com/cuzk-project/cuzk/groth16"
	cuzkv1 "github.com/cuzk-project/cuzk/proto/cuzk/v1"
)

// dayProver proves one request: a daemon's client.
type dayProver interface {
	Prove(ctx context.Context, req *cuzkv1.SubmitProofRequest) (*cuzkv1.AwaitProofResponse, error)
}

// dayBulk is a bulk kind of the day: Jobs of its request kept in flight.
type dayBulk struct {
	Kind string
	Req  *cuzkv1.SubmitProofRequest
	Jobs int
}

// daySchedule is what a phase (the day, or a solo run) submits, with
// times from its start: the bulk load until Duration; each deadline's
// Partitions WindowPoSt requests at its Open; a WinningPoSt at each of
// WinningAt.
type daySchedule struct {
	Duration   time.Duration
	Bulk       []dayBulk
	WPoSt      *cuzkv1.SubmitProofRequest
	Deadlines  []dayDeadline
	Partitions int
	Winning    *cuzkv1.SubmitProofRequest
	WinningAt  []time.Duration
}

// scheduleDeadlines opens a deadline at `at`, then every `every` (0: once)
// while before duration.
func scheduleDeadlines(at, every, window, duration time.Duration) []dayDeadline {
	var out []dayDeadline
	for t := at; t < duration; t += every {
		out = append(out, dayDeadline{Index: len(out), Open: t, Window: window})
		if every <= 0 {
			break
		}
	}
	return out
}

// scheduleWinning is a WinningPoSt every `every`, the first one period
// into the day (once the bulk load holds the device), while before
// duration.
func scheduleWinning(every, duration time.Duration) []time.Duration {
	var out []time.Duration
	for t := every; every > 0 && t < duration; t += every {
		out = append(out, t)
	}
	return out
}

// dayPhase is one run of a schedule against a daemon; its goroutines
// record their samples under mu.
type dayPhase struct {
	p      dayProver
	prefix string // of the request ids: every submission gets its own
	start  time.Time

	mu       sync.Mutex
	samples  []daySample
	inFlight int
}

// runDayPhase submits s's work to p until every proof is answered; ids
// start with prefix. A proof cut short by ctx is not recorded. progress,
// when not nil, is told the phase's state every second.
func runDayPhase(ctx context.Context, p dayProver, prefix string, s daySchedule, progress func(string)) []daySample {
	d := &dayPhase{p: p, prefix: prefix, start: time.Now()}
	end := d.start.Add(s.Duration)
	var wg sync.WaitGroup
	for _, b := range s.Bulk {
		for g := range b.Jobs {
			wg.Go(func() {
				for i := 0; time.Now().Before(end) && ctx.Err() == nil; i++ {
					d.prove(ctx, b.Kind, b.Req, fmt.Sprintf("%s-%s-%d-%d", prefix, b.Kind, g, i), -1)
				}
			})
		}
	}
	if s.WPoSt != nil {
		for _, dl := range s.Deadlines {
			wg.Go(func() {
				if !sleepUntil(ctx, d.start.Add(dl.Open)) {
					return
				}
				var parts sync.WaitGroup
				for k := range s.Partitions {
					parts.Go(func() {
						d.prove(ctx, dayWPoSt, s.WPoSt, fmt.Sprintf("%s-%s-d%d-p%d", prefix, dayWPoSt, dl.Index, k), dl.Index)
					})
				}
				parts.Wait()
			})
		}
	}
	if s.Winning != nil {
		for k, at := range s.WinningAt {
			wg.Go(func() {
				if sleepUntil(ctx, d.start.Add(at)) {
					d.prove(ctx, dayWinning, s.Winning, fmt.Sprintf("%s-%s-%d", prefix, dayWinning, k), -1)
				}
			})
		}
	}
	if progress != nil {
		done := make(chan struct{})
		var ticker sync.WaitGroup
		ticker.Go(func() {
			t := time.NewTicker(time.Second)
			defer t.Stop()
			for {
				progress(d.status(s.Duration))
				select {
				case <-done:
					return
				case <-t.C:
				}
			}
		})
		defer func() { close(done); ticker.Wait() }()
	}
	wg.Wait()
	d.mu.Lock()
	defer d.mu.Unlock()
	sortSamples(d.samples)
	return d.samples
}

// prove submits a copy of tmpl under id and records the answer.
func (d *dayPhase) prove(ctx context.Context, kind string, tmpl *cuzkv1.SubmitProofRequest, id string, deadline int) {
	req := pb.Clone(tmpl).(*cuzkv1.SubmitProofRequest)
	req.RequestId = id
	d.mu.Lock()
	d.inFlight++
	d.mu.Unlock()
	submit := time.Since(d.start)
	r, err := d.p.Prove(ctx, req)
	done := time.Since(d.start)
	s := daySample{Kind: kind, ID: id, Submit: submit, Done: done, Deadline: deadline, Err: err}
	if err == nil {
		if n := len(r.GetProof()); n == 0 || n%groth16.ProofSize != 0 {
			s.Err = fmt.Errorf("%d proof bytes, not a whole number of partition proofs", n)
		} else {
			s.Partitions = n / groth16.ProofSize
		}
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	d.inFlight--
	if ctx.Err() != nil {
		return
	}
	d.samples = append(d.samples, s)
}

// status is the progress line: time, and per kind the proofs answered.
func (d *dayPhase) status(duration time.Duration) string {
	d.mu.Lock()
	defer d.mu.Unlock()
	proved, failed := map[string]int{}, map[string]int{}
	for _, s := range d.samples {
		if s.Err != nil {
			failed[s.Kind]++
		} else {
			proved[s.Kind]++
		}
	}
	var parts []string
	for _, k := range dayKindOrder {
		if proved[k]+failed[k] == 0 {
			continue
		}
		p := fmt.Sprintf("%s %d", k, proved[k])
		if failed[k] > 0 {
			p += fmt.Sprintf(" (%d failed)", failed[k])
		}
		parts = append(parts, p)
	}
	if len(parts) == 0 {
		parts = []string{"none answered yet"}
	}
	return fmt.Sprintf("%v / %v: %s; %d in flight", time.Since(d.start).Round(time.Second), duration, strings.Join(parts, ", "), d.inFlight)
}

// sleepUntil waits until t; false when ctx ended first.
func sleepUntil(ctx context.Context, t time.Time) bool {
	timer := time.NewTimer(time.Until(t))
	defer timer.Stop()
	select {
	case <-timer.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// lineProgress redraws what on one line of w when w is a terminal, and
// is nil otherwise; clear erases the line.
func lineProgress(w io.Writer, what string) (progress func(string), clear func()) {
	f := terminal(w)
	if f == nil {
		return nil, func() {}
	}
	return func(s string) { fmt.Fprintf(f, "\r\033[K%s %s", what, s) }, func() { fmt.Fprint(f, "\r\033[K") }
}
