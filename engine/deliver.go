package engine

import (
	"fmt"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-project/cuzk/groth16"
)

// deliver inserts a partition proof; the unit that completes the job
// starts the verification of the whole proof, which then ends the job and
// retires the unit. deliver reports whether it took over retiring u.
func (e *Engine) deliver(u *unit, proof []byte) bool {
	j := u.job
	j.mu.Lock()
	if j.state == stateDone {
		j.mu.Unlock()
		return false
	}
	err := j.asm.Insert(u.key.partition, proof)
	var out []byte
	complete := err == nil && j.asm.Complete()
	if complete {
		out, err = j.asm.Assemble()
	}
	inputs, vk := j.inputs, &j.params.VK
	j.mu.Unlock()
	if err != nil {
		e.fail(j, err)
		return false
	}
	if !complete {
		return false
	}
	// Verification is CPU work of the whole job: it never holds up a device
	// worker, even one that finishes inline. The unit stays live (and so
	// the parameters acquired) until it is done.
	e.wg.Add(1)
	go func() {
		defer e.wg.Done()
		defer e.retire(u)
		e.verify(j, out, inputs, vk)
	}()
	return true
}

// verify checks what leaves the engine, the encoded bytes decoded again,
// and ends the job.
func (e *Engine) verify(j *job, out []byte, inputs [][]fr.Element, vk *groth16.VerifyingKey) {
	_, err := safeStep(func() (struct{}, error) {
		proofs, err := groth16.DecodeProofs(out)
		if err != nil {
			return struct{}{}, err
		}
		return struct{}{}, j.plan.Verify(vk, proofs, inputs)
	})
	if err != nil {
		e.fail(j, fmt.Errorf("%w: verification: %w", ErrProofInvalid, err))
		return
	}
	if j.plan.Finalize != nil {
		out, err = safeStep(func() ([]byte, error) { return j.plan.Finalize(j.ctx, vk, out) })
		if err != nil {
			e.fail(j, fmt.Errorf("%w: finalize: %w", ErrProofInvalid, err))
			return
		}
	}
	e.end(j, StatusCompleted, out, nil)
}
