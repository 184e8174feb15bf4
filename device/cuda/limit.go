package cuda

import (
	"errors"
	"fmt"
	"unsafe"

	"github.com/cuzk-project/cuzk/groth16"
)

// ErrMemoryLimit is returned when the device memory limit is below what a
// run of a parameter set needs; the message names the bytes needed.
var ErrMemoryLimit = errors.New("cuda: device memory limit below what the parameters need")

// DefaultMemoryMargin is what the default memory limit leaves of the
// device's free memory (when the Device is opened) for the CUDA runtime's
// own use: kernel modules, local memory, allocation granularity.
const DefaultMemoryMargin = 1 << 30

// Plan is how a parameter set lives on a device under a memory limit: a
// prefix of each G1 query resident, the rest streamed from the parameters'
// host memory at every Run in chunks (uploaded beside the MSM of the
// previous chunk), and B_G2 resident where everything is, else streamed
// whole in chunks of half the G1 chunk; the bytes are device memory unless
// named otherwise.
type Plan struct {
	Limit         uint64    // the limit it was made for (0: none)
	Points        [4]uint64 // h, l, a, b_g1
	Resident      [4]uint64 // of which resident (a prefix of each)
	ResidentBytes uint64    // the resident points (B_G2's included)
	ScratchBytes  uint64    // what a Run allocates for this set under the limit
	StreamBytes   uint64    // host to device bytes of points per Run (B_G2's included)
	MinBytes      uint64    // the least limit a Run of this set works under
	ChunkLog      uint32    // streamed chunks of 2^ChunkLog points (0: nothing streams)
	PairsLog      uint32    // the MSMs' sorted pairs per batch of windows, at most 2^PairsLog
	Pinned        uint32    // bit q: query q streams from page-locked memory (bit 4: B_G2)
	// BG2Bytes is the resident B_G2 (192 B a point; its G2 MSM scratch is
	// in ScratchBytes): held where the parameters have B_G2 and the whole
	// set fits with it, nothing streaming. BG2StreamBytes is B_G2 streamed
	// at every Run instead (its chunks' G2 MSM scratch in ScratchBytes).
	// Both 0: Finish computes B_G2 on the CPU.
	BG2Bytes, BG2StreamBytes uint64
}

// DeviceBG2 reports whether Run computes B_G2 under the plan (resident or
// streamed).
func (p Plan) DeviceBG2() bool { return p.BG2Bytes > 0 || p.BG2StreamBytes > 0 }

// Streams reports whether some query is not resident.
func (p Plan) Streams() bool { return p.ChunkLog != 0 }

// StreamStats is the streaming of one Run, measured with CUDA events.
type StreamStats struct {
	Bytes   uint64  // host to device bytes of the streamed chunks (points, tail scalars, indices)
	Chunks  uint32  // chunks streamed
	CopyMS  float32 // the chunks' upload times, summed
	StallMS float32 // time the MSMs waited for an upload: the copy not hidden by compute
	ReadMS  float32 // host time reading the chunks from the parameter file (RetainFromFile), beside the kernels
	// Cached: of Bytes, the points uploaded from the page-locked host copy
	// of part of the parameter file (Device.StreamCache) instead of read
	Cached uint64
}

// cLimits mirrors cuzk_limits.
type cLimits struct {
	Limit      uint64
	ChunkLgMax uint32
	BG2        uint32 // 1: plan B_G2 on the device (resident where everything fits, else streamed)
}

// cPlan mirrors cuzk_plan.
type cPlan struct {
	Limit                                              uint64
	N, Resident                                        [4]uint64
	ResidentBytes, ScratchBytes, StreamBytes, MinBytes uint64
	Lgn, ChunkLg, PairsLg, Pinned                      uint32
	BG2Bytes, BG2StreamBytes                           uint64
}

