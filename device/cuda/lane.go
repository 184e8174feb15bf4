package cuda

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"
	"unsafe"

	"github.com/cuzk-project/cuzk/groth16"
)

// kernels is a library context on the GPU (its streams and scratch) and
// the lock that serializes its use: the Device's own, and one per Lane.
type kernels struct {
	mu     sync.Mutex // serializes use of ctx
	ctx    uintptr
	closed bool
	// res is the page-locked host memory the library writes a Run's
	// result into: a copy into pageable memory is staged by the driver,
	// and one can wait behind another context's pending copy (the one a
	// bulk Run queues behind its H MSM). A paired Run (RunPair) writes
	// two, the second after it.
	res *cResult
	// staged, after the results, is the word a Run's library call
	// writes once a and b are uploaded (staged.go); stagedSeq, the
	// number the last Run was given to write there.
	staged    *uint32
	stagedSeq uint32
}

// allocResult gives k (its ctx made) its page-locked results and the
// word after them.
func (k *kernels) allocResult() error {
	n := 2 * uint64(unsafe.Sizeof(cResult{}))
	p := lib.hostAlloc(n + 8)
	if p == nil {
		return fmt.Errorf("%w: page-locked result: %s", ErrCUDA, lib.lastError())
	}
	k.res = (*cResult)(p)
	k.staged = (*uint32)(unsafe.Add(p, n))
	*k.staged = 0
	return nil
}

// result runs call on k's result, cleared first, and returns a copy of
// what it wrote (k.mu held).
func (k *kernels) result(call func(res *cResult) int32) (cResult, int32) {
	r, rc := k.results2(call)
	return r[0], rc
}

// results2 is result for a call that writes two results (a paired Run).
func (k *kernels) results2(call func(res *cResult) int32) ([2]cResult, int32) {
	r := (*[2]cResult)(unsafe.Pointer(k.res))
	*r = [2]cResult{}
	rc := call(k.res)
	return *r, rc
}

// call is k.result for a Run on d's GPU (k.mu held), and when it
// returned: the pool counts the Run in flight meanwhile and frees no
// page-locked memory until a Run leaves the device idle (pinnedPool.runEnd,
// after end).
func (d *Device) call(k *kernels, run func(res *cResult) int32) (res cResult, rc int32, end time.Time) {
	end = d.inRun(k, func() { res, rc = k.result(run) })
	return res, rc, end
}

// inRun calls f, a Run's library call on k (k.mu held), counted by the
// pool as a Run in flight, and returns when it returned.
func (d *Device) inRun(k *kernels, f func()) time.Time {
	d.pool.runStart()
	f()
	end := time.Now()
	d.pool.runEnd(k == &d.kernels)
	return end
}

// freeResult gives k's page-locked result back.
func (k *kernels) freeResult() {
	if k.res != nil {
		lib.hostFree(unsafe.Pointer(k.res))
		k.res, k.staged = nil, nil
	}
}

// lock takes k, or fails (unlocked) if it is closed.
func (k *kernels) lock() error {
	k.mu.Lock()
	if k.closed {
		k.mu.Unlock()
		return ErrClosed
	}
	return nil
}

// Lane is a second library context on a Device's GPU, for small urgent
// partitions (a WinningPoSt): it shares the Device's resident parameter
// sets, compiled matrices and pinned buffers, and its Runs do not wait for
// the Device's. Their kernels share the GPU with a bulk Run in flight
// instead of queuing behind it, on streams of the device's greatest
// priority (their blocks start before the bulk Run's waiting ones); the
// bulk Run slows by what they take.
// Everything but Run, Close and Profile is the Device's.
//
// The lane's scratch (its a, b, c and what its MSMs and transforms need,
// kept for its next Run) grows with the partitions it runs and is outside
// the Device's memory limit: about 24 GiB for a partition of 2^27 rows,
// so a lane is for small partitions only (the engine's CriticalLaneRows).
type Lane struct {
	*Device
	k kernels
}

var _ groth16.Device = (*Lane)(nil)

// NewLane opens a Lane on d's GPU. Closing d closes it.
func (d *Device) NewLane() (*Lane, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return nil, ErrClosed
	}
	c := ConfigFromEnv()
	c.Priority = true
	cfg := c.c()
	ctx := lib.ctxNewCfg(int32(d.index), &cfg)
	if ctx == 0 {
		return nil, fmt.Errorf("%w: lane context on device %d: %s", ErrCUDA, d.index, lib.lastError())
	}
	l := &Lane{Device: d, k: kernels{ctx: ctx}}
	if err := l.k.allocResult(); err != nil {
		lib.ctxFree(ctx)
		return nil, err
	}
	d.lanes = append(d.lanes, l)
	return l, nil
}

// Run is Device.Run on the lane's context: it waits only for another Run
// on this lane.
func (l *Lane) Run(ctx context.Context, wp groth16.Prepared) (groth16.Partial, error) {
	return l.runOn(&l.k, ctx, wp)
}

// Profile is the Device's, without the kept stagings: they are the
// Device's pool, reported once by the Device itself.
func (l *Lane) Profile() groth16.Profile {
	p := l.Device.Profile()
	p.KeptBytes, p.EvictKept = nil, nil
	return p
}

// Close frees the lane's context once a Run on it is done; the Device
// stays open.
func (l *Lane) Close() error {
	d := l.Device
	d.mu.Lock()
	defer d.mu.Unlock()
	d.lanes = slices.DeleteFunc(d.lanes, func(x *Lane) bool { return x == l })
	l.k.free()
	return nil
}

// closeLanes closes every lane of d (d.mu held).
func (d *Device) closeLanes() {
	for _, l := range d.lanes {
		l.k.free()
	}
	d.lanes = nil
}

// free waits for a Run on k and frees its context.
func (k *kernels) free() {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.closed {
		return
	}
	k.closed = true
	lib.ctxFree(k.ctx)
	k.freeResult()
}
