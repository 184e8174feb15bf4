package engine

import (
	"errors"
	"fmt"

	"github.com/cuzk-project/cuzk/groth16"
)

// ErrBadPartition rejects a partition proof the assembler cannot take:
// wrong size, index out of range, or a duplicate.
var ErrBadPartition = errors.New("bad partition proof")

// Assembler collects one job's partition proofs, in any order, and
// concatenates them in partition order. It is not safe for concurrent use.
type Assembler struct {
	parts [][]byte
	have  int
}

// NewAssembler expects n partitions.
func NewAssembler(n int) *Assembler { return &Assembler{parts: make([][]byte, n)} }

// Insert takes partition i's encoded proof (exactly groth16.ProofSize
// bytes). The bytes are copied.
func (a *Assembler) Insert(i int, proof []byte) error {
	if i < 0 || i >= len(a.parts) {
		return fmt.Errorf("%w: partition %d out of range [0, %d)", ErrBadPartition, i, len(a.parts))
	}
	if len(proof) != groth16.ProofSize {
		return fmt.Errorf("%w: partition %d is %d bytes, want %d", ErrBadPartition, i, len(proof), groth16.ProofSize)
	}
	if a.parts[i] != nil {
		return fmt.Errorf("%w: partition %d inserted twice", ErrBadPartition, i)
	}
	a.parts[i] = append([]byte(nil), proof...)
	a.have++
	return nil
}

// Complete reports whether every partition is in.
func (a *Assembler) Complete() bool { return a.have == len(a.parts) }

// Missing counts partitions not yet inserted.
func (a *Assembler) Missing() int { return len(a.parts) - a.have }

// Assemble concatenates the proofs in partition order; it fails until
// every partition is in.
func (a *Assembler) Assemble() ([]byte, error) {
	if !a.Complete() {
		return nil, fmt.Errorf("assembler: %d of %d partitions missing", a.Missing(), len(a.parts))
	}
	out := make([]byte, 0, len(a.parts)*groth16.ProofSize)
	for _, p := range a.parts {
		out = append(out, p...)
	}
	return out, nil
}
