package engine

import (
	"context"
	"sync"
	"time"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-project/cuzk/groth16"
	"github.com/cuzk-project/cuzk/memory"
)

type jobState uint8

const (
	statePlanning jobState = iota // being planned by Submit
	stateQueued                   // units queued, none synthesizing yet
	stateRunning                  // at least one unit started
	stateDone                     // result set
)

// job is one accepted request. The request itself is not kept: the plan's
// closures hold what synthesis needs, shared by every unit, never copied
// per unit (a PoRep C1 output is about 51 MB: ten copies of it per job in
// flight would sit outside the memory budget), and dropped when the last
// unit retires.
type job struct {
	id        string
	seq       uint64
	kind      ProofKind
	priority  Priority
	submitted time.Time

	// ctx is cancelled when the job ends (completed, failed, cancelled) or
	// the engine closes; units check it at every stage boundary.
	ctx    context.Context
	cancel context.CancelFunc
	done   chan struct{} // closed once result is final
	// planned is closed when Submit has planned the job; planErr, set
	// before, is why it was not accepted (nil: accepted). A duplicate
	// Submit waits for it and answers the same.
	planned chan struct{}
	planErr error
	// content identifies the request (all but its id and priority): a
	// duplicate request id must come with the same content.
	content uint64

	mu       sync.Mutex
	state    jobState
	urgent   bool // counted in Engine.urgent until it ends
	result   Result
	finished time.Time
	plan     *Plan
	// params are acquired when the dispatcher starts the job's first unit
	// (admission) and held until its last unit retires.
	params     *groth16.Params
	release    func() // gives the parameters back; called when live reaches 0
	live       int    // units not yet retired
	dispatched int    // units that got their memory reservation
	asm        *Assembler
	inputs     [][]fr.Element
	started    time.Time // first synthesis start
	clock      jobClock  // started at submit; see jobclock.go
	srsLoad    time.Duration
	synth      time.Duration
	gpu        time.Duration
}

// unit is one partition on its way through the pipeline.
type unit struct {
	job  *job
	key  unitKey
	part Partition
	res  *memory.Reservation
	a    *groth16.Assignment
	// claim: a kept staging's share res joined, until u has prepared
	// (claim.go).
	claim *groth16.Claim
	// aux: a dead aux vector for u's synthesis to fill, its share joined
	// to res (auxpool.go).
	aux []fr.Element
	// ahead: u reserved all but the staging another unit's Run will hand
	// over, and its Prepare waits for it; handing: a unit awaits the
	// staging u's Run will keep (ahead.go).
	ahead, handing *handover
	// inflight: counted in Engine.inflight (from its reservation until it
	// retires).
	inflight bool
	cores    int // of Engine.cores, taken for its synthesis
}

// finalResult copies the result of a finished job (done is closed).
func (j *job) finalResult() Result {
	j.mu.Lock()
	defer j.mu.Unlock()
	r := j.result
	r.Proof = append([]byte(nil), r.Proof...)
	return r
}

// admitted reports whether j holds its parameters.
func (j *job) admitted() bool {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.params != nil
}

func (j *job) markStarted(now time.Time) {
	j.mu.Lock()
	if j.state == stateQueued {
		j.state = stateRunning
		j.started = now
	}
	j.mu.Unlock()
}

func (j *job) addSynth(d time.Duration) {
	j.mu.Lock()
	j.synth += d
	j.mu.Unlock()
}

func (j *job) addGPU(d time.Duration) {
	j.mu.Lock()
	j.gpu += d
	j.mu.Unlock()
}

func (p Priority) String() string {
	switch p {
	case PriorityLow:
		return "LOW"
	case PriorityNormal:
		return "NORMAL"
	case PriorityHigh:
		return "HIGH"
	case PriorityCritical:
		return "CRITICAL"
	}
	return "UNSPECIFIED"
}

func (s Status) String() string {
	switch s {
	case StatusCompleted:
		return "COMPLETED"
	case StatusFailed:
		return "FAILED"
	case StatusCancelled:
		return "CANCELLED"
	case StatusTimeout:
		return "TIMEOUT"
	}
	return "UNKNOWN"
}
