package engine

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"hash/maphash"
	"io"
	"time"
	"unicode/utf8"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-project/cuzk/timeline"
)

// Submit accepts req and returns its job id and its queue position (the
// number of unfinished jobs that will be served before it; 0 = next). A
// request whose RequestID is already known (a job not yet pruned) joins
// that job: once the job is planned, the same id and the job's queue
// position are returned, or the error that rejected the first request; no
// work is added. Joining needs the same content (every field but the id
// and the priority): another request under a used id is rejected with
// ErrInvalidRequest, never given the first one's proof. A job that ended
// FAILED or CANCELLED is not joined: the request starts a new job under
// its id (Curio retries a failed task under the same id). A malformed
// request returns an error wrapping ErrInvalidRequest. The request's byte
// slices are kept, not copied: the caller must not modify them afterwards.
//
// Submit validates the request, registers its job under its id, plans it
// and enqueues its units. A job whose plan fails ends through conclude,
// as every job does, uncounted (it was never accepted), and its id is
// free again.
func (e *Engine) Submit(ctx context.Context, r Request) (jobID string, queuePos int, err error) {
	req := &r
	prio, err := validate(req)
	if err != nil {
		return "", 0, err
	}
	id, content, err := identify(req)
	if err != nil {
		return "", 0, err
	}
	j, existing, err := e.register(id, content, prio, req.Kind)
	if err != nil {
		return "", 0, err
	}
	if existing != nil {
		return e.join(ctx, existing)
	}
	plan, err := e.plan(ctx, req)
	if err != nil {
		e.reject(j, err)
		return "", 0, err
	}
	return e.enqueue(j, plan)
}

// validate checks what Submit can check without the planner and returns
// the job's priority (the kind's default when the request leaves it
// unspecified).
func validate(req *Request) (Priority, error) {
	if !req.Kind.Valid() {
		return 0, fmt.Errorf("%w: unknown proof kind %d", ErrInvalidRequest, req.Kind)
	}
	prio := req.Priority
	if prio == PriorityUnspecified {
		prio = DefaultPriority(req.Kind)
	}
	if prio < PriorityLow || prio > PriorityCritical {
		return 0, fmt.Errorf("%w: unknown priority %d", ErrInvalidRequest, req.Priority)
	}
	return prio, checkRequestID(req.RequestID)
}

// identify returns the job id of req (its RequestID, or a random one) and
// the hash of its content (0 without a RequestID: such a job is never
// joined).
func identify(req *Request) (id string, content uint64, err error) {
	if req.RequestID != "" {
		return req.RequestID, req.content(), nil
	}
	var b [12]byte
	if _, err := io.ReadFull(rand.Reader, b[:]); err != nil {
		return "", 0, fmt.Errorf("engine: job id: %w", err)
	}
	return hex.EncodeToString(b[:]), 0, nil
}

// register enters a new job under id, in the planning state, so that a
// concurrent duplicate joins it. When id names a job that can be joined,
// it returns that job as existing instead (an error if its content
// differs).
func (e *Engine) register(id string, content uint64, prio Priority, kind ProofKind) (j, existing *job, err error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return nil, nil, ErrClosed
	}
	if o, ok := e.jobs[id]; ok && !o.retryable() {
		if o.content != content {
			return nil, nil, fmt.Errorf("%w: request id %q is in use by a different request", ErrInvalidRequest, id)
		}
		return nil, o, nil
	}
	e.seq++
	jctx, jcancel := context.WithCancel(e.ctx)
	j = &job{
		id: id, seq: e.seq, kind: kind, priority: prio, content: content,
		submitted: time.Now(), ctx: jctx, cancel: jcancel,
		done: make(chan struct{}), planned: make(chan struct{}),
	}
	j.clock.last = j.submitted
	e.jobs[id] = j
	return j, nil, nil
}

