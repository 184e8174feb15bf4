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
// devices. Where every device reports its own host workspace
// (HostWorkspace), a partition's ReserveWork is replaced by the largest
// of theirs. With witness-only synthesis on, every partition that takes
// that path (the plan offers System, the partition Witness and a
// WitnessReserve) reserves its WitnessReserve instead of Reserve, and
// nothing after Run, when every device evaluates witness-only assignments
// in its own memory (WitnessEvaluator) and, where a device decides by
// size (WitnessShapes), at the partition's; otherwise, where every device
// evaluates them into its host workspace (WorkspaceEvaluator), it reserves
// no a, b and c (Reserve less ReserveABC), and after Prepare only what the
// device staged (StagedWitness). An admission check ahead of
// Submit applies it to see what Submit will reserve.
func DeviceReserves(p *Plan, witness bool, devices []groth16.Device) {
	ws, wsOK := workspaces(devices)
	if wsOK {
		for i := range p.Partitions {
			part := &p.Partitions[i]
			if part.ReserveWork == 0 || part.Rows == 0 || part.ReserveWork > part.Reserve {
				continue
			}
			var w uint64
			for _, d := range ws {
				w = max(w, d.HostWorkspace(part.Rows, part.Vars))
			}
			part.Reserve += w - part.ReserveWork
			part.ReserveWork = w
		}
	}
	if !witness || p.System == nil {
		return
	}
	evaluate, into := devicesEvaluate(devices), wsOK && intoWorkspace(devices)
	for i := range p.Partitions {
		part := &p.Partitions[i]
		if part.Witness == nil {
			continue
		}
		switch {
		case evaluate && part.WitnessReserve > 0 && shapesEvaluate(devices, part.Rows, part.Vars):
			part.Reserve, part.ReserveABC, part.stagedReserved = part.WitnessReserve, 0, true
		case into && part.ReserveABC <= part.Reserve:
			part.Reserve -= part.ReserveABC
			part.ReserveABC, part.stagedReserved = 0, true
		}
	}
}

// shapesEvaluate reports whether every device that decides by size
// (WitnessShapes) takes a witness-only partition of rows constraints over
// vars variables through its own evaluation; true where the shape is not
// known (rows 0).
func shapesEvaluate(devices []groth16.Device, rows, vars int) bool {
	if rows == 0 {
		return true
	}
	for _, d := range devices {
		if w, ok := d.(WitnessShapes); ok && !w.EvaluatesWitnessOf(rows, vars) {
			return false
		}
	}
	return true
}

// intoWorkspace reports whether every device (nil ones skipped, at least
// one) evaluates the classic path's a and b into its host workspace.
func intoWorkspace(devices []groth16.Device) bool {
	return everyDevice(devices, func(d groth16.Device) bool {
		w, ok := d.(WorkspaceEvaluator)
		return ok && w.EvaluatesIntoWorkspace()
	})
}

// everyDevice reports whether f holds for every device, nil ones skipped,
// and there is at least one.
func everyDevice(devices []groth16.Device, f func(groth16.Device) bool) bool {
	n := 0
	for _, d := range devices {
		if d == nil {
			continue
		}
		if !f(d) {
			return false
		}
		n++
	}
	return n > 0
}

// workspaces returns the devices (nil ones skipped) as HostWorkspace when
// every one of them is one (at least one).
func workspaces(devices []groth16.Device) ([]HostWorkspace, bool) {
	var out []HostWorkspace
	for _, d := range devices {
		if d == nil {
			continue
		}
		w, ok := d.(HostWorkspace)
		if !ok {
			return nil, false
		}
		out = append(out, w)
	}
	return out, len(out) > 0
}

// devicesEvaluate reports whether every device (nil ones skipped, at
// least one) evaluates witness-only assignments in its own memory.
func devicesEvaluate(devices []groth16.Device) bool {
	return everyDevice(devices, func(d groth16.Device) bool {
		w, ok := d.(WitnessEvaluator)
		return ok && w.EvaluatesWitness()
	})
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
