package cuda

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math/bits"
	"os"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fp"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-project/cuzk/device/cpu"
	"github.com/cuzk-project/cuzk/device/internal/split"
	"github.com/cuzk-project/cuzk/groth16"
	"github.com/cuzk-project/cuzk/memory"
	"github.com/cuzk-project/cuzk/r1cs"
	"github.com/cuzk-project/cuzk/timeline"
)

// ErrReused rejects a Prepared or Partial used a second time.
var ErrReused = errors.New("cuda: Prepare/Run result used twice")

// ErrClosed is returned after Close; it wraps groth16.ErrDeviceLost.
var ErrClosed = fmt.Errorf("cuda: device closed: %w", groth16.ErrDeviceLost)

// Device is one CUDA GPU as a groth16.Device. It is safe for concurrent
// use; Run calls on one Device are serialized.
type Device struct {
	// Tasks bounds the goroutines of the CPU steps; 0 means GOMAXPROCS.
	Tasks int
	// MemoryLimit bounds the device memory of the resident parameters and
	// the runs' scratch (config device.memory_limit); 0 means the free
	// memory when the device was opened less DefaultMemoryMargin. What does
	// not fit streams from host memory at every Run (limit.go); set it
	// before the first Prepare or Retain.
	MemoryLimit uint64
	// StreamCache bounds the host memory (bytes, page-locked) that holds a
	// copy of the last streamed bytes (cacheRange) of each set streamed from its
	// parameter file (RetainFromFile), read once when it is retained, so
	// that its Runs upload those chunks with no read of the file (config
	// device.stream_cache); 0: none. Set it before the first Retain.
	StreamCache int64
	// PinnedKeep bounds the bytes of free pinned host buffers the device
	// keeps for reuse without a share of the memory budget (pool.go;
	// stagings kept with one, groth16.RunReport.KeepStaging, are apart); 0 means
	// DefaultPinnedKeep, a negative value keeps none, shared ones neither.
	// Set it before the first Prepare.
	PinnedKeep int64

	index        int
	info         Info
	defaultLimit uint64
	noPairs      bool   // CUZK_PAIRS=0 in the environment: Pairs is false (pair.go)
	noEarly      bool   // CUZK_KEEP_EARLY=0: a Run keeps its a, b staging only when it returns (staged.go)
	chunkLgMax   uint32 // tests: streamed chunks of at most 2^chunkLgMax points (0: the library's)
	// tests: the limit of a set from the least its runs need and what it
	// needs all resident (nil: memoryLimit)
	testLimit func(min, all uint64) uint64

	kernels         // the device's library context: its Runs serialize on it
	lanes   []*Lane // more contexts on the GPU (lane.go), closed with it (under mu)
	// gone is closed without the lock: Prepare and Retain refuse a
	// closed device without waiting for a Run in flight.
	gone atomic.Bool

	smu sync.Mutex
	srs map[*groth16.Params]*resident

	sys systems // compiled systems' matrices, for witness runs

	pool pinnedPool
}

type resident struct {
	h    uintptr
	refs int
	plan Plan
	bg2  bool // B_G2 on the device too (resident or streamed, as the plan has it): Run computes it
	// ready is closed once the points are on the device, or err is set
	// (parameters read from their file fill the set after it is made,
	// outside smu: paramsfile.go).
	ready chan struct{}
	err   error
	// cache is the page-locked copy of part of the parameter file a set
	// streams from (streamcache.go), counted in held's memory.
	cache pinned
	held  *groth16.Deferred
}

var _ groth16.Device = (*Device)(nil)

// New opens device index (see Devices).
func New(index int) (*Device, error) {
	infos, err := Devices()
	if err != nil {
		return nil, err
	}
	if index < 0 || index >= len(infos) {
		return nil, fmt.Errorf("%w: device %d of %d", ErrUnavailable, index, len(infos))
	}
	ctx := lib.ctxNew(int32(index))
	if ctx == 0 {
		return nil, fmt.Errorf("%w: context on device %d: %s", ErrCUDA, index, lib.lastError())
	}
	free := infos[index].FreeMem
	if now, err := Devices(); err == nil { // after the context took its share
		free = now[index].FreeMem
	}
	d := &Device{index: index, info: infos[index], kernels: kernels{ctx: ctx}, srs: map[*groth16.Params]*resident{},
		defaultLimit: defaultLimitOf(free), noPairs: os.Getenv("CUZK_PAIRS") == "0",
		noEarly: os.Getenv("CUZK_KEEP_EARLY") == "0"}
	if err := d.kernels.allocResult(); err != nil {
		lib.ctxFree(ctx)
		return nil, err
	}
	d.pool.keep = &d.PinnedKeep
	return d, nil
}

