package compiled

import (
	"bufio"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"io"
	"unsafe"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// Write writes s in the canonical encoding (see the layout in layout.go:
// header with counts and digest, coefficient table, A, B, C, densities).
// It recomputes the digest first and refuses a system whose digest is not
// the one it was compiled or opened with (it was modified since).
func Write(w io.Writer, s *System) error {
	if err := s.checkShape(); err != nil {
		return err
	}
	if d := digest(s); d != s.Digest {
		return fmt.Errorf("compiled: write: %w: content %x, system's digest %x (modified since it was compiled or opened?)",
			ErrDigestMismatch, d, s.Digest)
	}
	bw := bufio.NewWriterSize(w, 1<<20)
	if err := encode(bw, s, s.Digest); err != nil {
		return fmt.Errorf("compiled: write: %w", err)
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("compiled: write: %w", err)
	}
	return nil
}

// digest is the sha256 of s's encoding with the digest bytes zero.
func digest(s *System) [32]byte {
	h := sha256.New()
	_ = encode(h, s, [32]byte{}) // a hash does not fail
	var d [32]byte
	h.Sum(d[:0])
	return d
}

// encode writes s's canonical bytes with digest d in the header.
func encode(w io.Writer, s *System, d [32]byte) error {
	n := s.counts()
	l, err := layoutOf(n)
	if err != nil {
		return err
	}
	var hdr [headerSize]byte
	putHeader(&hdr, n, d)
	e := encoder{w: w, off: 0}
	e.write(hdr[:])
	e.pad(l.sec[sectionCoeffs].off)
	var buf [coeffBytes]byte
	for i := range s.Coeffs {
		fr.LittleEndian.PutElement(&buf, s.Coeffs[i])
		e.write(buf[:])
	}
	for m, x := range s.matrices() {
		e.pad(l.rowPtr(m).off)
		writeLE(&e, x.RowPtr)
		e.pad(l.col(m).off)
		writeLE(&e, x.Col)
		e.pad(l.coeff(m).off)
		writeLE(&e, x.Coeff)
	}
	for i, words := range s.densities() {
		e.pad(l.density(i).off)
		writeLE(&e, *words)
	}
	e.pad(l.size)
	return e.err
}

// encoder tracks the offset and the first error.
type encoder struct {
	w   io.Writer
	off int
	err error
}

func (e *encoder) write(b []byte) {
	if e.err != nil {
		return
	}
	n, err := e.w.Write(b)
	e.off += n
	e.err = err
}

var zeros [sectionAlign]byte

// pad writes zeros up to off.
func (e *encoder) pad(off int) {
	for e.err == nil && e.off < off {
		e.write(zeros[:min(off-e.off, len(zeros))])
	}
}

// writeLE writes v little-endian: its own bytes on a little-endian host,
// else through a buffer.
func writeLE[T uint16 | uint32 | uint64](e *encoder, v []T) {
	if len(v) == 0 {
		return
	}
	size := int(unsafe.Sizeof(v[0]))
	if nativeLE {
		e.write(unsafe.Slice((*byte)(unsafe.Pointer(&v[0])), len(v)*size))
		return
	}
	var buf [4096]byte
	for len(v) > 0 && e.err == nil {
		k := min(len(v), len(buf)/size)
		for i, x := range v[:k] {
			switch size {
			case 2:
				binary.LittleEndian.PutUint16(buf[i*2:], uint16(x))
			case 4:
				binary.LittleEndian.PutUint32(buf[i*4:], uint32(x))
			default:
				binary.LittleEndian.PutUint64(buf[i*8:], uint64(x))
			}
		}
		e.write(buf[:k*size])
		v = v[k:]
	}
}

// checkShape checks that the slices have the lengths the counts imply (what
// encode needs to write a decodable file).
func (s *System) checkShape() error {
	if s.ADensityAux == nil || s.BDensityInput == nil || s.BDensityAux == nil {
		return fmt.Errorf("%w: densities missing (closed?)", ErrMalformed)
	}
	if err := s.counts().check(); err != nil {
		return err
	}
	for i, m := range s.matrices() {
		if len(m.RowPtr) != s.NumConstraints+1 || len(m.Coeff) != len(m.Col) {
			return malformed("matrix %c: %d row pointers for %d rows, %d columns, %d coefficients",
				'A'+i, len(m.RowPtr), s.NumConstraints, len(m.Col), len(m.Coeff))
		}
	}
	for i, d := range []struct {
		b  *[]uint64
		n  int
		bm int
	}{{&s.ADensityAux.Words, s.NumAux, s.ADensityAux.N}, {&s.BDensityInput.Words, s.NumInputs, s.BDensityInput.N},
		{&s.BDensityAux.Words, s.NumAux, s.BDensityAux.N}} {
		if d.bm != d.n || uint64(len(*d.b)) != wordsFor(uint64(d.n)) {
			return malformed("density %s: %d bits in %d words, want %d bits", densityNames[i], d.bm, len(*d.b), d.n)
		}
	}
	return nil
}

var densityNames = [numDensities]string{"a_aux", "b_input", "b_aux"}
