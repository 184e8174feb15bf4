package memory

import (
	"context"
	"testing"
)

// TestReservationSplit: Split hands part of a reservation on without
// touching the budget, clamped to what is held; each part is released on
// its own, and the budget empties only when both are.
func TestReservationSplit(t *testing.T) {
	for _, tc := range []struct {
		name               string
		reserve, released  uint64 // reserved, then released before the split
		split              uint64
		wantPart, wantLeft uint64
	}{
		{"part", 100, 0, 30, 30, 70},
		{"all", 100, 0, 100, 100, 0},
		{"more than held", 100, 40, 80, 60, 0},
		{"none", 100, 0, 0, 0, 100},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := New(1000)
			other := New(1000)
			r, err := b.Reserve(context.Background(), tc.reserve)
			if err != nil {
				t.Fatal(err)
			}
			r.Release(tc.released)
			used := b.Used()
			part := r.Split(tc.split)
			if part.Held() != tc.wantPart || part.Size() != tc.wantPart || r.Held() != tc.wantLeft {
				t.Fatalf("split %d: part %d (size %d), left %d; want %d, %d", tc.split, part.Held(), part.Size(), r.Held(),
					tc.wantPart, tc.wantLeft)
			}
			if b.Used() != used {
				t.Fatalf("the split changed the budget: %d used, was %d", b.Used(), used)
			}
			if !part.Of(b) || part.Of(other) || !r.Of(b) {
				t.Fatal("Of: the part is not of its budget")
			}
			r.Close()
			if got := b.Used(); got != tc.wantPart {
				t.Fatalf("after closing the rest: %d used, want the part's %d", got, tc.wantPart)
			}
			part.Close()
			part.Close()
			if got := b.Used(); got != 0 {
				t.Fatalf("after closing both: %d used", got)
			}
		})
	}
	var nilRes *Reservation
	if nilRes.Split(5) != nil || nilRes.Of(New(1)) {
		t.Fatal("a nil reservation splits into something")
	}
}

// TestReservationJoin: Join moves what one reservation holds into another
// without touching the budget (the joined one is left empty and closes to
// nothing), nil and itself are no-ops, and reservations of two budgets
// are refused.
func TestReservationJoin(t *testing.T) {
	for _, tc := range []struct {
		name             string
		r, o, oReleased  uint64
		wantHeld, wantSz uint64
	}{
		{"both whole", 100, 30, 0, 130, 130},
		{"part of o released", 100, 30, 10, 120, 120},
		{"o empty", 100, 30, 30, 100, 100},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := New(1000)
			r, _ := b.TryReserve(tc.r)
			o, _ := b.TryReserve(tc.o)
			o.Release(tc.oReleased)
			used := b.Used()
			r.Join(o)
			if r.Held() != tc.wantHeld || r.Size() != tc.wantSz || o.Held() != 0 {
				t.Fatalf("joined: %d held (size %d), o holds %d; want %d (%d), 0", r.Held(), r.Size(), o.Held(), tc.wantHeld, tc.wantSz)
			}
			if b.Used() != used {
				t.Fatalf("Join changed the budget: %d used, was %d", b.Used(), used)
			}
			o.Close()
			if b.Used() != used {
				t.Fatalf("closing the joined one gave back %d bytes", used-b.Used())
			}
			r.Join(nil)
			r.Join(r)
			if r.Held() != tc.wantHeld {
				t.Fatalf("Join of nil or itself: %d held, want %d", r.Held(), tc.wantHeld)
			}
			r.Close()
			if b.Used() != 0 {
				t.Fatalf("after closing: %d used", b.Used())
			}
		})
	}
	defer func() {
		if recover() == nil {
			t.Fatal("Join of two budgets' reservations did not panic")
		}
	}()
	r, _ := New(10).TryReserve(5)
	o, _ := New(10).TryReserve(5)
	r.Join(o)
}
