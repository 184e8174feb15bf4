package cuda

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cuzk-project/cuzk/device/internal/split"
	"github.com/cuzk-project/cuzk/groth16"
	"github.com/cuzk-project/cuzk/r1cs/compiled"
)

// Witness-only assignments (groth16.Assignment.WitnessOnly) through
// Prepare, Run and Finish: Prepare makes the assignment's compiled system
// resident (once per system and device) and stages the witness in pinned
// memory, Run is cuzk_run_witness under the device lock, Finish adds B_G2
// on the CPU where the device did not compute it.

// EvaluatesWitness reports whether the device evaluates a witness-only
// assignment's a, b and c on the GPU (groth16.Profile.EvaluatesWitness): the host
// never holds them. Not under an explicit memory limit (MemoryLimit): the
// residency plan counts neither the matrices, the witness, nor the witness
// run's device tails of a streamed query, so Prepare evaluates a, b and c
// on the CPU and takes the classic path, and the engine must reserve host
// memory for them.
func (d *Device) EvaluatesWitness() bool { return d.MemoryLimit == 0 }

// EvaluatesWitnessOf reports whether a witness-only partition of rows
// constraints over vars variables takes the witness run here
// (groth16.Profile.EvaluatesWitness), as witnessOnDevice will decide once its
// parameters are resident: not under an explicit memory limit, nor where
// its parameter set streams under the default one. The resident sets of
// the partition's domain answer with their plans; otherwise the set is planned
// beside the resident ones from its shape, its queries from above (h the
// domain, l, a and b_g1 one point a variable, B_G2 with them), so that a
// card the set does not fit whole reserves for the classic path.
func (d *Device) EvaluatesWitnessOf(rows, vars int) bool {
	if !d.EvaluatesWitness() {
		return false
	}
	m, err := domainOf(rows)
	if err != nil {
		return false
	}
	d.smu.Lock()
	defer d.smu.Unlock()
	found := false
	for _, r := range d.srs {
		if r.plan.Points[0] == uint64(m-1) { // (two circuits of one domain: either streaming says no)
			if r.plan.Streams() {
				return false
			}
			found = true
		}
	}
	if found {
		return true
	}
	v := uint64(vars)
	_, plan, _, _, err := d.planBeside([4]uint64{uint64(m - 1), v, v, v}, true)
	return err == nil && !plan.Streams()
}

// witnessOnDevice reports whether Prepare takes p's witness-only
// assignments through cuzk_run_witness: not under an explicit memory limit
// (EvaluatesWitness), nor where p's plan streams under the default one
// (the witness run would hold its tails as long as the queries beside the
// plan's buffers); then a, b and c are evaluated on the CPU. It makes p
// resident (without a reference) to know its plan.
func (d *Device) witnessOnDevice(p *groth16.Params) (bool, error) {
	if !d.EvaluatesWitness() {
		return false, nil
	}
	if _, err := d.resident(p, 0); err != nil {
		return false, err
	}
	plan, _ := d.Plan(p)
	return !plan.Streams(), nil
}

// systems holds the matrices resident on a device, per compiled system.
type systems struct {
	mu sync.Mutex
	m  map[*compiled.System]*residentSystem
}

type residentSystem struct {
	ready chan struct{} // closed once m or err is set
	m     *Matrices
	err   error
}

// matrices returns s's matrices resident on d, uploading them on first
// use; concurrent callers wait for one upload. They stay until Close.
func (d *Device) matrices(s *compiled.System) (*Matrices, error) {
	d.sys.mu.Lock()
	if d.sys.m == nil {
		d.sys.m = map[*compiled.System]*residentSystem{}
	}
	r, ok := d.sys.m[s]
	if !ok {
		r = &residentSystem{ready: make(chan struct{})}
		d.sys.m[s] = r
	}
	d.sys.mu.Unlock()
	if ok {
		<-r.ready
		return r.m, r.err
	}
	r.m, r.err = d.UploadMatrices(MatrixSetOf(s))
	if r.err == nil {
		// The host copy (a file mapping: 5.9 GB at 32 GiB) is read again
		// only where something else needs it.
		s.DropPages()
	}
	if r.err != nil { // forgotten: the next caller tries again
		d.sys.mu.Lock()
		delete(d.sys.m, s)
		d.sys.mu.Unlock()
	}
	close(r.ready)
	return r.m, r.err
}

