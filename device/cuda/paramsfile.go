package cuda

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"unsafe"

	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"

	"github.com/cuzk-project/cuzk/groth16"
)

// Parameters from their file to the device: a set opened with
// groth16.OpenParams (the queries left in the file) is made resident whole
// under the memory limit with its points unset, then filled chunk by chunk:
// the host decodes one chunk into a pinned buffer while the previous one is
// copied to the device. The host holds two chunks and a read buffer
// (≈ 0.6 GB), never the set (47 GB for 32 GiB PoRep).

// ErrDoesNotFit rejects deferred parameters that the device cannot hold
// whole: under its memory limit some query would stream from host memory
// at every Run, or B_G2 would stay on the host, and both need a decoded
// host copy (read the file with groth16.ReadParams instead).
var ErrDoesNotFit = errors.New("cuda: the parameters do not fit the device whole")

// fillChunk is the points per chunk of a fill (96 MiB of G1, 192 MiB of G2).
const fillChunk = 1 << 20

// FillBytes is the host memory a device's read of deferred parameters
// takes: two pinned chunks and the read buffer.
const FillBytes = 3 * fillChunk * groth16.G2Size

var fileLib struct {
	srsWrite func(s uintptr, q int32, off, n uint64, src unsafe.Pointer) int32
}

func regFile(reg func(fn any, name string)) {
	reg(&fileLib.srsWrite, "cuzk_srs_write")
	regFileStream(reg)
	regStreamCache(reg)
}

// allocateDeferred makes p's set on the device with every query and B_G2
// resident and their points unset (smu held).
func (d *Device) allocateDeferred(p *groth16.Params, ref int) (*resident, error) {
	n := [4]uint64{uint64(p.Len(groth16.QueryH)), uint64(p.Len(groth16.QueryL)), uint64(p.Len(groth16.QueryA)), uint64(p.Len(groth16.QueryBG1))}
	nb2 := p.Len(groth16.QueryBG2)
	h, plan, err := d.uploadLimited(n, [4]unsafe.Pointer{}, nb2 > 0, true)
	if err != nil {
		return nil, err
	}
	if nb2 > 0 {
		if rc := g2lib.srsUploadBG2(h, nil, uint64(nb2)); rc != 0 {
			lib.srsFree(h)
			if rc == codeMem {
				return nil, fmt.Errorf("%w: device %d: B_G2 (%d points): %s", ErrDoesNotFit, d.index, nb2, lib.lastError())
			}
			return nil, libErr("srs allocate bg2", rc)
		}
	}
	return &resident{h: h, refs: ref, plan: plan, bg2: nb2 > 0, ready: make(chan struct{})}, nil
}

// FitWhole reports whether every device holds p whole, B_G2 included,
// under its memory limit beside the sets it holds (as Retain of deferred
// parameters needs; nothing is allocated): a set resident already fits.
func FitWhole(devs []*Device, p *groth16.Params) bool {
	n := [4]uint64{uint64(p.Len(groth16.QueryH)), uint64(p.Len(groth16.QueryL)), uint64(p.Len(groth16.QueryA)), uint64(p.Len(groth16.QueryBG1))}
	nb2 := p.Len(groth16.QueryBG2)
	for _, d := range devs {
		if !d.fitsWhole(p, n, nb2 > 0) {
			return false
		}
	}
	return len(devs) > 0
}

func (d *Device) fitsWhole(p *groth16.Params, n [4]uint64, bg2 bool) bool {
	d.smu.Lock()
	defer d.smu.Unlock()
	if _, ok := d.srs[p]; ok {
		return true
	}
	_, plan, _, _, err := d.planBeside(n, bg2)
	return err == nil && holdsWhole(plan, bg2)
}

func whyNotWhole(plan Plan) string {
	if plan.Streams() {
		return fmt.Sprintf("%d bytes of the queries (B_G2's included) would stream at every run", plan.StreamBytes)
	}
	return "B_G2 would stay on the host"
}

// fillCounts is how many points of each query (h, l, a, b_g1, b_g2) fill
// reads into r's set: the resident prefixes of its plan (every point of a
// set resident whole; a set streamed from its file reads the rest at every
// Run), B_G2 where resident.
func fillCounts(r *resident, src *groth16.Deferred) [5]int {
	var n [5]int
	for q := range 4 {
		n[q] = min(src.Len(groth16.Query(q)), int(r.plan.Resident[q]))
	}
	if r.bg2 && r.plan.BG2Bytes > 0 {
		n[groth16.QueryBG2] = src.Len(groth16.QueryBG2)
	}
	return n
}

