package compiled

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"io"
	"unsafe"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-project/cuzk/r1cs"
)

// Read decodes a system written by Write from r into memory, verifying the
// digest and every structural invariant (Validate). It reads no more than
// the header announces and grows its buffer only as bytes arrive.
func Read(r io.Reader) (*System, error) {
	var hdr [headerSize]byte
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		return nil, fmt.Errorf("compiled: read: header: %w", asMalformed(err))
	}
	n, err := parseHeader(hdr[:])
	if err != nil {
		return nil, fmt.Errorf("compiled: read: %w", err)
	}
	l, err := layoutOf(n)
	if err != nil {
		return nil, fmt.Errorf("compiled: read: %w", err)
	}
	var buf bytes.Buffer
	buf.Write(hdr[:])
	if _, err := buf.ReadFrom(io.LimitReader(r, int64(l.size-headerSize))); err != nil {
		return nil, fmt.Errorf("compiled: read: %w", err)
	}
	if buf.Len() != l.size {
		return nil, fmt.Errorf("compiled: read: %w", malformed("%d bytes, the header announces %d", buf.Len(), l.size))
	}
	s, err := decode(buf.Bytes(), nil)
	if err != nil {
		return nil, fmt.Errorf("compiled: read: %w", err)
	}
	return s, nil
}

func asMalformed(err error) error {
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		return malformed("truncated")
	}
	return err
}

// parseHeader checks the magic, version, reserved bytes and counts.
func parseHeader(b []byte) (counts, error) {
	if len(b) < headerSize {
		return counts{}, malformed("%d bytes, shorter than the %d-byte header", len(b), headerSize)
	}
	if string(b[:8]) != magic {
		return counts{}, malformed("bad magic %q", b[:8])
	}
	le := binary.LittleEndian
	if v := le.Uint32(b[8:]); v != version {
		return counts{}, fmt.Errorf("%w: version %d, this build reads %d", ErrVersion, v, version)
	}
	if !allZero(b[12:16]) || !allZero(b[72:digestOffset]) {
		return counts{}, malformed("reserved header bytes not zero")
	}
	n := counts{
		inputs: le.Uint64(b[16:]), aux: le.Uint64(b[24:]), rows: le.Uint64(b[32:]), coeffs: le.Uint64(b[40:]),
		nnz: [numMatrices]uint64{le.Uint64(b[48:]), le.Uint64(b[56:]), le.Uint64(b[64:])},
	}
	if err := n.check(); err != nil {
		return counts{}, err
	}
	return n, nil
}

func allZero(b []byte) bool {
	for _, x := range b {
		if x != 0 {
			return false
		}
	}
	return true
}

// decode checks b (the whole encoding) and returns a system whose arrays
// are views of b where the host allows it (little-endian, aligned), copies
// otherwise. release, when not nil, becomes the system's Close.
func decode(b []byte, release func()) (*System, error) {
	n, err := parseHeader(b)
	if err != nil {
		return nil, err
	}
	l, err := layoutOf(n)
	if err != nil {
		return nil, err
	}
	if len(b) != l.size {
		return nil, malformed("%d bytes, the header announces %d", len(b), l.size)
	}
	var want [32]byte
	copy(want[:], b[digestOffset:])
	// The digest (sequential) is computed beside the structural checks
	// (parallel); a mismatch is the error reported when both fail.
	got := make(chan [32]byte, 1)
	go func() { got <- digestOf(b) }()
	s, serr := decodeChecked(b, n, l, want, release)
	if d := <-got; d != want {
		return nil, fmt.Errorf("%w: header %x, content %x", ErrDigestMismatch, want, d)
	}
	if serr != nil {
		return nil, serr
	}
	return s, nil
}

// decodeChecked builds the system over b's sections and checks everything
// but the digest.
func decodeChecked(b []byte, n counts, l layout, d [32]byte, release func()) (*System, error) {
	// Padding is part of the canonical form: zero between sections.
	end := headerSize
	for _, sec := range l.sec {
		if !allZero(b[end:sec.off]) {
			return nil, malformed("non-zero padding at byte %d", end)
		}
		end = sec.off + sec.size
	}
	if !allZero(b[end:]) {
		return nil, malformed("non-zero padding at byte %d", end)
	}

	s := &System{NumInputs: int(n.inputs), NumAux: int(n.aux), NumConstraints: int(n.rows), Digest: d, release: release}
	s.Coeffs = make([]fr.Element, n.coeffs)
	cs := l.sec[sectionCoeffs]
	for i := range s.Coeffs {
		var e [coeffBytes]byte
		copy(e[:], b[cs.off+i*coeffBytes:])
		var err error
		if s.Coeffs[i], err = fr.LittleEndian.Element(&e); err != nil {
			return nil, malformed("coefficient %d not canonical (≥ r)", i)
		}
	}
	for m, x := range s.matrices() {
		x.RowPtr = viewLE[uint32](b, l.rowPtr(m))
		x.Col = viewLE[uint32](b, l.col(m))
		x.Coeff = viewLE[uint16](b, l.coeff(m))
	}
	s.ADensityAux = &r1cs.Bitmap{Words: viewLE[uint64](b, l.density(0)), N: s.NumAux}
	s.BDensityInput = &r1cs.Bitmap{Words: viewLE[uint64](b, l.density(1)), N: s.NumInputs}
	s.BDensityAux = &r1cs.Bitmap{Words: viewLE[uint64](b, l.density(2)), N: s.NumAux}
	if err := s.Validate(); err != nil {
		return nil, err
	}
	return s, nil
}

// digestOf hashes an encoding with its digest bytes taken as zero.
func digestOf(b []byte) [32]byte {
	h := sha256.New()
	h.Write(b[:digestOffset])
	h.Write(zeros[:32])
	h.Write(b[digestOffset+32:])
	var d [32]byte
	h.Sum(d[:0])
	return d
}

// viewLE returns section sec of b as []T: b's own memory on a little-endian
// host when aligned, else a decoded copy. The capacity is the length, so an
// append never writes into b.
func viewLE[T uint16 | uint32 | uint64](b []byte, sec section) []T {
	var zero T
	size := int(unsafe.Sizeof(zero))
	n := sec.size / size
	if n == 0 {
		return []T{}
	}
	p := unsafe.Pointer(&b[sec.off])
	if nativeLE && uintptr(p)%uintptr(size) == 0 {
		return unsafe.Slice((*T)(p), n)
	}
	out := make([]T, n)
	for i := range out {
		o := sec.off + i*size
		switch size {
		case 2:
			out[i] = T(binary.LittleEndian.Uint16(b[o:]))
		case 4:
			out[i] = T(binary.LittleEndian.Uint32(b[o:]))
		default:
			out[i] = T(binary.LittleEndian.Uint64(b[o:]))
		}
	}
	return out
}