// reject ends j, whose plan failed: it was never accepted, so it is not
// counted, leaves no timeline events and frees its id; a joiner gets err.
func (e *Engine) reject(j *job, err error) {
	e.mu.Lock()
	if e.jobs[j.id] == j { // a retry may have taken the id after a Cancel
		delete(e.jobs, j.id)
	}
	e.mu.Unlock()
	e.conclude(j, StatusFailed, nil, err, false) // a concurrent Cancel may have ended it
	j.planErr = err
	close(j.planned)
}

// enqueue gives the planned job j its plan and queues its units. The
// units wait in the queue without parameters: the dispatcher acquires
// them when it starts the job's first unit (admission).
func (e *Engine) enqueue(j *job, plan *Plan) (string, int, error) {
	j.mu.Lock()
	j.plan = plan
	if j.priority >= PriorityHigh && j.state != stateDone {
		j.urgent = true
		e.urgent.begin(plan.CircuitID, j.priority)
	}
	j.live = len(plan.Partitions)
	j.asm = NewAssembler(len(plan.Partitions))
	j.inputs = make([][]fr.Element, len(plan.Partitions))
	copy(j.inputs, plan.PublicInputs)
	j.mu.Unlock()
	e.rec.Record(timeline.JobSubmit, j.id, -1, -1, -1)

	e.mu.Lock()
	if e.closed {
		e.mu.Unlock()
		e.end(j, StatusCancelled, nil, ErrClosed)
		j.planErr = ErrClosed
		close(j.planned)
		return "", 0, ErrClosed
	}
	pos := e.queuePosition(j)
	e.mu.Unlock()
	j.mu.Lock()
	if j.state == statePlanning { // a concurrent Cancel may have ended it
		j.state = stateQueued
	}
	j.mu.Unlock()
	close(j.planned)
	for i, p := range plan.Partitions {
		e.queue(e.synthQ, &unit{job: j, key: unitKey{j.priority, j.seq, i}, part: p})
	}
	return j.id, pos, nil
}

