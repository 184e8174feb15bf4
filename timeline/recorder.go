package timeline

import (
	"io"
	"sync"
	"sync/atomic"
	"time"
)

// DefaultCapacity is the ring size used when NewRecorder is given a
// capacity < 1: about 16 events per partition for 64k partitions.
const DefaultCapacity = 1 << 20

// Recorder keeps the most recent events in a fixed-size ring. Timestamps
// are offsets from the recorder's start on the monotonic clock, so a wall
// clock step (NTP) never reorders events.
//
// It is safe for concurrent use. Recording does not allocate: the ring is
// allocated once and an Event holds only a string header (the job id is
// shared, not copied). When the ring is full the oldest event is
// overwritten and counted in Dropped.
//
// A nil *Recorder records nothing, so a component can take one optionally
// without branching at every call site.
type Recorder struct {
	start time.Time // carries the monotonic reading

	mu    sync.Mutex
	ring  []Event
	total uint64 // events ever recorded; ring index is total % len(ring)

	teeOn  atomic.Bool
	teeMu  sync.Mutex
	tee    io.Writer
	teeBuf []byte
}

// NewRecorder returns a recorder that keeps the last capacity events and
// whose time zero is now.
func NewRecorder(capacity int) *Recorder {
	if capacity < 1 {
		capacity = DefaultCapacity
	}
	return &Recorder{start: time.Now(), ring: make([]Event, capacity)}
}

// Start is the instant the recorder's offsets are measured from.
func (r *Recorder) Start() time.Time { return r.start }

// Offset maps a host instant onto the recorder's timeline. t must carry a
// monotonic reading (come from time.Now) for the result to be immune to
// wall-clock steps.
func (r *Recorder) Offset(t time.Time) time.Duration { return t.Sub(r.start) }

// Now is the current offset on the recorder's timeline.
func (r *Recorder) Now() time.Duration { return time.Since(r.start) }

// Record records an event of kind k now. Use -1 for an unset partition,
// worker or device.
func (r *Recorder) Record(k Kind, job string, partition, worker, device int) {
	if r == nil {
		return
	}
	r.Add(Event{At: time.Since(r.start), Kind: k, Job: job, Partition: partition, Worker: worker, Device: device})
}

// RecordAt records an event at an explicit offset, for instants measured
// elsewhere: a device clock mapped with DeviceClock, or a host instant
// mapped with Offset.
func (r *Recorder) RecordAt(at time.Duration, k Kind, job string, partition, worker, device int) {
	if r == nil {
		return
	}
	r.Add(Event{At: at, Kind: k, Job: job, Partition: partition, Worker: worker, Device: device})
}

// Add records e as given, e.At included.
func (r *Recorder) Add(e Event) {
	if r == nil {
		return
	}
	r.mu.Lock()
	r.ring[r.total%uint64(len(r.ring))] = e
	r.total++
	r.mu.Unlock()

	if r.teeOn.Load() {
		r.teeMu.Lock()
		if r.tee != nil {
			r.teeBuf = AppendLine(r.teeBuf[:0], e)
			_, _ = r.tee.Write(r.teeBuf) // a logging sink's failure must not stop proving
		}
		r.teeMu.Unlock()
	}
}

// Tee makes every later event also be written to w as one AppendLine
// line (for a daemon's log); nil stops it. Writes are serialized and do
// not hold the ring's lock.
func (r *Recorder) Tee(w io.Writer) {
	r.teeMu.Lock()
	r.tee = w
	r.teeOn.Store(w != nil)
	r.teeMu.Unlock()
}

// Events copies out the events still in the ring, oldest recorded first.
// Events recorded with RecordAt may be out of time order; Analyze and the
// exporters sort by time themselves.
func (r *Recorder) Events() []Event {
	if r == nil {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	n := uint64(len(r.ring))
	if r.total <= n {
		return append([]Event(nil), r.ring[:r.total]...)
	}
	head := r.total % n
	out := make([]Event, 0, n)
	out = append(out, r.ring[head:]...)
	return append(out, r.ring[:head]...)
}

// Len is the number of events currently held.
func (r *Recorder) Len() int {
	if r == nil {
		return 0
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return int(min(r.total, uint64(len(r.ring))))
}

// Cap is the ring's capacity.
func (r *Recorder) Cap() int {
	if r == nil {
		return 0
	}
	return len(r.ring)
}

// Dropped is the number of events overwritten because the ring was full.
func (r *Recorder) Dropped() uint64 {
	if r == nil {
		return 0
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.total - min(r.total, uint64(len(r.ring)))
}

// Reset forgets all events; the time origin is kept.
func (r *Recorder) Reset() {
	if r == nil {
		return
	}
	r.mu.Lock()
	clear(r.ring)
	r.total = 0
	r.mu.Unlock()
}

// DeviceClock maps a device's own clock onto a recorder's timeline. A
// device backend takes one reference reading at a moment it also knows on
// the host (for CUDA: a host time.Now right after cudaEventSynchronize on a
// reference event), and then reports kernel instants as device durations
// since that reference (cudaEventElapsedTime against the reference event).
//
// The mapping is a pure offset: device clocks and the host monotonic clock
// both run at real time, and the error is the latency of the reference
// reading (microseconds), small against the gaps the analysis looks for.
type DeviceClock struct {
	rec    *Recorder
	origin time.Duration // recorder offset of the device reference
}

// DeviceClock returns the mapping for a device whose reference reading was
// taken at host instant ref.
func (r *Recorder) DeviceClock(ref time.Time) DeviceClock {
	if r == nil {
		return DeviceClock{}
	}
	return DeviceClock{rec: r, origin: ref.Sub(r.start)}
}

// At maps a device reading (time since the reference) onto the timeline.
func (c DeviceClock) At(sinceRef time.Duration) time.Duration { return c.origin + sinceRef }

// Record records an event at a device reading (time since the reference).
func (c DeviceClock) Record(sinceRef time.Duration, k Kind, job string, partition, worker, device int) {
	c.rec.RecordAt(c.origin+sinceRef, k, job, partition, worker, device)
}
