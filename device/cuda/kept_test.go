package cuda

import (
	"testing"
	"time"

	"github.com/cuzk-project/cuzk/memory"
)

// TestKeepWitnessStaging: a witness run's staging (dead once Run has
// uploaded it) is reported to the engine and kept with its part of the
// share, each buffer with its own, so the next partition's Prepare takes
// it instead of page-locking 4 GB anew; one not kept goes back to the pool
// at Finish or Discard, once. No GPU: the pool's buffers are fake.
func TestKeepWitnessStaging(t *testing.T) {
	sizes := []uint64{3 << 30, 4 << 10, 512 << 20} // the dense aux, inputs, a bitmap: over the unshared cap
	var want uint64
	for _, n := range sizes {
		want += n
	}
	newPartial := func(t *testing.T) (*Device, *Partial, *[]uint64) {
		var freed []uint64
		keep := int64(1 << 10) // keeps no unshared buffer of these sizes
		d := &Device{}
		fp := fakePool(&keep, &freed)
		d.pool.keep, d.pool.alloc, d.pool.release = fp.keep, fp.alloc, fp.release
		st := &staged{}
		for _, n := range sizes {
			if _, err := st.buf(d, n); err != nil {
				t.Fatal(err)
			}
		}
		w := &witnessPrepared{st: st, held: want}
		w.ran.Store(true)
		return d, &Partial{d: d, wp: w}, &freed
	}

	t.Run("kept", func(t *testing.T) {
		d, p, freed := newPartial(t)
		if got := p.StagingBytes(); got != want {
			t.Fatalf("StagingBytes %d, want %d", got, want)
		}
		if r := runReport(p); r.StagingBytes != want || r.KeepStaging == nil {
			t.Fatalf("run report: staging %d, keep %v; want %d and a KeepStaging", r.StagingBytes, r.KeepStaging != nil, want)
		}
		budget := memory.New(1 << 40)
		share, _ := budget.TryReserve(want + 100) // more than the staging: the rest is closed
		p.KeepStaging(share)
		deadline := time.Now().Add(5 * time.Second)
		for d.pool.sharedBytes() != want && time.Now().Before(deadline) {
			time.Sleep(time.Millisecond) // the buffers go back on a goroutine
		}
		if got, n := d.pool.sharedBytes(), len(d.pool.shared); got != want || n != len(sizes) || budget.Used() != want || len(*freed) != 0 {
			t.Fatalf("kept %d bytes in %d shared buffers, budget %d, freed %v; want %d in %d, none freed",
				got, n, budget.Used(), *freed, want, len(sizes))
		}
		if p.StagingBytes() != 0 {
			t.Fatal("the staging is still reported after it was kept")
		}
		d.Discard(p) // nothing left to give back: no double put
		if got := d.pool.sharedBytes(); got != want || len(*freed) != 0 {
			t.Fatalf("after Discard: kept %d, freed %v", got, *freed)
		}
		// The next partition's staging takes the kept dense buffer.
		b, err := d.pool.get(3 << 30)
		if err != nil || b.n != 3<<30 || budget.Used() != want-(3<<30) {
			t.Fatalf("get: %d bytes, %v; budget %d", b.n, err, budget.Used())
		}
	})
	t.Run("not kept", func(t *testing.T) {
		d, p, freed := newPartial(t)
		d.Discard(p)
		if p.StagingBytes() != 0 || d.pool.sharedBytes() != 0 || len(*freed) != len(sizes) {
			t.Fatalf("after Discard: staging %d, shared %d, freed %v; want every buffer back", p.StagingBytes(), d.pool.sharedBytes(), *freed)
		}
		d.Discard(p)
		if len(*freed) != len(sizes) {
			t.Fatalf("a second Discard freed again: %v", *freed)
		}
	})
}
