package groth16

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/bits"
	"os"
	"runtime"
	"sync"

	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"
)

// The `.params` layout (bellperson src/groth16/params.rs,
// Parameters::write): no header; alpha_g1, beta_g1, beta_g2, gamma_g2, delta_g1, delta_g2
// (864 bytes); then six vectors ic, h, l, a, b_g1, b_g2, each a u32
// big-endian count followed by that many uncompressed points. The first
// six points and ic are the verifying key (the `.vk` file).

// vkFixedSize is the size of the six fixed points.
const vkFixedSize = 3*G1Size + 3*G2Size // α₁ β₁ δ₁ + β₂ γ₂ δ₂ = 864 bytes

// ErrMalformed reports a file whose structure (lengths, sizes) is wrong.
var ErrMalformed = errors.New("malformed file")

// ErrParamsMismatch reports parameters that do not belong to a circuit.
var ErrParamsMismatch = errors.New("parameters do not match the circuit")

// ErrUnknownCircuit reports a circuit id under which no parameters are
// known. It is declared here, below both, so that the engine (which asks a
// ParamsSource by id) and the srs cache (which registers ids) share one
// sentinel without either importing the other: engine.ErrUnknownCircuit
// and srs.ErrUnknownCircuit are this value.
var ErrUnknownCircuit = errors.New("unknown circuit id")

// ReadOptions tune ReadParams and DecodeParams.
type ReadOptions struct {
	// Checked verifies that every point of h, l, a, b_g1 and b_g2 lies in
	// the prime-order subgroup (bellperson's checked read). Unchecked
	// reading still rejects non-canonical coordinates, bad flags, points
	// off the curve (as blst's unchecked deserialization does), identities
	// and malformed lengths. The verifying-key part is always fully
	// checked, as bellperson's VerifyingKey::read does.
	Checked bool
	// Workers bounds the decoding goroutines; 0 means runtime.NumCPU().
	Workers int
	// NoMmap reads the file into memory instead of mapping it.
	NoMmap bool
}

func (o ReadOptions) workers() int {
	if o.Workers > 0 {
		return o.Workers
	}
	return runtime.NumCPU()
}

// ReadParams reads a `.params` file. It maps the file into memory (falling
// back to reading it) and decodes the vectors in parallel.
func ReadParams(path string, opts ReadOptions) (*Params, error) {
	b, release, mapped, err := mapFile(path, opts.NoMmap)
	if err != nil {
		return nil, fmt.Errorf("params: %w", err)
	}
	defer release()
	p, err := decodeParams(reader{file: "params", b: b, mapped: mapped}, opts)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return p, nil
}

// DecodeParams decodes a `.params` image held in memory. The result shares
// no memory with b.
func DecodeParams(b []byte, opts ReadOptions) (*Params, error) {
	return decodeParams(reader{file: "params", b: b}, opts)
}

func decodeParams(r reader, opts ReadOptions) (*Params, error) {
	p := new(Params)
	if err := r.verifyingKey(&p.VK, opts.workers()); err != nil {
		return nil, err
	}
	chk := checkCurve
	if opts.Checked {
		chk |= checkSubgroup
	}
	w := opts.workers()
	var err error
	if p.H, err = r.g1Vector("h", chk, w); err != nil {
		return nil, err
	}
	if p.L, err = r.g1Vector("l", chk, w); err != nil {
		return nil, err
	}
	if p.A, err = r.g1Vector("a", chk, w); err != nil {
		return nil, err
	}
	if p.BG1, err = r.g1Vector("b_g1", chk, w); err != nil {
		return nil, err
	}
	if p.BG2, err = r.g2Vector("b_g2", chk, w); err != nil {
		return nil, err
	}
	if err := r.end(); err != nil {
		return nil, err
	}
	if len(p.BG1) != len(p.BG2) {
		return nil, fmt.Errorf("params: %w: |b_g1| = %d but |b_g2| = %d", ErrMalformed, len(p.BG1), len(p.BG2))
	}
	return p, nil
}

// reader walks an in-memory file, never reading past its end and never
// allocating for a count before checking it against the remaining bytes.
type reader struct {
	file string
	b    []byte
	off  int
	// mapped: b is mapFile's mapping of the file; the pages of each point
	// vector go once it is decoded (dropMapped), so that a 47 GB file
	// read does not hold its mapping's pages beside the decoded points.
	mapped bool
}

func (r *reader) remaining() int { return len(r.b) - r.off }

func (r *reader) need(what string, n int) error {
	if r.remaining() < n {
		return fmt.Errorf("%s: %w: truncated at %s (offset %d: need %d bytes, %d left)",
			r.file, ErrMalformed, what, r.off, n, r.remaining())
	}
	return nil
}

func (r *reader) end() error {
	if r.remaining() != 0 {
		return fmt.Errorf("%s: %w: %d trailing bytes at offset %d", r.file, ErrMalformed, r.remaining(), r.off)
	}
	return nil
}

