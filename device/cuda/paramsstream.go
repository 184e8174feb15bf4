package cuda

import (
	"context"
	"encoding/binary"
	"fmt"
	"os"
	"unsafe"

	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"

	"github.com/cuzk-project/cuzk/groth16"
)

// Parameters streamed from their file: a set opened with groth16.OpenParams
// that the device cannot hold whole keeps resident what its plan keeps
// (filled from the file as a whole set is, paramsfile.go), and the library
// reads the rest from the file at every Run: each chunk's raw bytes by
// several host threads into one of two page-locked host slots of the
// device's context (a chunk each), the copy to the device, a kernel
// converting the file's encoding to the device's layout (rejecting what
// the file's decoder rejects: the Run fails, no wrong proof), then the
// chunk's MSM. The host holds no copy of the parameters: the page cache
// holds the file (not the process's memory), the context two chunks.

// fileStreamLib holds the library's entry for sets streamed from their file.
var fileStreamLib struct {
	srsOpenFile func(dev int32, n *uint64, nbg2 uint64, lim *cLimits, fd int32, off *uint64) uintptr
}

func regFileStream(reg func(fn any, name string)) {
	reg(&fileStreamLib.srsOpenFile, "cuzk_srs_open_file")
}

// RetainFromFile is RetainContext, except that deferred parameters
// (groth16.OpenParams) the device cannot hold whole are not refused: what
// the plan keeps resident is read into device memory, the rest stays in
// the file and is read from it at every Run. The file must not change
// while the set is retained (a point that is no longer one fails the Run
// that reads it). Decoded parameters are retained as RetainContext does.
func (d *Device) RetainFromFile(ctx context.Context, p *groth16.Params) error {
	_, err := d.residentOf(ctx, p, 1, true)
	return err
}

// allocateFromFile makes p's set on the device under its plan, the
// resident prefixes' points unset (fill writes them), the streamed ranges
// left to the library to read from p's file (smu held).
func (d *Device) allocateFromFile(p *groth16.Params) (*resident, error) {
	src := p.Deferred
	n := [4]uint64{uint64(src.Len(groth16.QueryH)), uint64(src.Len(groth16.QueryL)), uint64(src.Len(groth16.QueryA)), uint64(src.Len(groth16.QueryBG1))}
	nb2 := uint64(src.Len(groth16.QueryBG2))
	lim, _, others, scratch, err := d.planBeside(n, nb2 > 0)
	if err != nil {
		return nil, err
	}
	f, err := os.Open(src.Path())
	if err != nil {
		return nil, fmt.Errorf("cuda: streaming parameters from their file: %w", err)
	}
	defer f.Close() // the library keeps a descriptor of its own
	off, err := fileOffsets(f, src)
	if err != nil {
		return nil, err
	}
	h := fileStreamLib.srsOpenFile(int32(d.index), &n[0], nb2, &lim, int32(f.Fd()), &off[0])
	if h == 0 {
		return nil, fmt.Errorf("%w: parameters of %s on device %d: %s", ErrCUDA, src.Path(), d.index, lib.lastError())
	}
	var cp cPlan
	if rc := streamLib.srsPlan(h, &cp); rc != 0 {
		lib.srsFree(h)
		return nil, libErr("srs plan", rc)
	}
	plan := cp.plan()
	if need, limit := others+plan.ResidentBytes+max(scratch, plan.ScratchBytes), lim.Limit+others; need > limit {
		lib.srsFree(h)
		return nil, fmt.Errorf("%w: device %d: with the %d resident parameter sets (%d bytes, runs need up to %d bytes of scratch) these need %d bytes, the limit is %d",
			ErrMemoryLimit, d.index, len(d.srs), others, scratch, need, limit)
	}
	return &resident{h: h, plan: plan, bg2: nb2 > 0, ready: make(chan struct{})}, nil
}

// fileOffsets is the byte offset of point 0 of each query (h, l, a, b_g1,
// b_g2) in src's file f. OpenParams checked that the queries, each a
// 4-byte big-endian count and its points, end the file exactly: they are
// found from the end, and each count is checked against the file again.
func fileOffsets(f *os.File, src *groth16.Deferred) ([5]uint64, error) {
	var off [5]uint64
	st, err := f.Stat()
	if err != nil {
		return off, fmt.Errorf("cuda: %w", err)
	}
	end := st.Size()
	for q := groth16.QueryBG2; q >= groth16.QueryH; q-- {
		size := int64(groth16.G1Size)
		if q == groth16.QueryBG2 {
			size = groth16.G2Size
		}
		n := int64(src.Len(q))
		start := end - n*size
		var cnt [4]byte
		if start < 4 {
			return off, fmt.Errorf("cuda: %s: %w: %s's %d points do not fit the file (it changed after it was opened?)", src.Path(), groth16.ErrMalformed, q, n)
		}
		if _, err := f.ReadAt(cnt[:], start-4); err != nil {
			return off, fmt.Errorf("cuda: %s: reading the count of %s: %w", src.Path(), q, err)
		}
		if got := int64(binary.BigEndian.Uint32(cnt[:])); got != n {
			return off, fmt.Errorf("cuda: %s: %w: %s has %d points, the file's count at offset %d says %d (it changed after it was opened?)",
				src.Path(), groth16.ErrMalformed, q, n, start-4, got)
		}
		off[q] = uint64(start)
		end = start - 4
	}
	return off, nil
}

// checkStreamed decodes with the file's checks (subgroup membership where
// the parameters were opened Checked) every point that the devices'
// plans stream from the file and discard: the device's conversion checks
// the encoding and the curve at every Run, not the subgroup.
func checkStreamed(ctx context.Context, devs []*Device, p *groth16.Params) error {
	src := p.Deferred
	var from [5]int // the least resident prefix over the devices; B_G2 streams whole where anything does
	for q := range from {
		from[q] = src.Len(groth16.Query(q))
	}
	for _, d := range devs {
		plan, ok := d.Plan(p)
		if !ok || !plan.Streams() {
			continue
		}
		for q := range 4 {
			from[q] = min(from[q], int(plan.Resident[q]))
		}
		if plan.BG2StreamBytes > 0 {
			from[groth16.QueryBG2] = 0
		}
	}
	g1 := make([]bls12381.G1Affine, fillChunk)
	raw := make([]byte, fillChunk*groth16.G2Size)
	for q := groth16.QueryH; q <= groth16.QueryBG2; q++ {
		total := src.Len(q)
		for off := from[q]; off < total; off += fillChunk / 2 {
			if err := ctx.Err(); err != nil {
				return err
			}
			k := min(fillChunk/2, total-off)
			var err error
			if q == groth16.QueryBG2 {
				err = src.ReadG2(off, unsafe.Slice((*bls12381.G2Affine)(unsafe.Pointer(&g1[0])), k), raw)
			} else {
				err = src.ReadG1(q, off, g1[:k], raw)
			}
			if err != nil {
				return fmt.Errorf("cuda: checking the streamed points of %s: %w", src.Path(), err)
			}
		}
	}
	return nil
}
