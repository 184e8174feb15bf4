package timeline

import (
	"bytes"
	"fmt"
	"sync"
	"testing"
	"time"
)

func TestRecorderRingKeepsNewestInOrder(t *testing.T) {
	for _, tc := range []struct {
		capacity, n int
	}{
		{4, 0}, {4, 3}, {4, 4}, {4, 5}, {4, 11}, {1, 3},
	} {
		t.Run(fmt.Sprintf("cap%d_n%d", tc.capacity, tc.n), func(t *testing.T) {
			r := NewRecorder(tc.capacity)
			for i := range tc.n {
				r.RecordAt(time.Duration(i), KernelStart, "j", i, 0, 0)
			}
			got := r.Events()
			want := min(tc.n, tc.capacity)
			if len(got) != want || r.Len() != want {
				t.Fatalf("kept %d (Len %d) events, want %d", len(got), r.Len(), want)
			}
			for i, e := range got {
				if wantP := tc.n - want + i; e.Partition != wantP {
					t.Fatalf("event %d is partition %d, want %d (oldest first)", i, e.Partition, wantP)
				}
			}
			if d := r.Dropped(); d != uint64(tc.n-want) {
				t.Fatalf("Dropped = %d, want %d", d, tc.n-want)
			}
		})
	}
}

func TestRecorderConcurrent(t *testing.T) {
	const workers, each = 8, 500
	r := NewRecorder(workers * each)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := range each {
				r.Record(LockHeld, "job", i, w, 0)
				if i%100 == 0 {
					_ = r.Events() // readers run alongside writers
				}
			}
		})
	}
	wg.Wait()
	ev := r.Events()
	if len(ev) != workers*each {
		t.Fatalf("recorded %d events, want %d", len(ev), workers*each)
	}
	last := make(map[int]time.Duration)
	seen := make(map[int]int)
	for _, e := range ev {
		if e.At < last[e.Worker] {
			t.Fatalf("worker %d: time went backwards: %v after %v", e.Worker, e.At, last[e.Worker])
		}
		last[e.Worker] = e.At
		seen[e.Worker]++
	}
	for w := range workers {
		if seen[w] != each {
			t.Fatalf("worker %d: %d events, want %d", w, seen[w], each)
		}
	}
}

func TestRecorderTimestamps(t *testing.T) {
	r := NewRecorder(8)
	before := r.Now()
	r.Record(JobSubmit, "a", -1, -1, -1)
	after := r.Now()
	e := r.Events()[0]
	if e.At < before || e.At > after {
		t.Fatalf("Record took time %v outside [%v, %v]", e.At, before, after)
	}
	ref := r.Start().Add(250 * time.Millisecond)
	if got := r.Offset(ref); got != 250*time.Millisecond {
		t.Fatalf("Offset = %v, want 250ms", got)
	}
	dc := r.DeviceClock(ref)
	dc.Record(3*time.Millisecond, KernelStart, "a", 0, 1, 2)
	got := r.Events()[1]
	want := Event{At: 253 * time.Millisecond, Kind: KernelStart, Job: "a", Partition: 0, Worker: 1, Device: 2}
	if got != want {
		t.Fatalf("device-clock event = %+v, want %+v", got, want)
	}
	if dc.At(-time.Millisecond) != 249*time.Millisecond {
		t.Fatalf("DeviceClock.At(-1ms) = %v", dc.At(-time.Millisecond))
	}
}

func TestNilRecorderIsANoOp(t *testing.T) {
	var r *Recorder
	r.Record(JobSubmit, "a", -1, -1, -1)
	r.RecordAt(0, JobDone, "a", -1, -1, -1)
	r.DeviceClock(time.Now()).Record(0, KernelEnd, "a", 0, 0, 0)
	r.Reset()
	if r.Events() != nil || r.Len() != 0 || r.Cap() != 0 || r.Dropped() != 0 {
		t.Fatal("nil recorder reported events")
	}
}

func TestRecorderTee(t *testing.T) {
	var buf bytes.Buffer
	r := NewRecorder(4)
	r.Tee(&buf)
	r.RecordAt(1500*time.Microsecond, KernelEnd, "job,1", 2, 0, 1)
	r.Tee(nil)
	r.RecordAt(0, KernelEnd, "x", 2, 0, 1)
	want := "TIMELINE,1.500000,KERNEL_END,\"job,1\",2,0,1\n"
	if buf.String() != want {
		t.Fatalf("tee wrote %q, want %q", buf.String(), want)
	}
}

func TestRecordDoesNotAllocate(t *testing.T) {
	r := NewRecorder(64)
	job := "job-1"
	allocs := testing.AllocsPerRun(1000, func() {
		r.Record(KernelStart, job, 3, 1, 0)
		r.RecordAt(5, KernelEnd, job, 3, 1, 0)
	})
	if allocs != 0 {
		t.Fatalf("Record allocates %.1f times per call", allocs)
	}
}

func BenchmarkRecord(b *testing.B) {
	r := NewRecorder(1 << 16)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		r.Record(KernelStart, "job", i, 0, 0)
	}
}

func BenchmarkRecordParallel(b *testing.B) {
	r := NewRecorder(1 << 16)
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for i := 0; pb.Next(); i++ {
			r.Record(KernelStart, "job", i, 0, 0)
		}
	})
}