func (r *reader) g1(name string, p *bls12381.G1Affine, chk pointCheck) error {
	if err := r.need(name, G1Size); err != nil {
		return err
	}
	if err := decodeG1(p, r.b[r.off:], chk); err != nil {
		return &PointError{File: r.file, Vector: name, Index: -1, Err: err}
	}
	r.off += G1Size
	return nil
}

func (r *reader) g2(name string, p *bls12381.G2Affine, chk pointCheck) error {
	if err := r.need(name, G2Size); err != nil {
		return err
	}
	if err := decodeG2(p, r.b[r.off:], chk); err != nil {
		return &PointError{File: r.file, Vector: name, Index: -1, Err: err}
	}
	r.off += G2Size
	return nil
}

// count reads a vector's u32 length and checks that its points fit.
func (r *reader) count(name string, size int) (int, error) {
	if err := r.need(name+" length", 4); err != nil {
		return 0, err
	}
	n := binary.BigEndian.Uint32(r.b[r.off:])
	r.off += 4
	hi, lo := bits.Mul64(uint64(n), uint64(size))
	if hi != 0 || lo > uint64(r.remaining()) {
		return 0, fmt.Errorf("%s: %w: |%s| = %d points (%d bytes each) overruns the file (%d bytes left at offset %d)",
			r.file, ErrMalformed, name, n, size, r.remaining(), r.off)
	}
	return int(n), nil
}

// verifyingKey decodes the six fixed points and ic with full checks; only
// ic rejects the identity (bellperson's VerifyingKey::read).
func (r *reader) verifyingKey(vk *VerifyingKey, workers int) error {
	full := checkCurve | checkSubgroup | allowInfinity
	if err := r.g1("alpha_g1", &vk.AlphaG1, full); err != nil {
		return err
	}
	if err := r.g1("beta_g1", &vk.BetaG1, full); err != nil {
		return err
	}
	if err := r.g2("beta_g2", &vk.BetaG2, full); err != nil {
		return err
	}
	if err := r.g2("gamma_g2", &vk.GammaG2, full); err != nil {
		return err
	}
	if err := r.g1("delta_g1", &vk.DeltaG1, full); err != nil {
		return err
	}
	if err := r.g2("delta_g2", &vk.DeltaG2, full); err != nil {
		return err
	}
	var err error
	vk.IC, err = r.g1Vector("ic", checkCurve|checkSubgroup, workers)
	return err
}

func (r *reader) g1Vector(name string, chk pointCheck, workers int) ([]bls12381.G1Affine, error) {
	return decodeVector(r, name, G1Size, chk, workers, decodeG1, bls12381.IsInSubGroupBatchG1,
		(*bls12381.G1Affine).IsInSubGroup)
}

func (r *reader) g2Vector(name string, chk pointCheck, workers int) ([]bls12381.G2Affine, error) {
	return decodeVector(r, name, G2Size, chk, workers, decodeG2, bls12381.IsInSubGroupBatchG2,
		(*bls12381.G2Affine).IsInSubGroup)
}

// decodeVector reads one length-prefixed vector of points of size bytes
// each (decodePoints).
func decodeVector[P any](r *reader, name string, size int, chk pointCheck, workers int,
	decode func(*P, []byte, pointCheck) error, inSubgroup func([]P) bool, pointInSubgroup func(*P) bool,
) ([]P, error) {
	n, err := r.count(name, size)
	if err != nil {
		return nil, err
	}
	out := make([]P, n)
	if err := decodePoints(out, r.b[r.off:r.off+n*size], size, chk, workers, decode, inSubgroup, pointInSubgroup, r.file, name); err != nil {
		return nil, err
	}
	if r.mapped {
		dropMapped(r.b, r.off, r.off+n*size)
	}
	r.off += n * size
	return out, nil
}

// decodePoints decodes len(out) points of size bytes each from src in
// parallel. With checkSubgroup, each chunk is tested in a batch and
// rescanned point by point only when the batch fails, so that the error
// names the first bad index (an index into out).
func decodePoints[P any](out []P, src []byte, size int, chk pointCheck, workers int,
	decode func(*P, []byte, pointCheck) error, inSubgroup func([]P) bool, pointInSubgroup func(*P) bool,
	file, name string,
) error {
	var sub func(lo, hi int) int
	if chk&checkSubgroup != 0 {
		sub = func(lo, hi int) int {
			if inSubgroup(out[lo:hi]) {
				return -1
			}
			for i := lo; i < hi; i++ {
				if !pointInSubgroup(&out[i]) {
					return i
				}
			}
			return -1
		}
	}
	dchk := chk &^ checkSubgroup
	return parallelDecode(len(out), workers, func(i int) error {
		return decode(&out[i], src[i*size:], dchk)
	}, sub, file, name)
}

