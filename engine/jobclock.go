package engine

import "time"

// jobClock splits a job's life into parts that add up to its total: at
// every moment the job is in the most advanced activity one of its units
// is in — a device Run (gpu), else synthesis (synth), else device
// Prepare/Finish and proof assembly (other), else nothing: waiting in a
// queue, for memory or for parameters (queue). Parameter loading, timed
// on its own (srsLoad), is taken out of queue when the result is made.
// Partitions run in parallel, so a sum over partitions could exceed the
// total and hide the wait (a LOW job that waited 47.7 s reported a
// queue_wait of 0); these parts cannot.
//
// It is guarded by the job's mu.
type jobClock struct {
	n      [numActivities]int           // units in each activity now
	spent  [numActivities]time.Duration // attributed so far; waiting is index actQueue
	last   time.Time                    // when spent was last brought up to date
	frozen bool
}

type activity int

const (
	actQueue activity = iota // no unit working
	actOther                 // Prepare, Finish, assembly
	actSynth
	actGPU
	numActivities
)

// current is the activity time is attributed to now.
func (c *jobClock) current() activity {
	for a := actGPU; a > actQueue; a-- {
		if c.n[a] > 0 {
			return a
		}
	}
	return actQueue
}

// advance attributes the time since the last change to the current
// activity.
func (c *jobClock) advance(now time.Time) {
	if c.frozen {
		return
	}
	if !c.last.IsZero() && now.After(c.last) {
		c.spent[c.current()] += now.Sub(c.last)
	}
	c.last = now
}

// begin and end count a unit into and out of activity a.
func (j *job) begin(a activity) {
	j.mu.Lock()
	j.clock.advance(time.Now())
	j.clock.n[a]++
	j.mu.Unlock()
}

func (j *job) end(a activity) {
	j.mu.Lock()
	j.clock.advance(time.Now())
	if j.clock.n[a] > 0 {
		j.clock.n[a]--
	}
	j.mu.Unlock()
}

// working reports whether a unit of the job is in an activity (for the
// status: such a job is in progress, any other unfinished one pending).
// Called with j.mu held.
func (c *jobClock) working() bool { return c.current() != actQueue }

// stop brings the clock up to now and freezes it; it returns the parts.
// Called with j.mu held.
func (c *jobClock) stop(now time.Time) (queue, other, synth, gpu time.Duration) {
	c.advance(now)
	c.frozen = true
	return c.spent[actQueue], c.spent[actOther], c.spent[actSynth], c.spent[actGPU]
}
