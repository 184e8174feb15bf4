package engine

import (
	"errors"
	"fmt"
	"time"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-project/cuzk/groth16"
	"github.com/cuzk-project/cuzk/r1cs"
	"github.com/cuzk-project/cuzk/timeline"
)

// synthesize runs one unit's synthesis and queues it for a device.
func (e *Engine) synthesize(u *unit, slot int) {
	defer e.wg.Done()
	defer e.freeSlot(slot)
	defer e.cores.give(u.cores)
	j, part := u.job, u.key.partition
	if j.ctx.Err() != nil {
		e.retire(u)
		return
	}
	t0 := time.Now()
	j.markStarted(t0)
	e.rec.Record(timeline.SynthStart, j.id, part, slot, -1)
	j.begin(actSynth)
	a, err := safeStep(func() (*groth16.Assignment, error) { return e.assign(j, &u.part, u.aux) })
	u.aux = nil
	j.end(actSynth)
	e.rec.Record(timeline.SynthEnd, j.id, part, slot, -1)
	j.addSynth(time.Since(t0))
	if err == nil && (a == nil || len(a.Input) == 0) {
		err = errors.New("synthesizer returned no assignment")
	}
	if err != nil {
		e.unitFailed(u, "synthesis", err)
		return
	}
	j.mu.Lock()
	if j.state != stateDone && j.inputs[part] == nil {
		j.inputs[part] = append(a.Input[:0:0], a.Input[1:]...)
	}
	j.mu.Unlock()
	u.a = a
	if e.liveDevices() == 0 {
		e.unitFailed(u, "device", errors.New("no proving device is left (every one was lost)"))
		return
	}
	e.rec.Record(timeline.DevQueue, j.id, part, -1, -1)
	e.queue(e.devQ, u)
}

// assign synthesizes one partition: its witness only when the engine is
// configured so and the plan can (the device evaluates a, b and c), into
// aux where the synthesizer takes it, the prover's assignment otherwise.
func (e *Engine) assign(j *job, part *Partition, aux []fr.Element) (*groth16.Assignment, error) {
	if !e.witnessPath(j.plan, part) {
		return part.Synthesize(j.ctx)
	}
	sys, err := j.plan.System(j.ctx)
	if err != nil {
		return nil, fmt.Errorf("compiled constraint system: %w", err)
	}
	ctx := j.ctx
	if aux != nil {
		ctx = r1cs.WithAux(ctx, aux)
	}
	w, err := part.Witness(ctx)
	if err != nil {
		return nil, err
	}
	return groth16.FromWitness(w, sys)
}

// witnessPath reports whether part of p is synthesized witness-only.
func (e *Engine) witnessPath(p *Plan, part *Partition) bool {
	return e.cfg.WitnessSynthesis && p.System != nil && part.Witness != nil
}

// queue pushes u onto q, or retires it if its job has ended. The check and
// the push happen under the job's lock, and end marks the job done under
// that lock before it empties the queues: so every unit is either removed
// by end or never queued, and a cancelled job's memory comes back at once
// rather than when a busy worker next pops the queue.
func (e *Engine) queue(q *unitQueue, u *unit) {
	j := u.job
	j.mu.Lock()
	ended := j.state == stateDone
	if !ended {
		q.push(u)
	}
	j.mu.Unlock()
	if ended {
		e.retire(u)
	}
}