// parallelDecode runs dec(i) for i in [0, n) in chunks over workers
// goroutines, then sub(lo, hi) on each decoded chunk (nil: none), which
// returns the index of a point outside the subgroup or −1. Subgroup
// membership is checked per chunk with gnark's batch test (64 random
// subset sums, each checked; a bad point escapes with probability
// ≤ 2^−64), and a failing chunk is rescanned point by point to name the
// index. The failure reported is the lowest-index decoding error, or else
// the lowest-index subgroup error.
func parallelDecode(n, workers int, dec func(i int) error, sub func(lo, hi int) int, file, vector string) error {
	const minChunk = 1024
	if workers < 1 {
		workers = runtime.NumCPU()
	}
	chunks := max(1, min(workers, (n+minChunk-1)/minChunk))
	decErrs := make([]*PointError, chunks)
	subErrs := make([]*PointError, chunks)
	run := func(c int) {
		lo, hi := n*c/chunks, n*(c+1)/chunks
		for i := lo; i < hi; i++ {
			if err := dec(i); err != nil {
				decErrs[c] = &PointError{File: file, Vector: vector, Index: i, Err: err}
				return
			}
		}
		if sub != nil && hi > lo {
			if i := sub(lo, hi); i >= 0 {
				subErrs[c] = &PointError{File: file, Vector: vector, Index: i, Err: ErrNotInSubgroup}
			}
		}
	}
	if chunks == 1 {
		run(0)
	} else {
		var wg sync.WaitGroup
		for c := 0; c < chunks; c++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				run(c)
			}()
		}
		wg.Wait()
	}
	for _, errs := range [][]*PointError{decErrs, subErrs} {
		for _, e := range errs {
			if e != nil {
				return e
			}
		}
	}
	return nil
}

// WriteTo writes p in bellperson's `.params` layout.
func (p *Params) WriteTo(w io.Writer) (int64, error) {
	bw := bufio.NewWriterSize(w, 1<<20)
	cw := &countingWriter{w: bw}
	writeVK(cw, &p.VK)
	writeG1Vector(cw, p.H)
	writeG1Vector(cw, p.L)
	writeG1Vector(cw, p.A)
	writeG1Vector(cw, p.BG1)
	writeG2Vector(cw, p.BG2)
	if cw.err == nil {
		cw.err = bw.Flush()
	}
	return cw.n, cw.err
}

// WriteParams writes p to a new file at path.
func WriteParams(path string, p *Params) error {
	return writeFile(path, p.WriteTo)
}

// MarshalBinary returns the `.params` image of p.
func (p *Params) MarshalBinary() ([]byte, error) {
	var buf sliceWriter
	_, err := p.WriteTo(&buf)
	return buf, err
}

func writeFile(path string, write func(io.Writer) (int64, error)) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := write(f); err != nil {
		f.Close()
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}

type sliceWriter []byte

func (s *sliceWriter) Write(b []byte) (int, error) { *s = append(*s, b...); return len(b), nil }

// countingWriter remembers the first error so writers can be chained.
type countingWriter struct {
	w   io.Writer
	n   int64
	err error
}

func (c *countingWriter) Write(b []byte) (int, error) {
	if c.err != nil {
		return 0, c.err
	}
	n, err := c.w.Write(b)
	c.n += int64(n)
	c.err = err
	return n, err
}

func writeVK(w io.Writer, vk *VerifyingKey) {
	var b [G2Size]byte
	EncodeG1(b[:], &vk.AlphaG1)
	w.Write(b[:G1Size])
	EncodeG1(b[:], &vk.BetaG1)
	w.Write(b[:G1Size])
	EncodeG2(b[:], &vk.BetaG2)
	w.Write(b[:])
	EncodeG2(b[:], &vk.GammaG2)
	w.Write(b[:])
	EncodeG1(b[:], &vk.DeltaG1)
	w.Write(b[:G1Size])
	EncodeG2(b[:], &vk.DeltaG2)
	w.Write(b[:])
	writeG1Vector(w, vk.IC)
}

func writeLen(w io.Writer, n int) {
	var b [4]byte
	binary.BigEndian.PutUint32(b[:], uint32(n))
	w.Write(b[:])
}

// encodeChunk is how many points are encoded (in parallel) per write.
const encodeChunk = 1 << 14

func writeG1Vector(w io.Writer, v []bls12381.G1Affine) {
	writeLen(w, len(v))
	buf := make([]byte, min(len(v), encodeChunk)*G1Size)
	for lo := 0; lo < len(v); lo += encodeChunk {
		hi := min(lo+encodeChunk, len(v))
		parallelFor(hi-lo, func(i int) { EncodeG1(buf[i*G1Size:], &v[lo+i]) })
		w.Write(buf[:(hi-lo)*G1Size])
	}
}

func writeG2Vector(w io.Writer, v []bls12381.G2Affine) {
	writeLen(w, len(v))
	buf := make([]byte, min(len(v), encodeChunk)*G2Size)
	for lo := 0; lo < len(v); lo += encodeChunk {
		hi := min(lo+encodeChunk, len(v))
		parallelFor(hi-lo, func(i int) { EncodeG2(buf[i*G2Size:], &v[lo+i]) })
		w.Write(buf[:(hi-lo)*G2Size])
	}
}

// parallelFor runs f(i) for i in [0, n) over runtime.NumCPU() goroutines,
// at least 256 indices each.
func parallelFor(n int, f func(i int)) {
	parallelRange(n, 256, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			f(i)
		}
	})
}
