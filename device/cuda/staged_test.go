package cuda

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cuzk-project/cuzk/circuits/synthetic"
	"github.com/cuzk-project/cuzk/device/cpu"
	"github.com/cuzk-project/cuzk/groth16"
	"github.com/cuzk-project/cuzk/memory"
	"github.com/cuzk-project/cuzk/r1cs"
)

// TestWatchStaged: a Run whose context carries the engine's hook arms its
// job with the word and the number to write; once the library writes
// that number (a stale number from an earlier Run does not count) the a,
// b staging goes to the hook, and keeping it puts it in the pool with its
// share while the Partial no longer holds it. Where the Run returns before
// the note, or nobody takes the staging, it stays with the Partial; where
// the context carries no hook nothing is armed. No GPU: the library's
// write is a goroutine's, the pool's buffers fake.
func TestWatchStaged(t *testing.T) {
	const abBytes = 64 << 10
	for _, tc := range []struct {
		name       string
		hook       bool
		taken      bool // the hook was called before (another report took it)
		note       bool // the library writes the Run's number
		wantHanded bool
	}{
		{"kept while in flight", true, false, true, true},
		{"the Run returned first", true, false, false, false},
		{"taken by another report", true, true, true, false},
		{"no hook", false, false, true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var freed []uint64
			keep := int64(1 << 30)
			d := &Device{}
			fp := fakePool(&keep, &freed)
			d.pool.keep, d.pool.alloc, d.pool.release = fp.keep, fp.alloc, fp.release
			ab, _ := d.pool.get(abBytes)
			w := &prepared{ab: ab, nrows: abBytes / 64}
			var word uint32
			k := &kernels{staged: &word, stagedSeq: 6}
			word = 6 // the last Run's number, written late: not this Run's

			budget := memory.New(1 << 20)
			res, _ := budget.TryReserve(abBytes + 100)
			var handed atomic.Int64
			ctx := context.Background()
			if tc.hook {
				ctx = groth16.WithStagingDone(ctx, func(rr groth16.RunReport) {
					handed.Store(int64(rr.StagingBytes))
					rr.KeepStaging(res.Split(rr.StagingBytes))
				})
				if tc.taken {
					groth16.StagingDone(ctx, groth16.RunReport{KeepStaging: func(s *memory.Reservation) { s.Close() }})
					handed.Store(0)
				}
			}
			var job cJob
			stop := d.watchStaged(ctx, k, w, &job)
			if armed := job.Staged != nil; armed != tc.hook {
				t.Fatalf("job armed %v, want %v", armed, tc.hook)
			}
			if tc.hook && (job.Staged != k.staged || job.StagedSeq != 7) {
				t.Fatalf("job armed with %p, %d; want the context's word and 7", job.Staged, job.StagedSeq)
			}
			time.Sleep(3 * stagedPoll)
			if handed.Load() != 0 {
				t.Fatal("the staging was handed before its note")
			}
			if tc.note {
				atomic.StoreUint32(&word, job.StagedSeq)
				if tc.wantHanded {
					deadline := time.Now().Add(5 * time.Second)
					for handed.Load() == 0 && time.Now().Before(deadline) {
						time.Sleep(time.Millisecond)
					}
				} else {
					time.Sleep(5 * stagedPoll)
				}
			}
			stop()
			if got := handed.Load() == abBytes; got != tc.wantHanded {
				t.Fatalf("handed %d bytes, want handed %v", handed.Load(), tc.wantHanded)
			}
			if tc.wantHanded {
				if w.ab.p != nil || w.StagedBytes() != 0 {
					t.Fatalf("the Partial still holds %d bytes of staging", w.StagedBytes())
				}
				if got := d.pool.sharedBytes(); got != abBytes || len(freed) != 0 {
					t.Fatalf("the pool keeps %d bytes with a share, freed %v; want %d, none", got, freed, abBytes)
				}
				return
			}
			if w.ab.n != abBytes || d.pool.sharedBytes() != 0 {
				t.Fatalf("the Partial holds %d bytes, the pool %d with a share; want %d and 0", w.ab.n, d.pool.sharedBytes(), abBytes)
			}
		})
	}
}

// TestRunKeepsStagingEarly: on the GPU, a classic Run whose context
// carries the engine's hook hands its a, b staging over while in flight
// (before Run returns), the pool keeps it with its share, the next
// partition's Prepare takes it and writes its own a and b into it while
// nothing reads it any more, and both partitions' sums equal the CPU
// device's.
func TestRunKeepsStagingEarly(t *testing.T) {
	d := gpu(t)
	c, err := synthetic.New(synthetic.Config{Constraints: 1 << 18, Inputs: 3, BoolFraction: 0.75, ADensity: 0.99, BDensity: 0.25, Seed: 21})
	if err != nil {
		t.Fatal(err)
	}
	p, err := groth16.Setup(c, []byte("keeps its staging early"))
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Retain(p); err != nil {
		t.Fatal(err)
	}
	defer d.Release(p)
	ctx := context.Background()
	want, err := groth16.Compute(ctx, cpu.New(0), mustSynth(t, c), p)
	if err != nil {
		t.Fatal(err)
	}
	budget := memory.New(1 << 40)
	for i := range 2 {
		a := mustSynth(t, c)
		res, _ := budget.TryReserve(1 << 32)
		w, err := d.Prepare(ctx, a, p)
		if err != nil {
			t.Fatal(err)
		}
		abBytes := w.(*prepared).ab.n
		var handed atomic.Uint64
		var returned atomic.Bool
		rctx := groth16.WithStagingDone(ctx, func(rr groth16.RunReport) {
			if returned.Load() {
				t.Error("the hook was called after Run returned")
			}
			handed.Store(rr.StagingBytes)
			rr.KeepStaging(res.Split(rr.StagingBytes))
		})
		pr, err := d.Run(rctx, w)
		returned.Store(true)
		if err != nil {
			t.Fatal(err)
		}
		if got := handed.Load(); got == 0 || got != abBytes {
			t.Fatalf("partition %d: %d bytes handed while the Run was in flight, want its a, b staging's %d", i, got, abBytes)
		}
		if got := d.KeptBytes(); got != abBytes {
			t.Errorf("partition %d: the pool keeps %d bytes with a share, want %d", i, got, abBytes)
		}
		if rr := runReport(pr.(*Partial)); rr.StagingBytes >= abBytes {
			t.Errorf("partition %d: the Partial still reports %d bytes of staging", i, rr.StagingBytes)
		}
		got, err := d.Finish(ctx, pr)
		if err != nil {
			t.Fatal(err)
		}
		if !got.H.Equal(&want.H) || !got.L.Equal(&want.L) || !got.A.Equal(&want.A) || !got.B1.Equal(&want.B1) || !got.B2.Equal(&want.B2) {
			t.Errorf("partition %d: sums differ from the CPU device's", i)
		}
		res.Close()
	}
}

func mustSynth(t *testing.T, c r1cs.Circuit) *groth16.Assignment {
	t.Helper()
	a, err := groth16.Synthesize(c, r1cs.Shape{})
	if err != nil {
		t.Fatal(err)
	}
	return a
}
