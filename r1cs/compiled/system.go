package compiled

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-project/cuzk/r1cs"
)

// MaxCoeffs is the most distinct coefficients a system may have: a
// coefficient index is a uint16.
const MaxCoeffs = 1 << 16

// Coefficient indices every system shares.
const (
	CoeffOne      = 0 // 1
	CoeffMinusOne = 1 // −1
)

// Matrix is A, B or C in compressed sparse rows. Row r's entries are
// Col[RowPtr[r]:RowPtr[r+1]] with coefficients Coeffs[Coeff[k]]. Column i
// is input i, column NumInputs+j is aux j. The terms a row was given for one
// variable are summed (as ProvingAssignment sums them), sums of zero are
// dropped, and a row's entries are sorted by column, each column once.
type Matrix struct {
	RowPtr []uint32 // Rows+1 offsets
	Col    []uint32
	Coeff  []uint16 // index into System.Coeffs
}

// NNZ is the number of entries.
func (m *Matrix) NNZ() int { return len(m.Col) }

// System is a circuit's constraint system, recorded without values.
//
// Its slices may live in memory outside the Go heap (an anonymous mapping
// after Compile, the file's mapping after Open) and are read-only; Close
// releases that memory. A System that is not closed keeps it until the
// process exits.
type System struct {
	NumInputs, NumAux, NumConstraints int // constraints include bellperson's per-input rows (r1cs.Finalize)

	Coeffs  []fr.Element // deduplicated, Montgomery form (gnark's); Coeffs[0] = 1, Coeffs[1] = −1
	A, B, C Matrix

	// ADensityAux, BDensityInput and BDensityAux are exactly the densities
	// a ProvingAssignment of the same circuit tracks.
	ADensityAux, BDensityInput, BDensityAux *r1cs.Bitmap

	// Digest is the sha256 of the canonical encoding (see Write).
	Digest [32]byte

	closeOnce sync.Once
	release   func()
	pages     []byte                 // the file mapping behind the slices (Open), for DropPages
	onDrop    atomic.Pointer[func()] // OnDropPages's f until DropPages calls it
}

// DropPages lets the operating system take back the memory of a System
// opened from its file (Open maps it), once a device holds its own copy of
// the matrices: the pages are read from the file again when next touched
// (a CPU evaluation, another device's upload). A System built in memory
// (Compile) or read into the heap is unchanged.
func (s *System) DropPages() {
	if len(s.pages) == 0 {
		return
	}
	dropPages(s.pages)
	s.dropped()
}

// MappedBytes is the size of the file mapping behind the system's arrays
// (Open on unix): memory outside the Go heap that the process's resident
// size shows while the pages are touched. 0 for a System built in memory
// or read into the heap.
func (s *System) MappedBytes() uint64 { return uint64(len(s.pages)) }

// Bytes is the size of the system's arrays: the matrices, coefficients
// and densities. A System built in memory (Compile) holds them outside the
// Go heap until Close; one opened from its file (Open) maps them
// (MappedBytes).
func (s *System) Bytes() uint64 {
	n := uint64(len(s.Coeffs)) * fr.Bytes
	for _, m := range s.matrices() {
		n += 4*uint64(len(m.RowPtr)+len(m.Col)) + 2*uint64(len(m.Coeff))
	}
	for _, d := range []*r1cs.Bitmap{s.ADensityAux, s.BDensityInput, s.BDensityAux} {
		if d != nil {
			n += 8 * uint64(len(d.Words))
		}
	}
	return n
}

// OnDropPages has f called once, when the mapping's pages first go: at
// the first DropPages or at Close (whoever counts MappedBytes stops
// counting them there). A System with no mapping never calls it.
func (s *System) OnDropPages(f func()) { s.onDrop.Store(&f) }

// dropped calls OnDropPages's f if it has not been called.
func (s *System) dropped() {
	if f := s.onDrop.Swap(nil); f != nil {
		(*f)()
	}
}

// NumColumns is the number of variables, inputs and aux.
func (s *System) NumColumns() int { return s.NumInputs + s.NumAux }

// Shape is the system's size as an r1cs capacity hint.
func (s *System) Shape() r1cs.Shape {
	return r1cs.Shape{Inputs: s.NumInputs, Aux: s.NumAux, Constraints: s.NumConstraints}
}

// Close releases the memory behind the matrices and densities. The System
// and every slice taken from it must not be used afterwards (its fields are
// cleared, so a later use fails on an empty slice rather than unmapped
// memory). Close is idempotent.
func (s *System) Close() error {
	s.closeOnce.Do(func() {
		if s.release != nil {
			s.release()
		}
		if len(s.pages) > 0 {
			s.dropped()
		}
		s.pages = nil
		s.A, s.B, s.C = Matrix{}, Matrix{}, Matrix{}
		s.ADensityAux, s.BDensityInput, s.BDensityAux = nil, nil, nil
		s.Coeffs = nil
	})
	return nil
}

// Errors callers branch on; returned wrapped with what failed.
var (
	// ErrTooManyCoeffs: the circuit needs more than MaxCoeffs distinct
	// coefficients.
	ErrTooManyCoeffs = errors.New("too many distinct coefficients")
	// ErrMalformed: an encoded system's structure is wrong (sizes, order,
	// ranges, non-canonical values).
	ErrMalformed = errors.New("malformed constraint system")
	// ErrVersion: an encoding of another layout version.
	ErrVersion = errors.New("unsupported constraint system version")
	// ErrDigestMismatch: the content's sha256 is not the header's digest.
	ErrDigestMismatch = errors.New("digest mismatch")
	// ErrBadWitness: a witness or output vector of the wrong length.
	ErrBadWitness = errors.New("witness does not fit the system")
)

func malformed(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrMalformed, fmt.Sprintf(format, args...))
}
