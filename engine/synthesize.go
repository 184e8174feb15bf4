package engine

import (
	"errors"
	"fmt"
	"time"

	"github.com/cuzk-project/cuzk/groth16"
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
	a, err := safeStep(func() (*groth16.Assignment, error) { return e.assign(j, &u.part) })
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
// configured so and the plan can (the device evaluates a, b and c), the
// prover's assignment otherwise.
func (e *Engine) assign(j *job, part *Partition) (*groth16.Assignment, error) {
	if !e.witnessPath(j.plan, part) {
		return part.Synthesize(j.ctx)
	}
	sys, err := j.plan.System(j.ctx)
	if err != nil {
		return nil, fmt.Errorf("compiled constraint system: %w", err)
	}
	w, err := part.Witness(j.ctx)
	if err != nil {
		return nil, err
	}
	return groth16.FromWitness(w, sys)
}

// witnessPath reports whether part of p is synthesized witness-only.
func (e *Engine) witnessPath(p *Plan, part *Partition) bool {
	return e.cfg.WitnessSynthesis && p.System != nil && part.Witness != nil
}

// deviceReservations sets p's reservations for the engine's devices
// (DeviceReserves).
func (e *Engine) deviceReservations(p *Plan) {
	DeviceReserves(p, e.cfg.WitnessSynthesis, append(e.cfg.Devices, e.cfg.CriticalDevices...))
}

// DeviceReserves is what Submit does to a plan's reservations for its
// devices (their groth16.Profile). Where every device reports its own
// host workspace (HostWorkspace), a partition's ReserveWork is replaced by
// the largest of theirs. With witness-only synthesis on, every partition
// that takes that path (the plan offers System, the partition Witness and
// a WitnessReserve) reserves its WitnessReserve instead of Reserve, and
// nothing after Run, when every device evaluates witness-only assignments
// of the partition's size in its own memory (EvaluatesWitness); otherwise,
// where every device evaluates them into its host workspace
// (EvaluatesIntoWorkspace), it reserves no a, b and c (Reserve less
// ReserveABC), and after Prepare only what the device staged
// (PrepareReport.StagedBytes). An admission check ahead of Submit applies
// it to see what Submit will reserve.
func DeviceReserves(p *Plan, witness bool, devices []groth16.Device) {
	profs := profilesOf(devices)
	ws := len(profs) > 0 && every(profs, func(d groth16.Profile) bool { return d.HostWorkspace != nil })
	if ws {
		for i := range p.Partitions {
			part := &p.Partitions[i]
			if part.ReserveWork == 0 || part.Rows == 0 || part.ReserveWork > part.Reserve {
				continue
			}
			var w uint64
			for _, d := range profs {
				w = max(w, d.HostWorkspace(part.Rows, part.Vars))
			}
			part.Reserve += w - part.ReserveWork
			part.ReserveWork = w
		}
	}
	if !witness || p.System == nil {
		return
	}
	into := ws && every(profs, func(d groth16.Profile) bool { return d.EvaluatesIntoWorkspace })
	for i := range p.Partitions {
		part := &p.Partitions[i]
		if part.Witness == nil {
			continue
		}
		switch {
		case part.WitnessReserve > 0 && evaluateWitness(profs, part.Rows, part.Vars):
			part.Reserve, part.ReserveABC, part.stagedReserved = part.WitnessReserve, 0, true
		case into && part.ReserveABC <= part.Reserve:
			part.Reserve -= part.ReserveABC
			part.ReserveABC, part.stagedReserved = 0, true
		}
	}
}

// profilesOf is the profiles of devices, nil ones skipped.
func profilesOf(devices []groth16.Device) []groth16.Profile {
	out := make([]groth16.Profile, 0, len(devices))
	for _, d := range devices {
		if d != nil {
			out = append(out, d.Profile())
		}
	}
	return out
}

// evaluateWitness reports whether every device (at least one) evaluates a
// witness-only partition of rows constraints over vars variables in its
// own memory (rows 0: of a size not known).
func evaluateWitness(profs []groth16.Profile, rows, vars int) bool {
	return len(profs) > 0 && every(profs, func(d groth16.Profile) bool {
		return d.EvaluatesWitness != nil && d.EvaluatesWitness(rows, vars)
	})
}

// every reports whether f holds for every profile.
func every(profs []groth16.Profile, f func(groth16.Profile) bool) bool {
	for _, d := range profs {
		if !f(d) {
			return false
		}
	}
	return true
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