// closeSystems frees every resident system (Close).
func (d *Device) closeSystems() {
	d.sys.mu.Lock()
	defer d.sys.mu.Unlock()
	for s, r := range d.sys.m {
		select {
		case <-r.ready:
			if r.m != nil {
				r.m.free()
			}
		default: // an upload in flight frees nothing it made: the context goes with Close
		}
		delete(d.sys.m, s)
	}
}

// MatrixSetOf views a compiled system's A, B, coefficients and densities
// as UploadMatrices takes them (no copy).
func MatrixSetOf(s *compiled.System) *MatrixSet {
	return &MatrixSet{
		NumInputs: s.NumInputs, NumAux: s.NumAux, NumConstraints: s.NumConstraints,
		Coeffs:      s.Coeffs,
		A:           CSR{RowPtr: s.A.RowPtr, Col: s.A.Col, Coeff: s.A.Coeff},
		B:           CSR{RowPtr: s.B.RowPtr, Col: s.B.Col, Coeff: s.B.Coeff},
		ADensityAux: s.ADensityAux, BDensityInput: s.BDensityInput, BDensityAux: s.BDensityAux,
	}
}

// witnessPrepared is a witness-only assignment staged for its run. Run
// and Finish read the staging only, not the assignment's aux: it reports
// the pinned memory it holds until Finish (groth16.PrepareReport), and the
// engine drops the aux.
type witnessPrepared struct {
	p    *groth16.Params
	srs  uintptr
	m    *Matrices
	held uint64 // StagedBytes
	ran  atomic.Bool

	stMu sync.Mutex
	st   *staged // until taken (takeStaging): by KeepStaging, Finish or Discard
}

// StagedBytes is the most pinned host memory the prepared witness holds
// until Finish: the staging (dead once Run has uploaded it: kept for the
// next partition or given back to the pool, never under the device lock)
// and, where the device does not compute B_G2, the B split Run reads back
// beside it for Finish.
func (w *witnessPrepared) StagedBytes() uint64 { return w.held }

// takeStaging hands the staging over once; nil after.
func (w *witnessPrepared) takeStaging() *staged {
	w.stMu.Lock()
	defer w.stMu.Unlock()
	st := w.st
	w.st = nil
	return st
}

// stagingBytes is the staging's pinned memory while it is held.
func (w *witnessPrepared) stagingBytes() uint64 {
	w.stMu.Lock()
	defer w.stMu.Unlock()
	if w.st == nil {
		return 0
	}
	return w.st.bytes()
}

// releaseStaging gives the staging, if still held, back to the pool.
func (w *witnessPrepared) releaseStaging(d *Device) {
	if st := w.takeStaging(); st != nil {
		st.release(d)
	}
}

// bSplitBytes bounds the pinned memory of readBSplit over nb bases: the
// ones' bitmap, and a tail of at most nb scalars, nor more than the
// values neither 0 nor 1 (ninput and others, where the staging counted
// them: others ≥ 0).
func bSplitBytes(nb, ninput, others int) uint64 {
	nt := nb
	if others >= 0 {
		nt = min(nb, ninput+others)
	}
	return uint64(split.Words(nb)*4+4) + uint64(nt)*(32+4) + 32 + 4
}

// bg2Resident reports whether p's B_G2 is resident on d: then Run
// computes it and reads no B split.
func (d *Device) bg2Resident(p *groth16.Params) bool {
	d.smu.Lock()
	defer d.smu.Unlock()
	r, ok := d.srs[p]
	return ok && r.bg2
}

func (d *Device) prepareWitness(ctx context.Context, a *groth16.Assignment, p *groth16.Params, c *Compact) (*witnessPrepared, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	m, err := d.matrices(a.System)
	if err != nil {
		return nil, err
	}
	return d.stageWitness(p, m, a, c, true)
}