// Info describes the device.
func (d *Device) Info() Info { return d.info }

// Close frees the device's context, resident parameters and pinned buffers.
func (d *Device) Close() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return nil
	}
	d.closed = true
	d.gone.Store(true)
	d.closeLanes()
	d.closeSystems()
	d.smu.Lock()
	filling := slices.Collect(maps.Values(d.srs))
	d.smu.Unlock()
	for _, r := range filling {
		<-r.ready // a fill from a file in flight ends first
	}
	d.smu.Lock()
	for p, r := range d.srs {
		r.free()
		delete(d.srs, p)
	}
	d.smu.Unlock()
	lib.ctxFree(d.ctx)
	d.kernels.freeResult()
	d.pool.drain()
	return nil
}

func (d *Device) tasks() int {
	if d.Tasks > 0 {
		return d.Tasks
	}
	return runtime.GOMAXPROCS(0)
}

func g1ptr(s []bls12381.G1Affine) unsafe.Pointer {
	if len(s) == 0 {
		return nil
	}
	return unsafe.Pointer(&s[0])
}

func frptr(s []fr.Element) unsafe.Pointer {
	if len(s) == 0 {
		return nil
	}
	return unsafe.Pointer(&s[0])
}

// stage is one G1 query's split: ones bitmap over its bases and the tail.
type stage struct {
	nbases int
	bits   pinned // (nbases+31)/32 words
	scal   pinned // ntail scalars
	idx    pinned // ntail base indices
	ntail  int
}

type prepared struct {
	a     *groth16.Assignment
	p     *groth16.Params
	srs   uintptr
	lgn   uint32
	nrows int
	ab    pinned   // a then b; the device computes c = a∘b (takeAB)
	st    [3]stage // L, A, B
	// stShare, from KeepStaging, counts the splits: release gives each
	// split buffer back to the pool with its part of it.
	stShare *memory.Reservation
	ran     atomic.Bool
	// phases: alloc (the pinned buffers), kept (the a, b staging taken
	// from those kept with a share of the budget, not allocated), eval (a
	// and b of a witness-only assignment), split (the L, A, B splits, and
	// the copy of a and b beside them)
	phases []timeline.Phase
}

// PreparePhases lists the timed parts of the Prepare
// (groth16.PrepareReport).
func (w *prepared) PreparePhases() []timeline.Phase { return w.phases }

// Timing is the device time of one Run, measured with CUDA events.
type Timing struct {
	Total, H2D, NTT, MSMH, MSML, MSMA, MSMB time.Duration
	MSMB2                                   time.Duration // B_G2 (0 when Finish computes it)
	SpMV, Split                             time.Duration // witness runs: a = A·w, b = B·w; the L, A, B split
	HostBG2                                 time.Duration // witness runs: Finish's B_G2 on the CPU, where Run did not
	// HostPre is the host time from the library call to its first event
	// (checks, scratch); GPUWait what the call took beyond HostPre and the
	// events' Total until its last synchronization returned (the GPU's
	// queues behind other work, the final copies); HostEnd the rest of the
	// call after it (the reads of the run's check words).
	HostPre, GPUWait, HostEnd time.Duration
}

// hostTimes sets t's HostPre, GPUWait and HostEnd from a library result
// (one without HostSynced: GPUWait to the call's return).
func (t *Timing) hostTimes(res *cResult) {
	t.HostPre = msDur(res.HostPre)
	synced := msDur(res.HostSynced)
	if res.HostSynced == 0 || res.HostSynced > res.Host {
		synced = msDur(res.Host)
	}
	t.GPUWait = max(0, synced-t.HostPre-t.Total)
	t.HostEnd = max(0, msDur(res.Host)-synced)
}

// Partial is the state between Run and Finish; it reports its kernel
// interval (groth16.RunReport).
type Partial struct {
	d          *Device
	w          *prepared
	wp         *witnessPrepared // a witness run's (w nil)
	wb         *bSplit          // its B split, for B_G2 on the CPU
	h, l, a, b bls12381.G1Jac
	b2         bls12381.G2Jac // when hasB2: computed by Run
	hasB2      bool
	start, end time.Time
	Timing     Timing
	Stream     StreamStats // what Run streamed (zero when every query is resident)
	finished   atomic.Bool
}

