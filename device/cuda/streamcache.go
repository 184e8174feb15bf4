package cuda

import (
	"context"
	"fmt"
	"log/slog"
	"os"

	"github.com/cuzk-project/cuzk/groth16"
	"github.com/cuzk-project/cuzk/internal/parallel"
)

// The stream cache: a set streamed from its parameter file (RetainFromFile)
// reads every streamed chunk from the file at every Run, on the host,
// while the device waits for it where the reads are slower than the
// kernels (the 32 GiB PoRep under a 16 GiB limit streams ≈ 44 GB a
// partition). Device.StreamCache bytes of host memory, page-locked, hold a
// copy of the last streamed bytes of the file (cacheRange), read once when
// the set is retained; the chunks within it are uploaded from there with no read. The
// copy is counted in the set's memory (groth16.Deferred.Hold), so a daemon's
// budget that counts the set counts it.

// streamCacheLib holds the library's entry for the copy.
var streamCacheLib struct {
	srsFileCache func(s uintptr, p uintptr, fileOff, n uint64) int32
}

func regStreamCache(reg func(fn any, name string)) {
	reg(&streamCacheLib.srsFileCache, "cuzk_srs_file_cache")
}

// cacheRange is the byte range of a parameter file that a copy of at most
// max bytes holds for a set streamed under plan, off being the byte offset
// of point 0 of h, l, a, b_g1 and b_g2 and end the file's size. A plan
// keeps resident whole queries in the order h, l, a, b_g1, then a prefix
// of one, so what streams is one run of the file from the first streamed
// point to its end (b_g2 follows b_g1 and streams wherever anything does;
// the counts between the queries are in the run). The copy holds the end
// of that run: b_g2, b_g1, a, then l and h, the queries whose MSMs take
// the least time per byte read first, since h's MSM outlasts the reads of
// its points (the 32 GiB PoRep under 16 GiB on an H100: a copy of the run's
// first 16 GiB, h's streamed points and some of l's, took the reads from
// 2.79 to 1.91 s a partition and the partition only from 3.53 to 3.46 s).
// With from a query (CUZK_STREAM_CACHE_AT=a: groth16.QueryA), the copy
// begins at that query's first streamed point instead and holds what
// follows, up to max bytes: an experiment (docs/gpu-notes.md, the stall
// model) to measure against the end's copy; from -1 holds the end.
// Length 0: nothing streams, or max is 0.
func cacheRange(plan Plan, off [5]uint64, end, max uint64, from groth16.Query) (lo, n uint64) {
	if !plan.Streams() || max == 0 {
		return 0, 0
	}
	first := end
	for q := range 4 {
		if plan.Resident[q] < plan.Points[q] {
			first = off[q] + plan.Resident[q]*groth16.G1Size
			break
		}
	}
	if first == end && plan.BG2StreamBytes > 0 {
		first = off[groth16.QueryBG2]
	}
	if first >= end {
		return 0, 0
	}
	if from >= groth16.QueryH && from <= groth16.QueryBG1 {
		at := off[from] + plan.Resident[from]*groth16.G1Size
		if at < first {
			at = first
		}
		if at < end {
			return at, min(max, end-at)
		}
	}
	n = min(max, end-first)
	return end - n, n
}

// cacheFrom is the query CUZK_STREAM_CACHE_AT names (h, l, a or b_g1), or
// -1: the copy holds the end of what streams.
func cacheFrom() groth16.Query {
	switch os.Getenv("CUZK_STREAM_CACHE_AT") {
	case "h":
		return groth16.QueryH
	case "l":
		return groth16.QueryL
	case "a":
		return groth16.QueryA
	case "b_g1":
		return groth16.QueryBG1
	}
	return -1
}

// fillCache reads the last StreamCache bytes of what r's plan streams from
// src's file (cacheRange) into page-locked host memory and gives it to the library
// (before r's first Run). Where the host cannot page-lock that much the set
// streams without a copy, and a warning says so (the copy saves time, the
// proofs need none); where the read fails the retain fails naming the
// range (nothing is left held).
func (d *Device) fillCache(ctx context.Context, r *resident, src *groth16.Deferred) error {
	if os.Getenv("CUZK_FILE_MAP") == "1" {
		return nil // the library maps and page-locks the whole file (srs/file.cu): it is the copy
	}
	f, err := os.Open(src.Path())
	if err != nil {
		return fmt.Errorf("cuda: stream cache: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return fmt.Errorf("cuda: stream cache: %w", err)
	}
	off, err := fileOffsets(f, src)
	if err != nil {
		return err
	}
	lo, n := cacheRange(r.plan, off, uint64(st.Size()), uint64(d.StreamCache), cacheFrom())
	if n == 0 {
		return nil
	}
	buf, err := d.pool.allocator()(n)
	if err != nil {
		slog.Warn("device.stream_cache: the copy could not be page-locked; the set streams without it",
			"device", d.index, "file", src.Path(), "bytes", n, "err", err)
		return nil
	}
	if err := readAtParallel(ctx, f, buf.bytes(), int64(lo)); err != nil {
		buf.free()
		return fmt.Errorf("cuda: stream cache: reading bytes %d..%d of %s: %w", lo, lo+n, src.Path(), err)
	}
	if rc := streamCacheLib.srsFileCache(r.h, uintptr(buf.p), lo, n); rc != 0 {
		buf.free()
		return libErr("srs file cache", rc)
	}
	r.cache, r.held = buf, src
	src.Hold(int64(n))
	return nil
}

// readAtParallel fills b from f at offset off in parts of 256 MiB, 8
// readers at once, until ctx ends.
func readAtParallel(ctx context.Context, f *os.File, b []byte, off int64) error {
	const part = 256 << 20
	return parallel.FirstErrorOn(8, (len(b)+part-1)/part, func(i int) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		at := int64(i) * part
		_, err := f.ReadAt(b[at:min(at+part, int64(len(b)))], off+at)
		return err
	})
}

// free releases r's set on the device, then its stream cache (the library
// reads the cache until the set is freed).
func (r *resident) free() {
	lib.srsFree(r.h)
	if r.cache.p != nil {
		r.cache.free()
		r.held.Hold(-int64(r.cache.n))
		r.cache, r.held = pinned{}, nil
	}
}
