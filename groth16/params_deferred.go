package groth16

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/bits"
	"os"
	"sync/atomic"

	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"
)

// Query names a proving query of the parameters.
type Query int

const (
	QueryH Query = iota
	QueryL
	QueryA
	QueryBG1
	QueryBG2
	numQueries
)

var queryNames = [numQueries]string{"h", "l", "a", "b_g1", "b_g2"}

func (q Query) String() string {
	if q >= 0 && q < numQueries {
		return queryNames[q]
	}
	return fmt.Sprintf("Query(%d)", int(q))
}

// ErrDeferred reports parameters whose proving queries were left in their
// file (OpenParams) given to code that needs them decoded in memory.
var ErrDeferred = errors.New("the proving queries are not decoded in host memory")

// Deferred is the proving queries of a `.params` file left in the file
// (OpenParams): their counts and offsets are known, their points are
// decoded on request, a range at a time, with the checks ReadParams makes.
// A device that keeps the queries in its own memory (the CUDA device) reads
// them so, and the host never holds a decoded copy. The file must not
// change while the Deferred is in use; each read opens it anew.
type Deferred struct {
	path     string
	chk      pointCheck
	workers  int
	n        [numQueries]int
	off      [numQueries]int64 // file offset of each query's first point
	streamed atomic.Bool
	held     atomic.Int64
}

// Path is the file the queries are read from.
func (d *Deferred) Path() string { return d.path }

// MarkStreamed records that a device reads some of the points from the
// file at every proof (it cannot hold them all), for status reports.
func (d *Deferred) MarkStreamed() { d.streamed.Store(true) }

// Streamed reports whether MarkStreamed was called.
func (d *Deferred) Streamed() bool { return d.streamed.Load() }

// Hold adds n bytes (negative: gives them back) to the host memory held
// on the set's behalf beyond the Params themselves: the page-locked copy of
// part of the file that a device streaming from it keeps (so that a budget
// counting the set counts it too).
func (d *Deferred) Hold(n int64) { d.held.Add(n) }

// Held is the host memory Hold counts.
func (d *Deferred) Held() uint64 { return uint64(max(d.held.Load(), 0)) }

// Len is the number of points of query q.
func (d *Deferred) Len(q Query) int { return d.n[q] }

// Len is the number of points of query q, whether decoded or deferred.
func (p *Params) Len(q Query) int {
	if p.Deferred != nil {
		return p.Deferred.Len(q)
	}
	switch q {
	case QueryH:
		return len(p.H)
	case QueryL:
		return len(p.L)
	case QueryA:
		return len(p.A)
	case QueryBG1:
		return len(p.BG1)
	case QueryBG2:
		return len(p.BG2)
	}
	return 0
}

// OpenParams reads a `.params` file's verifying key (fully checked, as
// ReadParams does) and the layout of its proving queries, leaving their
// points in the file: the result's H, L, A, BG1 and BG2 are empty and
// Deferred reads them. The file's structure (every count against the
// file's size, no trailing bytes) is checked here; its points when read.
func OpenParams(path string, opts ReadOptions) (*Params, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("params: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("params: %w", err)
	}
	p, err := openParams(f, st.Size(), opts)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	p.Deferred.path = path
	return p, nil
}

