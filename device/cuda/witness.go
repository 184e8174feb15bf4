package cuda

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"runtime"
	"time"
	"unsafe"

	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-project/cuzk/device/cpu"
	"github.com/cuzk-project/cuzk/device/internal/split"
	"github.com/cuzk-project/cuzk/groth16"
	"github.com/cuzk-project/cuzk/r1cs"
	"github.com/cuzk-project/cuzk/r1cs/compiled"
)

// ErrBadMatrices rejects a MatrixSet or a witness that does not fit it.
var ErrBadMatrices = errors.New("cuda: bad matrices or witness")

// CSR is one matrix in compressed sparse rows over the variables
// w = [input ‖ aux] (input i is column i, aux j is column NumInputs+j):
// row r's entries are RowPtr[r] .. RowPtr[r+1]-1, entry k the coefficient
// Coeffs[Coeff[k]] at column Col[k]. Its fields are those of
// r1cs/compiled.Matrix, so a compiled matrix converts: CSR(sys.A).
type CSR struct {
	RowPtr []uint32
	Col    []uint32
	Coeff  []uint16
}

// MatrixSet is what UploadMatrices takes: A and B of a circuit shape (C is
// not needed on the device: c = a∘b), the coefficient table (Montgomery;
// Coeffs[0] = 1 and Coeffs[1] = −1, which the device adds or subtracts
// without a product) and ProvingAssignment's densities. Its fields are
// those of r1cs/compiled.System.
type MatrixSet struct {
	NumInputs, NumAux, NumConstraints int
	Coeffs                            []fr.Element
	A, B                              CSR

	ADensityAux, BDensityInput, BDensityAux *r1cs.Bitmap
}

// Compact is an aux vector in the compact form (cuzk.h, cuzk_witness):
// value j is 0 or 1 where bit j of Small is set (1 where bit j of Ones is
// too), else the next of Others, which holds the other values in index
// order. Bit j is bit j%32 of word j/32. Its fields are those of
// r1cs/compiled.Compact.
type Compact struct {
	N      int
	Small  []uint32
	Ones   []uint32
	Others []fr.Element
}

// Matrices is a MatrixSet resident on one device (UploadMatrices); Close
// frees it. A Run on it holds the device's lock, so Close waits for it.
type Matrices struct {
	d                    *Device
	h                    uintptr
	nrows, ninputs, naux int
	nq                   [3]int // bases of L, A, B
	bytes                uint64
}

// Bytes is the device memory the matrices and their gather lists hold.
func (m *Matrices) Bytes() uint64 { return m.bytes }

// Close frees the device memory; it is safe to call twice.
func (m *Matrices) Close() error {
	if m == nil {
		return nil
	}
	m.d.mu.Lock()
	defer m.d.mu.Unlock()
	m.free()
	return nil
}

// free frees the device memory, the device's lock held.
func (m *Matrices) free() {
	if m.h != 0 {
		wlib.matricesFree(m.h)
		m.h = 0
	}
}

// WitnessTiming is a witness run's time: Timing's phases (CUDA events) as
// Run reports them (H2D: the witness upload and the compact form's
// expansion), a = A·w and b = B·w (SpMV), the split of the L, A and B
// scalars (Split), and BG2, the host's B_G2 MSM where the device did not
// compute it (MSMB2 then 0).
type WitnessTiming struct {
	Timing
	SpMV, Split, BG2 time.Duration
}

// cCSR mirrors cuzk_csr; cWitness mirrors cuzk_witness.
type cCSR struct {
	RowPtr, Col, Coeff unsafe.Pointer
	NNZ                uint64
}

type cWitness struct {
	Input       unsafe.Pointer
	NInput      uint64
	Aux         unsafe.Pointer
	Small, Ones unsafe.Pointer
	Others      unsafe.Pointer
	NOthers     uint64
	NAux        uint64
	Lgn, _pad   uint32
}