func (c cPlan) plan() Plan {
	return Plan{Limit: c.Limit, Points: c.N, Resident: c.Resident, ResidentBytes: c.ResidentBytes,
		ScratchBytes: c.ScratchBytes, StreamBytes: c.StreamBytes, MinBytes: c.MinBytes, ChunkLog: c.ChunkLg,
		PairsLog: c.PairsLg, Pinned: c.Pinned, BG2Bytes: c.BG2Bytes, BG2StreamBytes: c.BG2StreamBytes}
}

// cStreamStats mirrors cuzk_stream_stats.
type cStreamStats struct {
	Bytes                      uint64
	Chunks, Timed              uint32
	Copy, Compute, Stall, Span float32
	Read                       float32
	_                          uint32
	Cached                     uint64
}

// streamLib holds the streaming section of the C ABI.
var streamLib struct {
	planFor          func(dev int32, nh, nl, na, nb uint64, lim *cLimits, out *cPlan) int32
	srsUploadLimited func(dev int32, h unsafe.Pointer, nh uint64, l unsafe.Pointer, nl uint64, a unsafe.Pointer, na uint64, b unsafe.Pointer, nb uint64, lim *cLimits) uintptr
	srsPlan          func(s uintptr, out *cPlan) int32
	memHeld          func(dev int32) uint64
	streamStats      func(ctx uintptr, out *cStreamStats) int32
}

func registerStream(reg func(fn any, name string)) {
	reg(&streamLib.planFor, "cuzk_plan_for")
	reg(&streamLib.srsUploadLimited, "cuzk_srs_upload_limited")
	reg(&streamLib.srsPlan, "cuzk_srs_plan")
	reg(&streamLib.memHeld, "cuzk_mem_held")
	reg(&streamLib.streamStats, "cuzk_stream_stats_get")
}

// PlanFor is the plan limit gives parameters of these query sizes on device
// index (nothing is allocated). Below the minimum it returns the plan (its
// MinBytes set) and an error wrapping ErrMemoryLimit.
func PlanFor(index int, points [4]uint64, limit uint64) (Plan, error) {
	return planFor(index, points, cLimits{Limit: limit})
}

func planFor(index int, n [4]uint64, lim cLimits) (Plan, error) {
	if err := load(); err != nil {
		return Plan{}, err
	}
	var out cPlan
	rc := streamLib.planFor(int32(index), n[0], n[1], n[2], n[3], &lim, &out)
	switch {
	case rc == codeMem:
		return out.plan(), fmt.Errorf("%w: device %d: %s", ErrMemoryLimit, index, lib.lastError())
	case rc != 0:
		return Plan{}, libErr("plan", rc)
	}
	return out.plan(), nil
}

// memoryLimit is the limit the device plans under: MemoryLimit, else the
// free memory when the device was opened less DefaultMemoryMargin.
func (d *Device) memoryLimit() uint64 {
	if d.MemoryLimit > 0 {
		return d.MemoryLimit
	}
	return d.defaultLimit
}

// defaultLimitOf is free - DefaultMemoryMargin (at least 1: a limit of 0
// would mean none).
func defaultLimitOf(free uint64) uint64 {
	if free <= DefaultMemoryMargin {
		return 1
	}
	return free - DefaultMemoryMargin
}

// Plan is p's plan on the device, if p is resident.
func (d *Device) Plan(p *groth16.Params) (Plan, bool) {
	d.smu.Lock()
	defer d.smu.Unlock()
	if r, ok := d.srs[p]; ok {
		return r.plan, true
	}
	return Plan{}, false
}

