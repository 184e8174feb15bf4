package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cuzk-project/cuzk/circuits"
)

// fakeTarget proves instantly (after d) and counts calls.
type fakeTarget struct {
	d     time.Duration
	calls atomic.Int32
}

func (f *fakeTarget) describe() string                             { return "fake" }
func (f *fakeTarget) preload(context.Context, io.Writer) error     { return nil }
func (f *fakeTarget) utilization(io.Writer, map[string]bool) error { return nil }
func (f *fakeTarget) close() error                                 { return nil }
func (f *fakeTarget) prove(ctx context.Context, i int) (string, error) {
	f.calls.Add(1)
	time.Sleep(f.d)
	return fmt.Sprint("job-", i), nil
}

// TestRunJobs checks batch and stress scheduling with a progress display,
// under -race: the progress callback must see consistent counts.
func TestRunJobs(t *testing.T) {
	tests := []struct {
		name string
		o    benchOptions
	}{
		{"batch", benchOptions{count: 10, concurrency: 3}},
		{"stress", benchOptions{stress: true, duration: 30 * time.Millisecond, concurrency: 4}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := &fakeTarget{d: time.Millisecond}
			var lastDone, lastTotal int
			progress := func(done, failed, total int, el time.Duration) {
				if done >= 0 {
					lastDone, lastTotal = done, total
				}
			}
			res := runJobs(context.Background(), &tc.o, f, progress)
			if int(f.calls.Load()) != len(res.jobs) || res.failed != 0 {
				t.Fatalf("%d calls, %d outcomes, %d failed", f.calls.Load(), len(res.jobs), res.failed)
			}
			if !tc.o.stress && len(res.jobs) != tc.o.count {
				t.Fatalf("%d jobs, want %d", len(res.jobs), tc.o.count)
			}
			if lastDone != len(res.jobs) || lastTotal < lastDone {
				t.Fatalf("last progress %d/%d for %d jobs", lastDone, lastTotal, len(res.jobs))
			}
		})
	}
}

func TestBenchOptionsValidate(t *testing.T) {
	ok := benchOptions{count: 1, concurrency: 1, constraints: 1 << 10, partitions: 2, budgetGiB: 1, kind: "porep", device: "cpu", workers: 2}
	tests := []struct {
		name    string
		mod     func(o *benchOptions)
		wantErr string
	}{
		{"default", func(o *benchOptions) {}, ""},
		{"partitions", func(o *benchOptions) { o.partitions = 0 }, "--partitions"},
		{"jobs", func(o *benchOptions) { o.concurrency = 0 }, "-j"},
		{"kind", func(o *benchOptions) { o.kind = "nope" }, "--kind"},
		// A request could not ask for it, and its development setup would
		// run for hours before the first job is refused.
		{"constraints above the synthetic limit", func(o *benchOptions) { o.constraints = circuits.MaxSyntheticConstraints + 1 }, "--constraints"},
		{"budget beyond 2^64 bytes", func(o *benchOptions) { o.budgetGiB = 1e12 }, "--budget"},
		{"no device workers", func(o *benchOptions) { o.workers = 0 }, "--gpu-workers"},
		{"a billion device workers", func(o *benchOptions) { o.workers = 1e9 }, "--gpu-workers"},
		{"a billion synthesis workers", func(o *benchOptions) { o.synthWorkers = 1e9 }, "--synthesis-workers"},
		{"NaN budget", func(o *benchOptions) { o.budgetGiB = math.NaN() }, "--budget"},
		{"unknown device", func(o *benchOptions) { o.device = "tpu" }, "--device"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o := ok
			tc.mod(&o)
			err := o.validate()
			if tc.wantErr == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("err = %v, want one naming %s", err, tc.wantErr)
			}
		})
	}
}