// stageWitness checks the witness against m and p and stages it: c when
// given, else a's aux, dense or, with compress, compact where that pays.
func (d *Device) stageWitness(p *groth16.Params, m *Matrices, a *groth16.Assignment, c *Compact, compress bool) (*witnessPrepared, error) {
	naux := len(a.Aux)
	if c != nil {
		naux = c.N
	}
	lgn, err := m.checkRun(d, p, a.Input, naux)
	if err == nil && c != nil {
		err = c.check(naux)
	}
	if err != nil {
		return nil, err
	}
	srs, err := d.resident(p, 0)
	if err != nil {
		return nil, err
	}
	aux := a.Aux
	if c != nil {
		aux = nil
	}
	st, err := d.stage(a.Input, aux, c, compress, lgn)
	if err != nil {
		return nil, err
	}
	held := st.bytes()
	if !d.bg2Resident(p) {
		held += bSplitBytes(m.nq[2], len(a.Input), st.others)
	}
	return &witnessPrepared{p: p, srs: srs, m: m, st: st, held: held}, nil
}

// runWitnessPrepared is Run for a witness: the device's lock is held for
// cuzk_run_witness (and the read of the B split when B_G2 stays on the
// CPU). The staging goes back to the pool either way.
func (d *Device) runWitnessPrepared(k *kernels, ctx context.Context, w *witnessPrepared) (*Partial, error) {
	if w.ran.Swap(true) {
		return nil, ErrReused
	}
	ok := false
	defer func() {
		if !ok { // no Partial carries the staging on
			w.releaseStaging(d)
		}
	}()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := k.lock(); err != nil {
		return nil, err
	}
	if w.m.h == 0 {
		k.mu.Unlock()
		return nil, fmt.Errorf("%w: matrices closed", ErrBadMatrices)
	}
	res, rc, end := d.call(k, func(r *cResult) int32 { return wlib.runWitness(k.ctx, w.srs, w.m.h, &w.st.w, r) })
	var bs *bSplit
	var err error
	var stream StreamStats
	if rc == 0 {
		stream = k.streamStats()
	}
	if rc == 0 && res.HasBG2 == 0 {
		bs, err = d.readBSplit(k, w.m.nq[2])
	}
	k.mu.Unlock()
	if rc != 0 {
		return nil, libErr("run witness", rc)
	}
	if err != nil {
		return nil, err
	}
	r := &Partial{d: d, wp: w, wb: bs, end: end, Stream: stream}
	r.Timing = Timing{Total: msDur(res.Total), H2D: msDur(res.H2D), NTT: msDur(res.NTT), MSMH: msDur(res.MSMH),
		MSML: msDur(res.MSML), MSMA: msDur(res.MSMA), MSMB: msDur(res.MSMB), SpMV: msDur(res.SpMV), Split: msDur(res.Split)}
	r.Timing.hostTimes(&res)
	r.start = end.Add(-r.Timing.Total)
	r.h = xyzzToJac(res.Points[0][:])
	r.l = xyzzToJac(res.Points[1][:])
	r.a = xyzzToJac(res.Points[2][:])
	r.b = xyzzToJac(res.Points[3][:])
	r.readBG2(&res)
	ok = true // the staging goes with r: KeepStaging, Finish or Discard
	return r, nil
}

// finishWitness is Finish for a witness run: B_G2 from the run, or on the
// CPU from the B split read back.
func (d *Device) finishWitness(ctx context.Context, r *Partial) (*groth16.Sums, error) {
	defer r.wp.releaseStaging(d) // not kept (KeepStaging)
	if r.wb != nil {
		defer r.wb.release(d)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	sums := &groth16.Sums{H: r.h, L: r.l, A: r.a, B1: r.b, B2: r.b2}
	if r.hasB2 {
		return sums, nil
	}
	if r.wb == nil {
		return nil, fmt.Errorf("cuda: witness run without B_G2 or its B split")
	}
	t0 := time.Now()
	b2, err := d.sumBG2(ctx, r.wp.p.BG2, r.wb)
	if err != nil {
		return nil, fmt.Errorf("cuda: B_G2: %w", err)
	}
	r.Timing.HostBG2 = time.Since(t0)
	sums.B2 = b2
	return sums, nil
}