// wlib holds the library's witness functions (registered by load).
var wlib struct {
	matricesUpload func(dev int32, a, b *cCSR, coeffs unsafe.Pointer, ncoeffs uint32, nrows, ninputs, naux uint64, aAux, bIn, bAux unsafe.Pointer) uintptr
	matricesFree   func(m uintptr)
	matricesBytes  func(m uintptr, nq unsafe.Pointer) uint64
	runWitness     func(ctx, srs, m uintptr, w *cWitness, res *cResult) int32
	splitRead      func(ctx uintptr, q int32, ntail *uint64, ones, scalars, idx unsafe.Pointer) int32
	spmv           func(ctx, m uintptr, w *cWitness, a, b unsafe.Pointer) int32
}

func registerWitness(reg func(fn any, name string)) {
	reg(&wlib.matricesUpload, "cuzk_matrices_upload")
	reg(&wlib.matricesFree, "cuzk_matrices_free")
	reg(&wlib.matricesBytes, "cuzk_matrices_bytes")
	reg(&wlib.runWitness, "cuzk_run_witness")
	reg(&wlib.splitRead, "cuzk_witness_split_read")
	reg(&wlib.spmv, "cuzk_spmv")
}

// checkBitmap checks that b is a bitmap over exactly n variables.
func checkBitmap(name string, b *r1cs.Bitmap, n int) error {
	if b == nil {
		return fmt.Errorf("%w: %s is missing", ErrBadMatrices, name)
	}
	if b.N != n || len(b.Words) != (n+63)/64 {
		return fmt.Errorf("%w: %s has %d bits (%d words), want %d", ErrBadMatrices, name, b.N, len(b.Words), n)
	}
	if r := n % 64; r != 0 && b.Words[len(b.Words)-1]>>uint(r) != 0 {
		return fmt.Errorf("%w: %s has bits set beyond its %d variables", ErrBadMatrices, name, n)
	}
	return nil
}

func checkCSR(name string, m *CSR, nrows int) error {
	if len(m.RowPtr) != nrows+1 {
		return fmt.Errorf("%w: %s: %d row offsets for %d rows", ErrBadMatrices, name, len(m.RowPtr), nrows)
	}
	nnz := len(m.Col)
	if len(m.Coeff) != nnz || nnz > math.MaxUint32 {
		return fmt.Errorf("%w: %s: %d columns and %d coefficients", ErrBadMatrices, name, nnz, len(m.Coeff))
	}
	if m.RowPtr[0] != 0 || int(m.RowPtr[nrows]) != nnz {
		return fmt.Errorf("%w: %s: row offsets run from %d to %d over %d entries", ErrBadMatrices, name,
			m.RowPtr[0], m.RowPtr[nrows], nnz)
	}
	return nil
}

// check makes the checks that cost no walk over the entries; the library
// checks every entry on the device (columns, coefficient indices, row
// offsets that decrease).
func (s *MatrixSet) check() error {
	if s == nil {
		return fmt.Errorf("%w: nil matrix set", ErrBadMatrices)
	}
	n := s.NumConstraints
	if n < 0 || n > maxDomain || s.NumInputs < 0 || s.NumAux < 0 || s.NumInputs+s.NumAux >= 1<<31 {
		return fmt.Errorf("%w: %d rows over %d inputs and %d aux", ErrBadMatrices, n, s.NumInputs, s.NumAux)
	}
	if len(s.Coeffs) < 2 || len(s.Coeffs) > math.MaxUint16+1 {
		return fmt.Errorf("%w: %d coefficients", ErrBadMatrices, len(s.Coeffs))
	}
	one := fr.One()
	var minus fr.Element
	minus.Neg(&one)
	if s.Coeffs[0] != one || s.Coeffs[1] != minus {
		return fmt.Errorf("%w: coefficient 0 must be 1 and coefficient 1 must be -1", ErrBadMatrices)
	}
	if err := checkCSR("A", &s.A, n); err != nil {
		return err
	}
	if err := checkCSR("B", &s.B, n); err != nil {
		return err
	}
	if err := checkBitmap("A-aux density", s.ADensityAux, s.NumAux); err != nil {
		return err
	}
	if err := checkBitmap("B-input density", s.BDensityInput, s.NumInputs); err != nil {
		return err
	}
	return checkBitmap("B-aux density", s.BDensityAux, s.NumAux)
}

