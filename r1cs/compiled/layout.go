package compiled

import (
	"encoding/binary"
	"unsafe"
)

// The canonical encoding, every integer little-endian:
//
//	header (128 bytes)
//	  0  magic "CUZKR1CS"
//	  8  version (uint32) = 1, then 4 zero bytes
//	 16  NumInputs, NumAux, NumConstraints, len(Coeffs) (uint64 each)
//	 48  nnz of A, B, C (uint64 each)
//	 72  24 zero bytes
//	 96  digest: sha256 of the whole encoding with these 32 bytes zero
//	sections, each starting at a multiple of 64 and zero-padded to one:
//	  Coeffs: 32 bytes each, the canonical value (not Montgomery) little-endian
//	  A.RowPtr (uint32 × rows+1), A.Col (uint32 × nnz), A.Coeff (uint16 × nnz)
//	  the same for B, then C
//	  ADensityAux (uint64 words × ⌈NumAux/64⌉), BDensityInput (⌈NumInputs/64⌉),
//	  BDensityAux (⌈NumAux/64⌉); bit i of a density is bit i%64 of word i/64,
//	  bits past the count zero
//
// The sections are aligned so that a little-endian host reads the arrays in
// place from a mapping of the file.
const (
	magic         = "CUZKR1CS"
	version       = 1
	headerSize    = 128
	digestOffset  = 96
	sectionAlign  = 64
	coeffBytes    = 32
	maxCount      = 1<<32 - 1 // rows, columns and nnz fit uint32
	numMatrices   = 3
	numDensities  = 3
	numSections   = 1 + 3*numMatrices + numDensities
	sectionCoeffs = 0
)

// counts are the header's sizes.
type counts struct {
	inputs, aux, rows, coeffs uint64
	nnz                       [numMatrices]uint64
}

type section struct{ off, size int }

// layout is where each section lies: coefficients, then per matrix row
// pointers, columns, coefficient indices, then the three densities.
type layout struct {
	sec  [numSections]section
	size int
}

func (l *layout) rowPtr(m int) section  { return l.sec[1+3*m] }
func (l *layout) col(m int) section     { return l.sec[2+3*m] }
func (l *layout) coeff(m int) section   { return l.sec[3+3*m] }
func (l *layout) density(d int) section { return l.sec[1+3*numMatrices+d] }

// layoutOf places the sections of a system of counts n, which must have
// passed check (so that no size overflows a uint64).
func layoutOf(n counts) (layout, error) {
	var l layout
	var sizes [numSections]uint64
	sizes[sectionCoeffs] = n.coeffs * coeffBytes
	for m := range numMatrices {
		sizes[1+3*m] = (n.rows + 1) * 4
		sizes[2+3*m] = n.nnz[m] * 4
		sizes[3+3*m] = n.nnz[m] * 2
	}
	sizes[1+3*numMatrices] = wordsFor(n.aux) * 8
	sizes[2+3*numMatrices] = wordsFor(n.inputs) * 8
	sizes[3+3*numMatrices] = wordsFor(n.aux) * 8
	off := uint64(headerSize)
	var total uint64
	for i, size := range sizes {
		total = off + size
		l.sec[i] = section{int(off), int(size)}
		off = (total + sectionAlign - 1) &^ (sectionAlign - 1)
	}
	if off > uint64(maxInt) {
		return layout{}, malformed("%d bytes do not fit this platform", off)
	}
	l.size = int(off)
	return l, nil
}

const maxInt = int(^uint(0) >> 1)

func wordsFor(bits uint64) uint64 { return (bits + 63) / 64 }

func (n counts) check() error {
	switch {
	case n.inputs < 1:
		return malformed("no inputs (ONE is input 0)")
	case n.inputs > maxCount || n.aux > maxCount || n.inputs+n.aux > maxCount:
		return malformed("%d inputs + %d aux exceed 2³² − 1 columns", n.inputs, n.aux)
	case n.rows >= maxCount:
		return malformed("%d rows exceed 2³² − 2", n.rows)
	case n.coeffs < 2 || n.coeffs > MaxCoeffs:
		return malformed("%d coefficients, want 2 to %d", n.coeffs, MaxCoeffs)
	}
	for m, nnz := range n.nnz {
		if nnz > maxCount {
			return malformed("matrix %c: %d entries exceed 2³² − 1", 'A'+m, nnz)
		}
	}
	return nil
}

func (s *System) counts() counts {
	return counts{
		inputs: uint64(s.NumInputs), aux: uint64(s.NumAux), rows: uint64(s.NumConstraints),
		coeffs: uint64(len(s.Coeffs)),
		nnz:    [numMatrices]uint64{uint64(s.A.NNZ()), uint64(s.B.NNZ()), uint64(s.C.NNZ())},
	}
}

func putHeader(b *[headerSize]byte, n counts, d [32]byte) {
	*b = [headerSize]byte{}
	copy(b[0:8], magic)
	le := binary.LittleEndian
	le.PutUint32(b[8:], version)
	for i, v := range []uint64{n.inputs, n.aux, n.rows, n.coeffs, n.nnz[0], n.nnz[1], n.nnz[2]} {
		le.PutUint64(b[16+8*i:], v)
	}
	copy(b[digestOffset:], d[:])
}

// nativeLE reports a little-endian host: arrays are then the encoding's
// bytes as they are.
var nativeLE = func() bool {
	x := uint16(1)
	return *(*byte)(unsafe.Pointer(&x)) == 1
}()

func (s *System) matrices() [numMatrices]*Matrix { return [numMatrices]*Matrix{&s.A, &s.B, &s.C} }

func (s *System) densities() [numDensities]*[]uint64 {
	return [numDensities]*[]uint64{&s.ADensityAux.Words, &s.BDensityInput.Words, &s.BDensityAux.Words}
}
