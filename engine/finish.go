package engine

import (
	"errors"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-project/cuzk/groth16"
	"github.com/cuzk-project/cuzk/timeline"
)

// finish runs Finish, randomizes and encodes the proof, and hands it to
// the job's assembler.
func (e *Engine) finish(dev groth16.Device, di, worker int, u *unit, p groth16.Partial) {
	j, part := u.job, u.key.partition
	if j.ctx.Err() != nil {
		groth16.Discard(dev, p)
		e.retire(u)
		return
	}
	e.rec.Record(timeline.FinishStart, j.id, part, worker, di)
	j.begin(actOther)
	defer j.end(actOther)
	proof, err := safeStep(func() (groth16.Proof, error) {
		sums, err := dev.Finish(e.ctx, p)
		if err == nil && sums == nil {
			err = errors.New("device returned no sums")
		}
		if err != nil {
			return groth16.Proof{}, err
		}
		r, s, err := e.drawRS()
		if err != nil {
			return groth16.Proof{}, err
		}
		return e.cfg.Assemble(&j.params.VK, sums, r, s)
	})
	e.rec.Record(timeline.FinishEnd, j.id, part, worker, di)
	if err != nil {
		e.lostStep(di, u, "finish", err)
		return
	}
	// The unit's memory is free before the job can complete, so a caller
	// woken by the result sees the budget without it.
	u.res.Close()
	u.a = nil
	b := proof.Bytes()
	if !e.deliver(u, b[:]) {
		e.retire(u)
	}
}

func (e *Engine) drawRS() (r, s fr.Element, err error) {
	if e.cfg.Rand == nil {
		return groth16.DrawRS(nil)
	}
	e.randMu.Lock()
	defer e.randMu.Unlock()
	return groth16.DrawRS(e.cfg.Rand)
}