// words32 is b's words as the library's 32-bit words (little-endian: bit i
// of the 64-bit words is bit i%32 of word i/32).
func words32(b *r1cs.Bitmap) unsafe.Pointer {
	if len(b.Words) == 0 {
		return nil
	}
	return unsafe.Pointer(&b.Words[0])
}

func u32ptr(s []uint32) unsafe.Pointer {
	if len(s) == 0 {
		return nil
	}
	return unsafe.Pointer(&s[0])
}

func (c *CSR) c() cCSR {
	r := cCSR{RowPtr: u32ptr(c.RowPtr), Col: u32ptr(c.Col), NNZ: uint64(len(c.Col))}
	if len(c.Coeff) > 0 {
		r.Coeff = unsafe.Pointer(&c.Coeff[0])
	}
	return r
}

// UploadMatrices makes s resident on the device: A and B, the coefficient
// table, and the gather lists of the L, A and B queries built on the device
// from the densities. The host keeps nothing of it.
func (d *Device) UploadMatrices(s *MatrixSet) (*Matrices, error) {
	if err := s.check(); err != nil {
		return nil, err
	}
	// The upload runs on a stream of its own, not the context's: Runs go on
	// beside it.
	if err := d.lock(); err != nil {
		return nil, err
	}
	d.mu.Unlock()
	a, b := s.A.c(), s.B.c()
	h := wlib.matricesUpload(int32(d.index), &a, &b, frptr(s.Coeffs), uint32(len(s.Coeffs)), uint64(s.NumConstraints),
		uint64(s.NumInputs), uint64(s.NumAux), words32(s.ADensityAux), words32(s.BDensityInput), words32(s.BDensityAux))
	runtime.KeepAlive(s)
	if h == 0 {
		return nil, fmt.Errorf("%w: uploading matrices to device %d: %s", ErrCUDA, d.index, lib.lastError())
	}
	m := &Matrices{d: d, h: h, nrows: s.NumConstraints, ninputs: s.NumInputs, naux: s.NumAux}
	var nq [3]uint64
	m.bytes = wlib.matricesBytes(h, unsafe.Pointer(&nq))
	for q := range nq {
		m.nq[q] = int(nq[q])
	}
	return m, nil
}

// check makes the checks of c against naux values the library makes too.
func (c *Compact) check(naux int) error {
	w := split.Words(naux)
	if c.N != naux || len(c.Small) < w || len(c.Ones) < w {
		return fmt.Errorf("%w: compact witness of %d values (%d, %d words) for %d aux", ErrBadMatrices, c.N,
			len(c.Small), len(c.Ones), naux)
	}
	clear := 0
	for i := 0; i < naux/32; i++ {
		clear += bits.OnesCount32(^c.Small[i])
	}
	if r := naux % 32; r != 0 {
		clear += bits.OnesCount32(^c.Small[naux/32] & (1<<r - 1))
	}
	if clear != len(c.Others) {
		return fmt.Errorf("%w: %d other values, the small bitmap leaves %d", ErrBadMatrices, len(c.Others), clear)
	}
	return nil
}