func openParams(f io.ReaderAt, size int64, opts ReadOptions) (*Params, error) {
	// The verifying key: the six points, ic's count, then ic (as much of
	// it as the file has: the reader names what is missing).
	head := make([]byte, min(size, vkFixedSize+4))
	if err := readAt(f, head, 0, size, "verifying key"); err != nil {
		return nil, err
	}
	vkb := head
	if len(head) == vkFixedSize+4 {
		nic := int64(binary.BigEndian.Uint32(head[vkFixedSize:]))
		vkb = make([]byte, min(size, vkFixedSize+4+nic*G1Size))
		if err := readAt(f, vkb, 0, size, "verifying key"); err != nil {
			return nil, err
		}
	}
	p := &Params{Deferred: &Deferred{workers: opts.workers(), chk: checkCurve}}
	if opts.Checked {
		p.Deferred.chk |= checkSubgroup
	}
	r := reader{file: "params", b: vkb}
	if err := r.verifyingKey(&p.VK, opts.workers()); err != nil {
		return nil, err
	}
	off := int64(len(vkb))
	var cnt [4]byte
	for q := QueryH; q < numQueries; q++ {
		ps := int64(G1Size)
		if q == QueryBG2 {
			ps = G2Size
		}
		if err := readAt(f, cnt[:], off, size, q.String()+" length"); err != nil {
			return nil, err
		}
		n := uint64(binary.BigEndian.Uint32(cnt[:]))
		off += 4
		hi, lo := bits.Mul64(n, uint64(ps))
		if hi != 0 || lo > uint64(size-off) {
			return nil, fmt.Errorf("params: %w: |%s| = %d points (%d bytes each) overruns the file (%d bytes left at offset %d)",
				ErrMalformed, q, n, ps, size-off, off)
		}
		p.Deferred.n[q], p.Deferred.off[q] = int(n), off
		off += int64(lo)
	}
	if off != size {
		return nil, fmt.Errorf("params: %w: %d trailing bytes at offset %d", ErrMalformed, size-off, off)
	}
	if p.Deferred.n[QueryBG1] != p.Deferred.n[QueryBG2] {
		return nil, fmt.Errorf("params: %w: |b_g1| = %d but |b_g2| = %d", ErrMalformed, p.Deferred.n[QueryBG1], p.Deferred.n[QueryBG2])
	}
	return p, nil
}

func readAt(f io.ReaderAt, b []byte, off, size int64, what string) error {
	if off+int64(len(b)) > size {
		return fmt.Errorf("params: %w: truncated at %s (offset %d: need %d bytes, %d left)", ErrMalformed, what, off, len(b), size-off)
	}
	if _, err := f.ReadAt(b, off); err != nil {
		return fmt.Errorf("params: reading %s at offset %d: %w", what, off, err)
	}
	return nil
}

// ReadG1 decodes points start … start+len(dst)−1 of G1 query q (QueryH …
// QueryBG1) into dst. buf is scratch for the raw bytes (at least 96 bytes
// per point; nil or shorter: allocated). A bad point's error is a
// *PointError whose Index is its index in the query.
func (d *Deferred) ReadG1(q Query, start int, dst []bls12381.G1Affine, buf []byte) error {
	if q < QueryH || q > QueryBG1 {
		return fmt.Errorf("params: ReadG1 of %v", q)
	}
	return readPoints(d, q, start, dst, buf, G1Size, decodeG1, bls12381.IsInSubGroupBatchG1, (*bls12381.G1Affine).IsInSubGroup)
}

// ReadG2 is ReadG1 for B_G2 (192 bytes per point of buf).
func (d *Deferred) ReadG2(start int, dst []bls12381.G2Affine, buf []byte) error {
	return readPoints(d, QueryBG2, start, dst, buf, G2Size, decodeG2, bls12381.IsInSubGroupBatchG2, (*bls12381.G2Affine).IsInSubGroup)
}

func readPoints[P any](d *Deferred, q Query, start int, dst []P, buf []byte, size int,
	decode func(*P, []byte, pointCheck) error, inSubgroup func([]P) bool, pointInSubgroup func(*P) bool,
) error {
	if start < 0 || start+len(dst) > d.n[q] {
		return fmt.Errorf("params: %s[%d:%d] is outside its %d points", q, start, start+len(dst), d.n[q])
	}
	nb := len(dst) * size
	if len(buf) < nb {
		buf = make([]byte, nb)
	}
	buf = buf[:nb]
	f, err := os.Open(d.path)
	if err != nil {
		return fmt.Errorf("params: %w", err)
	}
	defer f.Close()
	if _, err := f.ReadAt(buf, d.off[q]+int64(start)*int64(size)); err != nil {
		return fmt.Errorf("params: %s: reading %s[%d:%d]: %w", d.path, q, start, start+len(dst), err)
	}
	err = decodePoints(dst, buf, size, d.chk, d.workers, decode, inSubgroup, pointInSubgroup, "params", q.String())
	var pe *PointError
	if errors.As(err, &pe) {
		pe.Index += start
	}
	if err != nil {
		return fmt.Errorf("%s: %w", d.path, err)
	}
	return nil
}