// KernelInterval is the device-timed span of Run's kernels, placed on the
// host clock at the moment Run's work completed.
func (p *Partial) KernelInterval() (start, end time.Time) { return p.start, p.end }

func log2(m int) uint32 { return uint32(bits.TrailingZeros(uint(m))) }

// maxDomain is the largest evaluation domain the library's NTT supports.
const maxDomain = 1 << 28

func domainOf(n int) (int, error) {
	m := r1cs.DomainSize(n)
	if m > maxDomain {
		return 0, fmt.Errorf("%w: %d constraints exceed the 2^28 domain this device supports", groth16.ErrAssignmentMismatch, n)
	}
	return m, nil
}

// Prepare checks a against p, splits the L, A and B scalars (zeros
// skipped, ones batch-added, the rest to a tail MSM) and stages everything
// Run uploads into pinned buffers. CPU only. A witness-only assignment the
// device does not evaluate itself (witnessOnDevice) has its a and b
// evaluated straight into the pinned staging, and no c
// (EvaluatesIntoWorkspace).
func (d *Device) Prepare(ctx context.Context, a *groth16.Assignment, p *groth16.Params) (groth16.Prepared, error) {
	if d.gone.Load() {
		return nil, ErrClosed
	}
	if err := groth16.CheckAssignment(a, p); err != nil {
		return nil, err
	}
	if a.WitnessOnly() {
		dev, err := d.witnessOnDevice(p)
		if err != nil {
			return nil, err
		}
		if dev {
			return d.prepareWitness(ctx, a, p, nil)
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	n := a.NumConstraints()
	m, err := domainOf(n)
	if err != nil {
		return nil, err
	}
	srs, err := d.resident(p, 0)
	if err != nil {
		return nil, err
	}
	w := &prepared{a: a, p: p, srs: srs, lgn: log2(m), nrows: n}
	// The scalars of L, A and B_G1 in base order.
	spans := [3][]split.Span{
		{{Vals: a.Aux}},
		{{Vals: a.Input}, {Vals: a.Aux, Density: a.ADensityAux}},
		{{Vals: a.Input, Density: a.BDensityInput}, {Vals: a.Aux, Density: a.BDensityAux}},
	}
	nb := [3]int{p.Len(groth16.QueryL), p.Len(groth16.QueryA), p.Len(groth16.QueryBG1)}
	if a.WitnessOnly() {
		// The classic path: a and b evaluated into the staging, c not needed
		// (the device computes it). The splits need no staging, so they go
		// first: a unit whose staging a Run in flight still holds does them
		// while it waits (groth16.AwaitStaging).
		splitAlloc, err := d.splitPhase(w, nb, spans, func() {})
		if err != nil {
			return nil, err
		}
		ab, alloc, err := d.takeStaging(ctx, w)
		if err != nil {
			return nil, err
		}
		t1 := time.Now()
		if err := a.System.EvalAB(a.Input, a.Aux, ab[:n], ab[n:]); err != nil {
			d.release(w)
			return nil, fmt.Errorf("%w: %w", groth16.ErrAssignmentMismatch, err)
		}
		w.phases = append(w.phases, timeline.Phase{Name: "eval", D: time.Since(t1)},
			timeline.Phase{Name: "alloc", D: alloc + splitAlloc})
		return w, nil
	}
	// a and b are copied beside the split, by goroutines of their own;
	// what they have not begun when the split is done, the caller copies.
	ab, alloc, err := d.takeStaging(ctx, w)
	if err != nil {
		return nil, err
	}
	splitAlloc, err := d.splitPhase(w, nb, spans, parallelCopy(ab, a.A, a.B, d.tasks()))
	if err != nil {
		return nil, err
	}
	w.phases = append(w.phases, timeline.Phase{Name: "alloc", D: alloc + splitAlloc})
	return w, nil
}

// takeStaging waits for the staging w's unit is to take where a Run in
// flight still holds it (groth16.AwaitStaging), then takes the a, b
// staging, a kept one where the pool has it. Only a and b are staged:
// for a satisfied witness c = a∘b row by row, and the device computes it
// (a third less to stage and upload). A witness that does not satisfy
// the constraints gets an H that is not its C's, so its proof fails
// verification, as it would anyway. It returns the staging and the time
// page-locking it took (0 for a kept one); on an error w is released.
func (d *Device) takeStaging(ctx context.Context, w *prepared) ([]fr.Element, time.Duration, error) {
	if err := groth16.AwaitStaging(ctx); err != nil {
		d.release(w)
		return nil, 0, err
	}
	t0 := time.Now()
	ab, kept, err := d.pool.getKept(abStagingBytes(w.nrows))
	if err != nil {
		d.release(w)
		return nil, 0, err
	}
	w.ab = ab
	var alloc time.Duration
	if kept {
		w.phases = append(w.phases, timeline.Phase{Name: "kept", D: time.Since(t0)})
	} else {
		alloc = time.Since(t0)
	}
	return unsafe.Slice((*fr.Element)(ab.p), 2*w.nrows), alloc, nil
}

// splitPhase fills w's splits of the L, A and B_G1 scalars, then calls
// copied (parallelCopy's wait, or nothing); it returns the time its
// page-locked allocations took. On an error w is released.
func (d *Device) splitPhase(w *prepared, nb [3]int, spans [3][]split.Span, copied func()) (time.Duration, error) {
	t0 := time.Now()
	alloc, err := d.split(&w.st, nb, spans)
	copied()
	if err != nil {
		d.release(w)
		return 0, err
	}
	w.phases = append(w.phases, timeline.Phase{Name: "split", D: time.Since(t0) - alloc})
	return alloc, nil
}

// copyChunk is how many scalars one goroutine of parallelCopy copies at a
// time (2 MiB).
const copyChunk = 1 << 16

// parallelCopy starts copying a into ab[:len(a)] and b after it, in chunks
// on up to tasks goroutines, and returns the wait of split.Start: it copies
// the chunks no goroutine has begun and returns when all are copied.
func parallelCopy(ab, a, b []fr.Element, tasks int) (wait func()) {
	ca, cb := (len(a)+copyChunk-1)/copyChunk, (len(b)+copyChunk-1)/copyChunk
	return split.Start(ca+cb, tasks+1, func(k int) {
		dst, src := ab[:len(a)], a
		if k >= ca {
			dst, src, k = ab[len(a):], b, k-ca
		}
		lo := k * copyChunk
		hi := min(lo+copyChunk, len(src))
		copy(dst[lo:hi], src[lo:hi])
	})
}

// split fills st[q] from the scalars of spans[q] (nbases[q] of them, in
// base order), the L, A and B_G1 queries: the ones' bitmaps and the tails,
// counted and filled in parallel pieces, each value of the aux they share
// read once for all three (split.CountEach). It returns the time its
// pinned buffers took.
func (d *Device) split(st *[3]stage, nbases [3]int, spans [3][]split.Span) (alloc time.Duration, err error) {
	plans := split.CountEach(spans[:], d.tasks())
	var outs [3]split.Out
	for q, plan := range plans {
		if plan.Selected != nbases[q] {
			return alloc, fmt.Errorf("%w: the densities select %d scalars for %d bases", groth16.ErrAssignmentMismatch,
				plan.Selected, nbases[q])
		}
		s, ntail := &st[q], plan.Tail
		s.nbases = nbases[q]
		t0 := time.Now()
		s.bits, err = d.pool.get(uint64(split.Words(s.nbases)*4 + 4))
		if err == nil {
			s.scal, err = d.pool.get(roomy(uint64(ntail*32 + 32)))
		}
		if err == nil {
			s.idx, err = d.pool.get(roomy(uint64(ntail*4 + 4)))
		}
		alloc += time.Since(t0)
		if err != nil {
			return alloc, err
		}
		outs[q] = split.Out{Ones: unsafe.Slice((*uint32)(s.bits.p), split.Words(s.nbases)), // Fill sets every word
			Scalars: unsafe.Slice((*fr.Element)(s.scal.p), ntail), Idx: unsafe.Slice((*uint32)(s.idx.p), ntail)}
		s.ntail = ntail
	}
	split.FillEach(plans, outs[:], d.tasks())
	return alloc, nil
}

// StagedBytes is the pinned memory the prepared partition holds until
// Finish (groth16.PrepareReport): Run and Finish read only the staging, so
// the engine drops a witness-only assignment's aux after Prepare.
func (w *prepared) StagedBytes() uint64 {
	n := w.ab.n
	for _, s := range w.st {
		n += s.bits.n + s.scal.n + s.idx.n
	}
	return n
}

// takeAB takes the a, b staging out of w (zero once taken): KeepStaging
// does, then Finish's or Discard's release.
func (w *prepared) takeAB() pinned {
	ab := w.ab
	w.ab = pinned{}
	return ab
}

// roomy is n and a sixteenth more: a tail's buffer, sized so that the
// next partition's tail, a little longer or shorter, fits the buffer it
// leaves behind (pinnedPool.takeShared).
func roomy(n uint64) uint64 { return n + n/16 }

// release gives w's buffers back to the pool, the splits with their parts
// of stShare where KeepStaging left one.
func (d *Device) release(w *prepared) {
	d.pool.put(w.takeAB())
	put := func(b pinned) {
		if w.stShare == nil {
			d.pool.put(b)
			return
		}
		d.pool.putShared(b, w.stShare.Split(b.n))
	}
	for q := range w.st {
		put(w.st[q].bits)
		put(w.st[q].scal)
		put(w.st[q].idx)
		w.st[q] = stage{}
	}
	w.stShare.Close()
	w.stShare = nil
}

func xyzzToJac(b []byte) bls12381.G1Jac {
	var X, Y, ZZ, ZZZ fp.Element
	for i := 0; i < 6; i++ {
		X[i] = le64(b[0+8*i:])
		Y[i] = le64(b[48+8*i:])
		ZZ[i] = le64(b[96+8*i:])
		ZZZ[i] = le64(b[144+8*i:])
	}
	var r bls12381.G1Jac
	if ZZ.IsZero() {
		r.X.SetOne()
		r.Y.SetOne()
		return r
	}
	// Z = ZZ·ZZZ, X' = X·ZZ·ZZZ², Y' = Y·ZZ³·ZZZ²
	var zzz2, zz3 fp.Element
	zzz2.Square(&ZZZ)
	zz3.Square(&ZZ).Mul(&zz3, &ZZ)
	r.Z.Mul(&ZZ, &ZZZ)
	r.X.Mul(&X, &ZZ).Mul(&r.X, &zzz2)
	r.Y.Mul(&Y, &zz3).Mul(&r.Y, &zzz2)
	return r
}

func le64(b []byte) uint64 {
	return uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24 |
		uint64(b[4])<<32 | uint64(b[5])<<40 | uint64(b[6])<<48 | uint64(b[7])<<56
}

// Run computes H and the four G1 sums on the GPU, and B_G2 where the
// parameters' B_G2 is resident. It holds the device for the kernels only
// and drops a, b, c from the assignment.
func (d *Device) Run(ctx context.Context, wp groth16.Prepared) (groth16.Partial, error) {
	return d.runOn(&d.kernels, ctx, wp)
}

// runOn is Run on the library context k (the device's, or a Lane's).
func (d *Device) runOn(k *kernels, ctx context.Context, wp groth16.Prepared) (groth16.Partial, error) {
	if w, ok := wp.(*witnessPrepared); ok && w != nil {
		return d.runWitnessPrepared(k, ctx, w)
	}
	w, ok := wp.(*prepared)
	if !ok || w == nil {
		return nil, fmt.Errorf("cuda: Run got %T, not this device's Prepared", wp)
	}
	if w.ran.Swap(true) {
		return nil, ErrReused
	}
	if err := ctx.Err(); err != nil {
		d.release(w)
		return nil, err
	}
	job := w.job()
	if err := k.lock(); err != nil {
		d.release(w) // the pool is drained: the buffers are freed
		return nil, err
	}
	stop := d.watchStaged(ctx, k, w, &job)
	res, rc, end := d.call(k, func(r *cResult) int32 { return lib.run(k.ctx, w.srs, &job, r) })
	stop()
	var stream StreamStats
	if rc == 0 {
		stream = k.streamStats()
	}
	k.mu.Unlock()
	if rc != 0 {
		d.release(w)
		return nil, libErr("run", rc)
	}
	r := d.partial(w, &res, end, stream)
	r.start = end.Add(-r.Timing.Total)
	return r, nil
}

// job is w's library job: a and b from the staging, the L, A, B splits.
func (w *prepared) job() cJob {
	n := uint64(w.nrows)
	job := cJob{A: w.ab.p, B: unsafe.Add(w.ab.p, n*32), NRows: n, Lgn: w.lgn}
	for q := 0; q < 3; q++ {
		s := &w.st[q]
		job.Part[q] = cPart{Ones: s.bits.p, Scalars: s.scal.p, Idx: s.idx.p, NTail: uint64(s.ntail)}
	}
	return job
}

// partial is the Partial of w's run that returned res at end (its kernel
// interval left to the caller); w's assignment drops a, b and c.
func (d *Device) partial(w *prepared, res *cResult, end time.Time, stream StreamStats) *Partial {
	ms := func(f float32) time.Duration { return time.Duration(float64(f) * 1e6) }
	r := &Partial{d: d, w: w, end: end, Stream: stream}
	r.Timing = Timing{Total: ms(res.Total), H2D: ms(res.H2D), NTT: ms(res.NTT), MSMH: ms(res.MSMH), MSML: ms(res.MSML),
		MSMA: ms(res.MSMA), MSMB: ms(res.MSMB)}
	r.Timing.hostTimes(res)
	r.h = xyzzToJac(res.Points[0][:])
	r.l = xyzzToJac(res.Points[1][:])
	r.a = xyzzToJac(res.Points[2][:])
	r.b = xyzzToJac(res.Points[3][:])
	r.readBG2(res)
	w.a.ReleaseABC()
	// The a, b staging stays until KeepStaging or Finish: not freed under
	// the engine's device lock (8.3 GB at 32 GiB unpins page by page).
	return r
}

// Finish returns the sums. B_G2 is Run's where the device holds B_G2;
// otherwise Finish computes it on the CPU with the CPU device's code
// (cpu.SumG2: the B split's ones by batched affine additions, the tail by
// gnark-crypto's MSM over chunks of gathered bases).
func (d *Device) Finish(ctx context.Context, rp groth16.Partial) (*groth16.Sums, error) {
	r, ok := rp.(*Partial)
	if !ok || r == nil {
		return nil, fmt.Errorf("cuda: Finish got %T, not this device's Partial", rp)
	}
	if r.finished.Swap(true) {
		return nil, ErrReused
	}
	if r.wp != nil {
		return d.finishWitness(ctx, r)
	}
	w := r.w
	defer d.release(w)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if r.hasB2 {
		return &groth16.Sums{H: r.h, L: r.l, A: r.a, B1: r.b, B2: r.b2}, nil
	}
	s := &w.st[2]
	bg2 := w.p.BG2
	if len(bg2) != s.nbases {
		return nil, fmt.Errorf("%w: b_g2 has %d points, b_g1 %d", groth16.ErrAssignmentMismatch, len(bg2), s.nbases)
	}
	ones := unsafe.Slice((*uint32)(s.bits.p), split.Words(s.nbases))
	var idx []uint32
	var scal []fr.Element
	if s.ntail > 0 {
		idx = unsafe.Slice((*uint32)(s.idx.p), s.ntail)
		scal = unsafe.Slice((*fr.Element)(s.scal.p), s.ntail)
	}
	b2, err := cpu.SumG2(ctx, bg2, ones, idx, scal, d.tasks())
	if err != nil {
		return nil, fmt.Errorf("cuda: B_G2: %w", err)
	}
	return &groth16.Sums{H: r.h, L: r.l, A: r.a, B1: r.b, B2: b2}, nil
}

// KernelPhases lists the timed parts of the Run (groth16.RunReport):
// those the Run had (a phase of 0 did not happen: B_G2 on the host, the
// classic run's SpMV and split); host_pre, gpu_wait and host_end are the
// call's host time before its first event, beyond its events until its
// last synchronization returned, and after that. A Run that streamed parameters adds
// stream_read (the host's reads of them from the file, while the kernels
// ran), stream_copy (their uploads, summed) and stream_stall (the part of
// the uploads no computation hid).
func (p *Partial) KernelPhases() []timeline.Phase {
	t, s := p.Timing, p.Stream
	var out []timeline.Phase
	for _, x := range [...]struct {
		name string
		d    time.Duration
	}{{"total", t.Total}, {"h2d", t.H2D}, {"spmv", t.SpMV}, {"split", t.Split}, {"ntt", t.NTT},
		{"msm_h", t.MSMH}, {"msm_l", t.MSML}, {"msm_a", t.MSMA}, {"msm_b", t.MSMB}, {"msm_b2", t.MSMB2},
		{"host_pre", t.HostPre}, {"gpu_wait", t.GPUWait}, {"host_end", t.HostEnd},
		{"stream_read", msDur(s.ReadMS)}, {"stream_copy", msDur(s.CopyMS)}, {"stream_stall", msDur(s.StallMS)}} {
		if x.d > 0 {
			out = append(out, timeline.Phase{Name: x.name, D: x.d})
		}
	}
	return out
}