// fill reads the deferred queries' resident points into r's set
// (fillCounts): a producer decodes chunks into two pinned buffers in turn,
// an uploader copies each to the device as soon as it is decoded.
func (d *Device) fill(ctx context.Context, r *resident, src *groth16.Deferred) error {
	slots, err := d.fillSlots()
	if err != nil {
		return err
	}
	defer func() {
		for _, s := range slots {
			d.pool.put(s) // not freed while another set's Run is in flight (pinnedPool)
		}
	}()
	type chunk struct {
		q      groth16.Query
		off, n int
		slot   int
	}
	free := make(chan int, len(slots))
	for i := range slots {
		free <- i
	}
	chunks := make(chan chunk, len(slots))
	var upErr atomic.Pointer[error]
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for c := range chunks {
			if upErr.Load() == nil {
				if rc := fileLib.srsWrite(r.h, int32(c.q), uint64(c.off), uint64(c.n), slots[c.slot].p); rc != 0 {
					err := fmt.Errorf("%w: %s[%d:%d] to device %d: %w", ErrCUDA, c.q, c.off, c.off+c.n, d.index, libErr("srs write", rc))
					upErr.Store(&err)
				}
			}
			free <- c.slot
		}
	}()
	raw := make([]byte, fillChunk*groth16.G2Size)
	err = func() error {
		defer close(chunks)
		counts := fillCounts(r, src)
		for q := groth16.QueryH; q <= groth16.QueryBG2; q++ {
			total := counts[q]
			for off := 0; off < total; off += fillChunk {
				if err := ctx.Err(); err != nil {
					return err
				}
				if e := upErr.Load(); e != nil {
					return *e
				}
				n := min(fillChunk, total-off)
				slot := <-free
				var err error
				if q == groth16.QueryBG2 {
					err = src.ReadG2(off, unsafe.Slice((*bls12381.G2Affine)(slots[slot].p), n), raw)
				} else {
					err = src.ReadG1(q, off, unsafe.Slice((*bls12381.G1Affine)(slots[slot].p), n), raw)
				}
				if err != nil {
					free <- slot
					return err
				}
				chunks <- chunk{q: q, off: off, n: n, slot: slot}
			}
		}
		return nil
	}()
	wg.Wait()
	if err == nil {
		if e := upErr.Load(); e != nil {
			err = *e
		}
	}
	if err != nil {
		return fmt.Errorf("cuda: reading %s to device %d: %w", src.Path(), d.index, err)
	}
	return nil
}

// fillSlots takes fill's two pinned chunk buffers (a chunk of B_G2 points
// each, the largest) from the pool, none left taken on failure.
func (d *Device) fillSlots() ([2]pinned, error) {
	var slots [2]pinned
	for i := range slots {
		b, err := d.pool.get(fillChunk * groth16.G2Size)
		if err != nil {
			for _, s := range slots[:i] {
				d.pool.put(s)
			}
			return [2]pinned{}, err
		}
		slots[i] = b
	}
	return slots, nil
}

// LoaderOptions are ParamsLoaderWith's switches; the zero value is
// ParamsLoader's behaviour.
type LoaderOptions struct {
	// StreamFromFile: where a device cannot hold a set whole, what its plan
	// keeps resident is read into device memory and the rest stays in the
	// parameter file, read from it at every Run (RetainFromFile), instead
	// of the whole file decoded into page-locked host memory
	// (groth16.ReadParams: 44 GiB for the 32 GiB PoRep) for the devices to
	// stream from. The host then holds no copy of the parameters; each
	// device's context holds two page-locked chunk slots (2 × 2^ChunkLog ×
	// 96 bytes, Plan.ChunkLog), and the page cache the file. The file must
	// not change while it is loaded. With ReadOptions.Checked the streamed
	// points are decoded once at load with the subgroup check (the device
	// checks the encoding and the curve at every Run).
	StreamFromFile bool
	// StreamFromFileAbove (bytes; 0: no such rule) makes a set whose
	// parameter file is larger stream from its file as with
	// StreamFromFile. The daemon gives its memory budget: a set whose
	// decoded host copy could never fit the budget (the 32 GiB PoRep on an
	// 80 GB card under a 40 GiB budget) streams from its file instead of
	// being refused.
	StreamFromFileAbove int64
	// MakeRoom, when set, is called where a device cannot hold a set whole,
	// before the set is streamed: it evicts one idle set (its Unload frees
	// the devices' copies) and reports whether it did, and the load tries
	// the whole set again, until it fits or MakeRoom has nothing left to
	// evict. The daemon's evicts the parameter cache's least recently used
	// idle set (srs.Cache.EvictLRU: never one in use, kept for urgent work
	// or younger than memory.eviction_min_idle).
	MakeRoom func() bool
}