// uploadLimited makes p's queries (points n, host memory src) resident
// under the device's limit, less what the other resident sets hold; the
// whole (every set's resident points plus the largest run scratch) must
// stay under the limit. bg2: the set has B_G2, to be planned on the device
// (the caller uploads it when the plan has it: Plan.DeviceBG2).
// whole: the set must be resident whole, B_G2 included, else ErrDoesNotFit
// before anything is allocated (src is then all nil: paramsfile.go).
// Called with smu held.
func (d *Device) uploadLimited(n [4]uint64, src [4]unsafe.Pointer, bg2, whole bool) (uintptr, Plan, error) {
	lim, plan, others, scratch, err := d.planBeside(n, bg2)
	if err != nil {
		return 0, Plan{}, err
	}
	limit := lim.Limit + others
	if whole && !holdsWhole(plan, bg2) {
		return 0, Plan{}, fmt.Errorf("%w: device %d, limit %d bytes: %s", ErrDoesNotFit, d.index, lim.Limit, whyNotWhole(plan))
	}
	h := streamLib.srsUploadLimited(int32(d.index), src[0], n[0], src[1], n[1], src[2], n[2], src[3], n[3], &lim)
	if h == 0 {
		return 0, Plan{}, fmt.Errorf("%w: uploading parameters to device %d: %s", ErrCUDA, d.index, lib.lastError())
	}
	var cp cPlan
	if rc := streamLib.srsPlan(h, &cp); rc != 0 {
		lib.srsFree(h)
		return 0, Plan{}, libErr("srs plan", rc)
	}
	plan = cp.plan()
	if need := others + plan.ResidentBytes + max(scratch, plan.ScratchBytes); need > limit {
		lib.srsFree(h)
		return 0, Plan{}, fmt.Errorf("%w: device %d: with the %d resident parameter sets (%d bytes, runs need up to %d bytes of scratch) these need %d bytes, the limit is %d",
			ErrMemoryLimit, d.index, len(d.srs), others, scratch, need, limit)
	}
	return h, plan, nil
}

// planBeside is the plan the set of query sizes n (and B_G2, bg2) gets
// under the device's limit less what the resident sets hold (others; the
// largest of their run scratch, scratch), with the limits it was made
// under. Called with smu held.
func (d *Device) planBeside(n [4]uint64, bg2 bool) (lim cLimits, plan Plan, others, scratch uint64, err error) {
	limit := d.memoryLimit()
	if d.testLimit != nil {
		probe := cLimits{Limit: 1, ChunkLgMax: d.chunkLgMax}
		if bg2 {
			probe.BG2 = 1
		}
		lo, _ := planFor(d.index, n, probe)
		// (all: everything resident, B_G2 included where the set has it, so that all-1 streams)
		probe.Limit = 1 << 62
		all, err := planFor(d.index, n, probe)
		if err != nil {
			return cLimits{}, Plan{}, 0, 0, err
		}
		limit = d.testLimit(lo.MinBytes, all.ResidentBytes+all.ScratchBytes)
	}
	for _, r := range d.srs {
		others += r.plan.ResidentBytes
		scratch = max(scratch, r.plan.ScratchBytes)
	}
	if others >= limit {
		return cLimits{}, Plan{}, others, scratch, fmt.Errorf("%w: device %d: the %d resident parameter sets hold %d of the %d bytes of the limit",
			ErrMemoryLimit, d.index, len(d.srs), others, limit)
	}
	lim = cLimits{Limit: limit - others, ChunkLgMax: d.chunkLgMax}
	if bg2 {
		lim.BG2 = 1
	}
	plan, err = planFor(d.index, n, lim)
	return lim, plan, others, scratch, err
}

// holdsWhole reports whether plan keeps every query resident, and B_G2
// where the set has one (bg2).
func holdsWhole(plan Plan, bg2 bool) bool { return !plan.Streams() && (!bg2 || plan.BG2Bytes > 0) }

// MemHeld is the device memory the library's buffers hold on device index.
func MemHeld(index int) uint64 {
	if load() != nil {
		return 0
	}
	return streamLib.memHeld(int32(index))
}

func (k *kernels) streamStats() StreamStats {
	var s cStreamStats
	if streamLib.streamStats(k.ctx, &s) != 0 {
		return StreamStats{}
	}
	return StreamStats{Bytes: s.Bytes, Chunks: s.Chunks, CopyMS: s.Copy, StallMS: s.Stall, ReadMS: s.Read, Cached: s.Cached}
}
