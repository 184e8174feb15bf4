package sdr

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"io"
	"runtime"

	"github.com/cuzk-project/cuzk/filecoin"
)

// ParentCacheID is the name rust-fil-proofs gives this graph's parent cache
// (storage-proofs-porep stacked/vanilla/cache.rs cache_path), without the
// ".cache" extension: "v28-sdr-parent-" ‖ hex SHA-256("poseidon_hasher" ‖
// graph identifier ‖ the four Feistel keys as u64 LE ‖ u32_le(nodes)). It is
// the key of the parent cache manifest (parent_cache.json).
func (g *Graph) ParentCacheID() string {
	h := sha256.New()
	h.Write([]byte("poseidon_hasher"))
	h.Write([]byte(filecoin.GraphIdentifier(g.nodes)))
	var b [8]byte
	for _, k := range g.feistelKeys {
		binary.LittleEndian.PutUint64(b[:], k)
		h.Write(b[:])
	}
	binary.LittleEndian.PutUint32(b[:4], uint32(g.nodes))
	h.Write(b[:4])
	return fmt.Sprintf("v%d-sdr-parent-%s", filecoin.ParamsVersion, hex.EncodeToString(h.Sum(nil)))
}

// cacheEntry is the size of one node's parent cache entry: 14 u32 LE.
const cacheEntry = Degree * 4

// WriteParentCache writes the whole parent cache file to w: for every node
// in order its 14 parents (6 DRG then 8 expander) as u32 little-endian,
// Nodes()·56 bytes. Parents are computed on all CPUs, written in order. It
// stops with ctx's error when ctx is done.
func (g *Graph) WriteParentCache(ctx context.Context, w io.Writer) error {
	const chunkNodes = 1 << 16
	workers := runtime.GOMAXPROCS(0)
	type chunk struct {
		buf  []byte
		done chan struct{}
	}
	// A ring of chunks in flight, consumed in order; each worker fills one.
	inflight := make(chan *chunk, 2*workers)
	work := make(chan struct {
		c      *chunk
		lo, hi uint64
	}, 2*workers)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	go func() {
		defer close(inflight)
		defer close(work)
		for lo := uint64(0); lo < g.nodes && ctx.Err() == nil; lo += chunkNodes {
			hi := min(lo+chunkNodes, g.nodes)
			c := &chunk{buf: make([]byte, (hi-lo)*cacheEntry), done: make(chan struct{})}
			select {
			case inflight <- c:
			case <-ctx.Done():
				return
			}
			work <- struct {
				c      *chunk
				lo, hi uint64
			}{c, lo, hi}
		}
	}()
	for i := 0; i < workers; i++ {
		go func() {
			var p [Degree]uint32
			for job := range work {
				for v := job.lo; v < job.hi; v++ {
					g.Parents(uint32(v), &p)
					e := job.c.buf[(v-job.lo)*cacheEntry:]
					for j, q := range p {
						binary.LittleEndian.PutUint32(e[4*j:], q)
					}
				}
				close(job.c.done)
			}
		}()
	}
	for c := range inflight {
		select {
		case <-c.done:
		case <-ctx.Done():
			return ctx.Err()
		}
		if _, err := w.Write(c.buf); err != nil {
			return fmt.Errorf("sdr: write parent cache: %w", err)
		}
	}
	return ctx.Err()
}
