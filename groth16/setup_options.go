package groth16

import (
	"sync"
	"time"

	"github.com/cuzk-project/cuzk/r1cs"
)

// SetupOptions tune WriteSetup. The zero value is the CPU setup.
type SetupOptions struct {
	// FixedBase computes the fixed-base multiplications of every query
	// (ic, h, l, a, b_g1 in turn; b_g2 beside them, on a goroutine of its
	// own); nil: CPUFixedBase.
	FixedBase FixedBase
	// Shape, when set, is the circuit's size: the counting pass (one
	// synthesis) is skipped, and a circuit that differs from it fails.
	Shape *r1cs.Shape
	// Chunk is the number of scalars per fixed-base call and per write
	// (points of one query are held in two chunks, the encoded bytes in
	// one); 0: 2^22.
	Chunk int
	// Progress, when set, is called at the start and end of every phase
	// and after every chunk written, never concurrently.
	Progress func(SetupProgress)
}

// DefaultSetupChunk is SetupOptions.Chunk's default: 2^22 scalars, a
// G1 chunk of 384 MiB of points.
const DefaultSetupChunk = 1 << 22

func (o *SetupOptions) chunk() int {
	if o.Chunk > 0 {
		return o.Chunk
	}
	return DefaultSetupChunk
}

// SetupProgress reports how far a setup phase is: Done of Total rows
// (evaluate), variables (scalars) or points (the queries). A phase reports
// Done = 0 when it begins and End (with Done = Total) when it ends.
type SetupProgress struct {
	Phase       string
	Done, Total int
	End         bool
}

// SetupReport times a setup's phases, in the order they began:
//
//	count     the counting synthesis (absent with SetupOptions.Shape)
//	evaluate  the Lagrange basis at τ and the synthesis accumulating u, v, w
//	scalars   ic and l from u, v, w; a and b filtered by density
//	ic        the verifying key
//	h, l, a, b_g1, b_g2  the queries; b_g2 runs beside the others
type SetupReport struct {
	Phases []SetupPhase
	Total  time.Duration
	Bytes  int64 // the .params file (0 for an in-memory setup)
}

// SetupPhase is one phase of a setup. For a query, FixedBase is the time
// spent in its multiplications and Write in encoding and writing its
// points; the two overlap (a chunk is written while the next is
// multiplied), so Wall is about the larger of them.
type SetupPhase struct {
	Name             string
	N                int
	Wall             time.Duration
	FixedBase, Write time.Duration
}

// setupRecorder collects a report and forwards progress, serialized. A nil
// recorder records nothing.
type setupRecorder struct {
	mu       sync.Mutex
	phases   []*SetupPhase
	progress func(SetupProgress)
}

func newSetupRecorder(progress func(SetupProgress)) *setupRecorder {
	return &setupRecorder{progress: progress}
}

// phaseRecorder is one phase of a recorder (nil-safe).
type phaseRecorder struct {
	r     *setupRecorder
	p     *SetupPhase
	start time.Time
}

func (r *setupRecorder) begin(name string, n int) *phaseRecorder {
	if r == nil {
		return nil
	}
	p := &SetupPhase{Name: name, N: n}
	r.mu.Lock()
	r.phases = append(r.phases, p)
	r.mu.Unlock()
	ph := &phaseRecorder{r: r, p: p, start: time.Now()}
	ph.done(0)
	return ph
}

// done reports k of the phase's N done.
func (ph *phaseRecorder) done(k int) { ph.report(k, false) }

func (ph *phaseRecorder) report(k int, end bool) {
	if ph == nil || ph.r.progress == nil {
		return
	}
	ph.r.mu.Lock()
	defer ph.r.mu.Unlock()
	ph.r.progress(SetupProgress{Phase: ph.p.Name, Done: k, Total: ph.p.N, End: end})
}

// add counts time spent multiplying or writing.
func (ph *phaseRecorder) add(fixedBase, write time.Duration) {
	if ph == nil {
		return
	}
	ph.r.mu.Lock()
	ph.p.FixedBase += fixedBase
	ph.p.Write += write
	ph.r.mu.Unlock()
}

func (ph *phaseRecorder) end() {
	if ph == nil {
		return
	}
	ph.r.mu.Lock()
	ph.p.Wall = time.Since(ph.start)
	ph.r.mu.Unlock()
	ph.report(ph.p.N, true)
}

// report copies the phases recorded so far.
func (r *setupRecorder) report() *SetupReport {
	r.mu.Lock()
	defer r.mu.Unlock()
	rep := &SetupReport{Phases: make([]SetupPhase, len(r.phases))}
	for i, p := range r.phases {
		rep.Phases[i] = *p
	}
	return rep
}
