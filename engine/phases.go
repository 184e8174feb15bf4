package engine

import (
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/cuzk-project/cuzk/timeline"
)

// PhaseTotal is a phase summed over a device's Runs (or Prepares) of one
// circuit that reported it (DeviceStatus.Phases): Total / Runs is its mean
// per partition of that circuit.
type PhaseTotal struct {
	Circuit string // the plan's CircuitID: a device serves several kinds, each with its own phases
	Name    string
	Total   time.Duration
	Runs    uint64
}

// phaseKey is one circuit's phase.
type phaseKey struct{ circuit, name string }

// phaseTotals sums the phases of a device's Runs, per circuit.
type phaseTotals struct {
	mu sync.Mutex
	m  map[phaseKey]*PhaseTotal
}

func (t *phaseTotals) add(circuit string, phases []timeline.Phase) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.m == nil {
		t.m = map[phaseKey]*PhaseTotal{}
	}
	for _, p := range phases {
		k := phaseKey{circuit, p.Name}
		s := t.m[k]
		if s == nil {
			s = &PhaseTotal{Circuit: circuit, Name: p.Name}
			t.m[k] = s
		}
		s.Total += p.D
		s.Runs++
	}
}

// snapshot lists the totals by circuit, then name.
func (t *phaseTotals) snapshot() []PhaseTotal {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := make([]PhaseTotal, 0, len(t.m))
	for _, s := range t.m {
		out = append(out, *s)
	}
	slices.SortFunc(out, func(a, b PhaseTotal) int {
		if c := strings.Compare(a.Circuit, b.Circuit); c != 0 {
			return c
		}
		return strings.Compare(a.Name, b.Name)
	})
	return out
}
