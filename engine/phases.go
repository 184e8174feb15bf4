package engine

import (
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/cuzk-project/cuzk/timeline"
)

// PhaseTotal is a phase summed over a device's Runs that reported it
// (DeviceStatus.Phases): Total / Runs is its mean per partition.
type PhaseTotal struct {
	Name  string
	Total time.Duration
	Runs  uint64
}

// phaseTotals sums the phases of a device's Runs.
type phaseTotals struct {
	mu sync.Mutex
	m  map[string]*PhaseTotal
}

func (t *phaseTotals) add(phases []timeline.Phase) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.m == nil {
		t.m = map[string]*PhaseTotal{}
	}
	for _, p := range phases {
		s := t.m[p.Name]
		if s == nil {
			s = &PhaseTotal{Name: p.Name}
			t.m[p.Name] = s
		}
		s.Total += p.D
		s.Runs++
	}
}

// snapshot lists the totals by name.
func (t *phaseTotals) snapshot() []PhaseTotal {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := make([]PhaseTotal, 0, len(t.m))
	for _, s := range t.m {
		out = append(out, *s)
	}
	slices.SortFunc(out, func(a, b PhaseTotal) int { return strings.Compare(a.Name, b.Name) })
	return out
}