// join answers a Submit whose request id names the existing job j: when j
// is planned, with j's id and queue position, or with the error that
// rejected j's request (then j is gone and the id is free again).
func (e *Engine) join(ctx context.Context, j *job) (string, int, error) {
	select {
	case <-j.planned:
	case <-ctx.Done():
		return "", 0, ctx.Err()
	}
	if j.planErr != nil {
		return "", 0, j.planErr
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	return j.id, e.queuePosition(j), nil
}

// retryable reports whether j ended FAILED or CANCELLED, so that a new
// request under its id starts over instead of getting that result back.
func (j *job) retryable() bool {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.state == stateDone && (j.result.Status == StatusFailed || j.result.Status == StatusCancelled)
}

// queuePosition counts unfinished jobs served before j. Called with e.mu
// held.
func (e *Engine) queuePosition(j *job) int {
	me := unitKey{j.priority, j.seq, 0}
	n := 0
	for _, o := range e.jobs {
		if o == j {
			continue
		}
		o.mu.Lock()
		done := o.state == stateDone
		o.mu.Unlock()
		if !done && (unitKey{o.priority, o.seq, 0}).less(me) {
			n++
		}
	}
	return n
}

// plan asks the planner and checks what it returned.
func (e *Engine) plan(ctx context.Context, req *Request) (p *Plan, err error) {
	defer func() {
		if r := recover(); r != nil {
			p, err = nil, fmt.Errorf("%w: planner panicked: %v", ErrInvalidRequest, r)
		}
	}()
	p, err = e.cfg.Planner.Plan(ctx, req)
	if err != nil {
		return nil, err
	}
	if err := e.admissible(p); err != nil {
		return nil, err
	}
	if err := e.checkPlan(p, req.Kind); err != nil {
		return nil, err
	}
	return p, nil
}

// admissible sets p's reservations for the engine's devices
// (DeviceReserves, the one place they are set), refuses it where a
// partition does not fit in the budget beside its parameters
// (Config.ParamsBytes), then where its parameters can never be had
// (Config.ParamsAvailable).
func (e *Engine) admissible(p *Plan) error {
	if p == nil {
		return nil
	}
	e.deviceReservations(p)
	if e.cfg.ParamsBytes != nil {
		if err := FitsBesideParams(p, e.cfg.ParamsBytes(p.CircuitID), e.budget.Limit()); err != nil {
			return err
		}
	}
	if e.cfg.ParamsAvailable != nil {
		return e.cfg.ParamsAvailable(p.CircuitID)
	}
	return nil
}

// checkPlan rejects a plan the engine cannot run: no partitions, no
// verifier, inputs or reservations that do not fit.
func (e *Engine) checkPlan(p *Plan, kind ProofKind) error {
	switch {
	case p == nil || len(p.Partitions) == 0:
		return fmt.Errorf("engine: planner returned no partitions for a %v request", kind)
	case p.Verify == nil:
		return fmt.Errorf("engine: plan for %q has no verifier", p.CircuitID)
	case p.PublicInputs != nil && len(p.PublicInputs) != len(p.Partitions):
		return fmt.Errorf("engine: plan for %q has %d input sets for %d partitions",
			p.CircuitID, len(p.PublicInputs), len(p.Partitions))
	}
	for i, part := range p.Partitions {
		if part.Synthesize == nil {
			return fmt.Errorf("engine: plan for %q: partition %d has no synthesizer", p.CircuitID, i)
		}
		if limit := e.unitLimit(); part.Reserve > limit {
			// It could never run: refused at submit, not failed on
			// every retry.
			return fmt.Errorf("%w: %q partition %d needs %d bytes, more than the whole memory budget (%d, CRITICAL headroom excluded)",
				ErrNoMemory, p.CircuitID, i, part.Reserve, limit)
		}
		if part.ReserveABC > part.Reserve {
			return fmt.Errorf("engine: plan for %q: partition %d releases %d bytes after Run of %d reserved",
				p.CircuitID, i, part.ReserveABC, part.Reserve)
		}
	}
	return nil
}

// unitLimit is the largest reservation a unit can ever get: the budget
// less the CRITICAL headroom (at most half the budget, so a CRITICAL unit
// gets no more from the headroom alone).
func (e *Engine) unitLimit() uint64 {
	if e.critBudget == nil {
		return e.budget.Limit()
	}
	return e.budget.Limit() - e.critBudget.Limit()
}

// MaxRequestIDLen bounds a request id (it becomes the job id, in every
// timeline event and log line).
const MaxRequestIDLen = 256

func checkRequestID(id string) error {
	if len(id) > MaxRequestIDLen {
		return fmt.Errorf("%w: request id is %d bytes, at most %d", ErrInvalidRequest, len(id), MaxRequestIDLen)
	}
	for i, r := range id {
		if r < 0x20 || r == 0x7f || r == utf8.RuneError {
			return fmt.Errorf("%w: request id has a control or invalid character at byte %d", ErrInvalidRequest, i)
		}
	}
	return nil
}

// contentSeed keys Request.content; contents are compared only within
// one process.
var contentSeed = maphash.MakeSeed()

// content hashes every field that says what to prove (not RequestID, not
// Priority), each length-prefixed so that no two requests encode alike.
func (r *Request) content() uint64 {
	var h maphash.Hash
	h.SetSeed(contentSeed)
	num := func(v uint64) {
		var b [8]byte
		binary.LittleEndian.PutUint64(b[:], v)
		h.Write(b[:])
	}
	bytes := func(b []byte) {
		num(uint64(len(b)))
		h.Write(b)
	}
	num(uint64(r.Kind))
	num(r.SectorSize)
	num(r.RegisteredProof)
	bytes(r.VanillaProof)
	num(uint64(len(r.VanillaProofs)))
	for _, v := range r.VanillaProofs {
		bytes(v)
	}
	num(r.SectorNumber)
	num(r.MinerID)
	bytes(r.Randomness)
	num(uint64(r.PartitionIndex))
	bytes(r.CommROld)
	bytes(r.CommRNew)
	bytes(r.CommDNew)
	return h.Sum64()
}