// checkRun checks the witness and p against m.
func (m *Matrices) checkRun(d *Device, p *groth16.Params, input []fr.Element, naux int) (lgn uint32, err error) {
	if m == nil || m.h == 0 || m.d != d {
		return 0, fmt.Errorf("%w: matrices closed or of another device", ErrBadMatrices)
	}
	if len(input) != m.ninputs || naux != m.naux {
		return 0, fmt.Errorf("%w: %d inputs and %d aux, the matrices have %d and %d", ErrBadMatrices, len(input), naux,
			m.ninputs, m.naux)
	}
	dom, err := domainOf(m.nrows)
	if err != nil {
		return 0, err
	}
	if p == nil || p.Len(groth16.QueryH) != dom-1 || p.Len(groth16.QueryL) != m.nq[0] || p.Len(groth16.QueryA) != m.nq[1] ||
		p.Len(groth16.QueryBG1) != m.nq[2] || p.Len(groth16.QueryBG2) != m.nq[2] || len(p.VK.IC) != m.ninputs {
		return 0, fmt.Errorf("%w: the parameters do not have the matrices' shape (h %d, l %d, a %d, b %d)",
			groth16.ErrAssignmentMismatch, dom-1, m.nq[0], m.nq[1], m.nq[2])
	}
	return log2(dom), nil
}

// staged is a witness in pinned memory, as cuzk_witness points to it.
type staged struct {
	bufs []pinned
	w    cWitness
	// others counts the aux values neither 0 nor 1 where the staging
	// counted them (-1 where not: a dense aux given as such).
	others int
}

func (s *staged) buf(d *Device, n uint64) (pinned, error) {
	b, err := d.pool.get(n)
	if err == nil {
		s.bufs = append(s.bufs, b)
	}
	return b, err
}

func (s *staged) release(d *Device) {
	for _, b := range s.bufs {
		d.pool.put(b)
	}
	s.bufs = nil
}

// bytes is the pinned memory the staging holds.
func (s *staged) bytes() uint64 {
	var n uint64
	for _, b := range s.bufs {
		n += b.n
	}
	return n
}

// compactMaxOthers is the share of other values (neither 0 nor 1) above
// which a witness-only aux is staged dense: the compact form then saves
// little host memory and upload and costs the device its expansion.
const compactMaxOthers = 0.6

// stage copies input and aux into pinned buffers: aux dense, or c, or
// with compress the compact form computed from the dense aux where it pays
// (compactMaxOthers). Input is always dense.
func (d *Device) stage(input, aux []fr.Element, c *Compact, compress bool, lgn uint32) (*staged, error) {
	s := &staged{others: -1}
	s.w.NInput, s.w.Lgn = uint64(len(input)), lgn
	var err error
	switch {
	case c != nil:
		err = d.stageCompact(s, input, c)
	case compress:
		err = d.stageCompressed(s, input, aux)
	default:
		err = d.stageDense(s, input, aux)
	}
	if err != nil {
		s.release(d)
		return nil, err
	}
	return s, nil
}

// stageDense stages input and aux dense, in one buffer.
func (d *Device) stageDense(s *staged, input, aux []fr.Element) error {
	n := len(input) + len(aux)
	wb, err := s.buf(d, uint64(n*32))
	if err != nil {
		return err
	}
	parallelCopy(unsafe.Slice((*fr.Element)(wb.p), n), input, aux, d.tasks())()
	s.w.Input, s.w.Aux, s.w.NAux = wb.p, unsafe.Add(wb.p, len(input)*32), uint64(len(aux))
	return nil
}

// stageInput stages input alone.
func (d *Device) stageInput(s *staged, input []fr.Element) error {
	ib, err := s.buf(d, uint64(len(input)*32))
	if err == nil {
		copy(unsafe.Slice((*fr.Element)(ib.p), len(input)), input)
		s.w.Input = ib.p
	}
	return err
}

// bitmaps takes a buffer for the small and ones bitmaps of naux values.
func (d *Device) bitmaps(s *staged, naux int) (small, ones []uint32, err error) {
	nw := split.Words(naux)
	bm, err := s.buf(d, uint64(2*nw*4+8))
	if err != nil {
		return nil, nil, err
	}
	s.w.Small, s.w.Ones = bm.p, unsafe.Add(bm.p, nw*4)
	return unsafe.Slice((*uint32)(s.w.Small), nw), unsafe.Slice((*uint32)(s.w.Ones), nw), nil
}

