package engine

import (
	"slices"
	"strings"
	"sync"
	"time"
)

// KernelPhases is implemented by a device's Partial that timed the parts
// of its Run (the CUDA device: upload, a·b evaluation, NTTs, each MSM,
// with CUDA events). Phases may overlap (they run on several streams);
// each is the span of its own work.
type KernelPhases interface {
	KernelPhases() []Phase
}

// PreparePhases is implemented by a device's Prepared that timed the
// parts of its Prepare (the CUDA device: the pinned allocations, a and b
// evaluated into the staging, the splits), on the host, one after the
// other.
type PreparePhases interface {
	PreparePhases() []Phase
}

// Phase is one timed part of a Run or a Prepare.
type Phase struct {
	Name string
	D    time.Duration
}

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

func (t *phaseTotals) add(phases []Phase) {
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
