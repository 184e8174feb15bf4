package engine

import (
	"fmt"
	"sync"
	"time"
)

// DefaultUrgentWindow is how long a circuit's parameters stay protected
// from eviction after its last CRITICAL or HIGH job when
// Config.UrgentWindow is 0: a WindowPoSt deadline comes every 30 minutes,
// a WinningPoSt every epoch.
const DefaultUrgentWindow = time.Hour

// urgency tracks, per circuit id, the CRITICAL and HIGH jobs (WinningPoSt
// and WindowPoSt by default) not yet ended and when the last one was
// submitted or ended: the parameters such work needs must not be evicted
// to make room for bulk work (Engine.Urgent). Its lock is a leaf: nothing
// is called while it is held.
type urgency struct {
	window time.Duration // < 0: only while such work is queued or running
	now    func() time.Time

	mu sync.Mutex
	m  map[string]*urgentCircuit
}

type urgentCircuit struct {
	open int       // jobs accepted and not ended
	prio Priority  // the highest priority of them, or of the last one
	last time.Time // the last accept or end
}

func (u *urgency) begin(circuit string, p Priority) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.m == nil {
		u.m = map[string]*urgentCircuit{}
	}
	c := u.m[circuit]
	if c == nil {
		c = &urgentCircuit{}
		u.m[circuit] = c
	}
	if c.open == 0 || p > c.prio {
		c.prio = p
	}
	c.open++
	c.last = u.now()
}

func (u *urgency) end(circuit string) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if c := u.m[circuit]; c != nil && c.open > 0 {
		c.open--
		c.last = u.now()
	}
}

// reason is why circuit's parameters are kept, "" when nothing keeps them.
func (u *urgency) reason(circuit string) string {
	u.mu.Lock()
	defer u.mu.Unlock()
	c := u.m[circuit]
	switch {
	case c == nil:
		return ""
	case c.open > 0:
		return fmt.Sprintf("%d %v job(s) queued or running", c.open, c.prio)
	case u.window >= 0:
		if ago := u.now().Sub(c.last); ago < u.window {
			return fmt.Sprintf("%v work %v ago, due again (kept for %v)", c.prio, ago.Round(time.Second), u.window)
		}
	}
	return ""
}

// Urgent says why the parameters of circuitID must not be evicted for
// other work, "" when nothing keeps them: CRITICAL or HIGH jobs of that
// circuit queued or running, or one within Config.UrgentWindow (such work
// comes again: a WinningPoSt every epoch, a WindowPoSt deadline every 30
// minutes). Install it as the parameter cache's keep rule
// (srs.Cache.KeepWhile); it takes only a leaf lock.
func (e *Engine) Urgent(circuitID string) string { return e.urgent.reason(circuitID) }