// StreamsFromFile reports whether a set whose parameter file is size bytes
// streams from its file where a device cannot hold it whole.
func (lo LoaderOptions) StreamsFromFile(size int64) bool {
	return lo.StreamFromFile || (lo.StreamFromFileAbove > 0 && size > lo.StreamFromFileAbove)
}

// StreamsFromFileAt is StreamsFromFile for the parameter file at path (its
// size 0 where it cannot be read: opening it fails later with the reason).
func (lo LoaderOptions) StreamsFromFileAt(path string) bool {
	if !lo.StreamFromFile && lo.StreamFromFileAbove > 0 {
		if fi, err := os.Stat(path); err == nil {
			return lo.StreamsFromFile(fi.Size())
		}
	}
	return lo.StreamFromFile
}

// retainMakingRoom runs retain, and again after each set makeRoom evicted
// while it fails with ErrDoesNotFit (makeRoom nil: once).
func retainMakingRoom(retain func() error, makeRoom func() bool) error {
	err := retain()
	for errors.Is(err, ErrDoesNotFit) && makeRoom != nil && makeRoom() {
		err = retain()
	}
	return err
}

// ParamsLoader reads parameter files for devs, for srs.Config's Load and
// Unload: load opens the file with the queries deferred (groth16.OpenParams)
// and has every device read them into its own memory (RetainContext), so
// the host keeps only the verifying key. Where a device cannot hold the set
// whole (ErrDoesNotFit) it reads the file into host memory instead
// (groth16.ReadParams) and every device retains that. check, when set,
// runs on the opened parameters before any point is read (a file of the
// wrong shape fails before minutes of reading). unload releases what load
// retained.
func ParamsLoader(devs []*Device, opts groth16.ReadOptions, check func(id string, p *groth16.Params) error) (
	load func(ctx context.Context, id, path string) (*groth16.Params, error),
	unload func(id string, p *groth16.Params),
) {
	return ParamsLoaderWith(devs, opts, check, LoaderOptions{})
}

// ParamsLoaderWith is ParamsLoader with lo's switches: a set that a device
// cannot hold whole and that lo.StreamsFromFile streams from its file
// (RetainFromFile) instead of being read into host memory.
func ParamsLoaderWith(devs []*Device, opts groth16.ReadOptions, check func(id string, p *groth16.Params) error, lo LoaderOptions) (
	load func(ctx context.Context, id, path string) (*groth16.Params, error),
	unload func(id string, p *groth16.Params),
) {
	retainAll := func(ctx context.Context, p *groth16.Params, fromFile bool) error {
		for i, d := range devs {
			retain := d.RetainContext
			if fromFile {
				retain = d.RetainFromFile
			}
			if err := retain(ctx, p); err != nil {
				for _, done := range devs[:i] {
					done.Release(p)
				}
				return err
			}
		}
		return nil
	}
	load = func(ctx context.Context, id, path string) (*groth16.Params, error) {
		p, err := groth16.OpenParams(path, opts)
		if err == nil && check != nil {
			err = check(id, p)
		}
		if err != nil {
			return nil, err
		}
		err = retainMakingRoom(func() error { return retainAll(ctx, p, false) }, lo.MakeRoom)
		if !errors.Is(err, ErrDoesNotFit) {
			if err != nil {
				return nil, err
			}
			return p, nil
		}
		if lo.StreamsFromFileAt(path) {
			if err := streamFromFile(ctx, devs, p, opts, retainAll); err != nil {
				return nil, err
			}
			return p, nil
		}
		if p, err = groth16.ReadParams(path, opts); err != nil {
			return nil, err
		}
		if err := retainAll(ctx, p, false); err != nil {
			return nil, err
		}
		return p, nil
	}
	unload = func(_ string, p *groth16.Params) {
		for _, d := range devs {
			d.Release(p)
		}
	}
	return load, unload
}

// streamFromFile retains deferred p on every device, streamed from its
// file where it does not fit whole, and with opts.Checked checks the
// streamed points once (checkStreamed); on failure nothing stays retained.
func streamFromFile(ctx context.Context, devs []*Device, p *groth16.Params, opts groth16.ReadOptions,
	retainAll func(context.Context, *groth16.Params, bool) error,
) error {
	if err := retainAll(ctx, p, true); err != nil {
		return err
	}
	p.Deferred.MarkStreamed()
	if !opts.Checked {
		return nil
	}
	if err := checkStreamed(ctx, devs, p); err != nil {
		for _, d := range devs {
			d.Release(p)
		}
		return err
	}
	return nil
}