// othersBuf takes a buffer for n other values.
func (d *Device) othersBuf(s *staged, n int) ([]fr.Element, error) {
	ob, err := s.buf(d, uint64(n*32))
	if err != nil {
		return nil, err
	}
	s.w.Others, s.w.NOthers = ob.p, uint64(n)
	return unsafe.Slice((*fr.Element)(ob.p), n), nil
}

// stageCompact stages input and a copy of c.
func (d *Device) stageCompact(s *staged, input []fr.Element, c *Compact) error {
	if err := d.stageInput(s, input); err != nil {
		return err
	}
	small, ones, err := d.bitmaps(s, c.N)
	if err != nil {
		return err
	}
	copy(small, c.Small)
	copy(ones, c.Ones)
	others, err := d.othersBuf(s, len(c.Others))
	if err != nil {
		return err
	}
	parallelCopy(others, c.Others, nil, d.tasks())()
	s.w.NAux, s.others = uint64(c.N), len(c.Others)
	return nil
}

// stageCompressed stages input and aux's compact form, computed into the
// pinned buffers on d.tasks() goroutines (compiled.CountCompact: the
// bitmaps and the count of other values per range, then the others, into
// a buffer of exactly their size); aux dense where the form does not pay.
func (d *Device) stageCompressed(s *staged, input, aux []fr.Element) error {
	small, ones, err := d.bitmaps(s, len(aux))
	if err != nil {
		return err
	}
	k, err := compiled.CountCompact(aux, small, ones, d.tasks())
	if err != nil {
		return fmt.Errorf("%w: %w", ErrBadMatrices, err)
	}
	if float64(k.Others()) > compactMaxOthers*float64(len(aux)) {
		s.release(d) // the bitmaps
		s.w.Small, s.w.Ones = nil, nil
		if err := d.stageDense(s, input, aux); err != nil {
			return err
		}
		s.others = k.Others()
		return nil
	}
	if err := d.stageInput(s, input); err != nil {
		return err
	}
	others, err := d.othersBuf(s, k.Others())
	if err != nil {
		return err
	}
	if err := k.Fill(aux, others, d.tasks()); err != nil {
		return fmt.Errorf("%w: %w", ErrBadMatrices, err)
	}
	s.w.NAux, s.others = uint64(len(aux)), k.Others()
	return nil
}

// bSplit is the B query's split read back from the device: the ones'
// bitmap over the B bases and the tail, in pinned buffers.
type bSplit struct {
	nbases          int
	ones, scal, idx pinned
	ntail           int
}

func (b *bSplit) release(d *Device) {
	d.pool.put(b.ones)
	d.pool.put(b.scal)
	d.pool.put(b.idx)
}

// readBSplit reads the B split of the context's last witness run (the
// device's lock held).
func (d *Device) readBSplit(k *kernels, nbases int) (*bSplit, error) {
	var nt uint64
	if rc := wlib.splitRead(k.ctx, 2, &nt, nil, nil, nil); rc != 0 {
		return nil, libErr("witness split read", rc)
	}
	b := &bSplit{nbases: nbases, ntail: int(nt)}
	var err error
	if b.ones, err = d.pool.get(uint64(split.Words(nbases)*4 + 4)); err == nil {
		if b.scal, err = d.pool.get(nt*32 + 32); err == nil {
			b.idx, err = d.pool.get(nt*4 + 4)
		}
	}
	if err != nil {
		b.release(d)
		return nil, err
	}
	if rc := wlib.splitRead(k.ctx, 2, &nt, b.ones.p, b.scal.p, b.idx.p); rc != 0 {
		b.release(d)
		return nil, libErr("witness split read", rc)
	}
	return b, nil
}

// sumBG2 is B_G2 on the host from the device's B split, by the CPU
// device's code (as Finish computes it). When the device computes B_G2
// (cuzk_result.has_bg2), this step and readBSplit go.
func (d *Device) sumBG2(ctx context.Context, bg2 []bls12381.G2Affine, b *bSplit) (bls12381.G2Jac, error) {
	ones := unsafe.Slice((*uint32)(b.ones.p), split.Words(b.nbases))
	var idx []uint32
	var scal []fr.Element
	if b.ntail > 0 {
		idx = unsafe.Slice((*uint32)(b.idx.p), b.ntail)
		scal = unsafe.Slice((*fr.Element)(b.scal.p), b.ntail)
	}
	return cpu.SumG2(ctx, bg2, ones, idx, scal, d.tasks())
}

// RunWitness computes a partition's sums from its witness (input, then aux
// dense) against matrices m resident on this device: a = A·w, b = B·w,
// c = a∘b, H and the L, A, B_G1 MSMs on the GPU (the L, A, B scalars split
// there by value); B_G2 on the host from the device's B split. p must have
// the matrices' shape.
func (d *Device) RunWitness(ctx context.Context, p *groth16.Params, m *Matrices, input, aux []fr.Element) (*groth16.Sums, WitnessTiming, error) {
	return d.runWitness(ctx, p, m, input, aux, nil)
}

// RunWitnessCompact is RunWitness with aux in the compact form.
func (d *Device) RunWitnessCompact(ctx context.Context, p *groth16.Params, m *Matrices, input []fr.Element, aux *Compact) (*groth16.Sums, WitnessTiming, error) {
	if aux == nil {
		return nil, WitnessTiming{}, fmt.Errorf("%w: nil compact witness", ErrBadMatrices)
	}
	return d.runWitness(ctx, p, m, input, nil, aux)
}

func (d *Device) runWitness(ctx context.Context, p *groth16.Params, m *Matrices, input, aux []fr.Element, c *Compact) (*groth16.Sums, WitnessTiming, error) {
	var tm WitnessTiming
	if err := ctx.Err(); err != nil {
		return nil, tm, err
	}
	w, err := d.stageWitness(p, m, &groth16.Assignment{Input: input, Aux: aux}, c, false)
	if err != nil {
		return nil, tm, err
	}
	r, err := d.runWitnessPrepared(&d.kernels, ctx, w)
	if err != nil {
		return nil, tm, err
	}
	sums, err := d.finishWitness(ctx, r)
	tm.Timing, tm.SpMV, tm.Split, tm.BG2 = r.Timing, r.Timing.SpMV, r.Timing.Split, r.Timing.HostBG2
	return sums, tm, err
}

// SpMV returns a = A·w and b = B·w (one value per row) as RunWitness
// computes them on the device, for checks.
func (d *Device) SpMV(m *Matrices, input, aux []fr.Element) (a, b []fr.Element, err error) {
	if m == nil || m.h == 0 || m.d != d || len(input) != m.ninputs || len(aux) != m.naux {
		return nil, nil, fmt.Errorf("%w: SpMV of %d inputs and %d aux", ErrBadMatrices, len(input), len(aux))
	}
	w := cWitness{Input: frptr(input), NInput: uint64(len(input)), Aux: frptr(aux), NAux: uint64(len(aux))}
	a, b = make([]fr.Element, m.nrows), make([]fr.Element, m.nrows)
	if err := d.lock(); err != nil {
		return nil, nil, err
	}
	defer d.mu.Unlock()
	rc := wlib.spmv(d.ctx, m.h, &w, frptr(a), frptr(b))
	runtime.KeepAlive(input)
	runtime.KeepAlive(aux)
	if rc != 0 {
		return nil, nil, libErr("spmv", rc)
	}
	return a, b, nil
}
