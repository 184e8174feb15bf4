package groth16

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"sync"
	"time"

	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-project/cuzk/r1cs"
)

// WriteSetup is Setup written straight into a `.params` image at w, query
// by query, without holding the parameters in memory: the file bytes are
// those of Setup(c, seed) written with WriteTo. It returns the verifying
// key (for the `.vk`) and the phases' times.
//
// FOR DEVELOPMENT AND TESTS ONLY, as Setup.
//
// Every vector's offset is known once the circuit is evaluated, so each is
// written at its place: the G1 queries h, l, a, b_g1 in turn (opts.FixedBase
// multiplies a chunk while the previous one is encoded and written) and
// b_g2 beside them. Memory: the evaluations u, v, w
// (32 bytes per variable each; ic, l, a and b are made from them in
// place), the Lagrange basis (32 bytes per row) while evaluating, and a
// few chunks of points. Each query's scalars are freed once it is written.
func WriteSetup(ctx context.Context, w io.WriterAt, c r1cs.Circuit, seed []byte, opts SetupOptions) (*VerifyingKey, *SetupReport, error) {
	start := time.Now()
	rec := newSetupRecorder(opts.Progress)
	t := DeriveToxic(seed)
	sc, err := scalarsOf(c, t, &opts, rec)
	if err != nil {
		return nil, nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	fb := opts.FixedBase
	if fb == nil {
		fb = &CPUFixedBase{}
	}
	chunk := opts.chunk()

	ph := rec.begin("ic", len(sc.ic))
	vk, err := sc.verifyingKey(t, fb)
	if err != nil {
		return nil, nil, err
	}
	hdrLen, err := writeVKHeader(w, vk)
	if err != nil {
		return nil, nil, err
	}
	ph.end()

	queries := sc.g1Queries()
	offsets := make([]int64, len(queries))
	off := hdrLen
	for i, q := range queries {
		offsets[i] = off
		off += 4 + int64(q.src.Len())*G1Size
	}
	b := concatScalars{sc.b[0], sc.b[1]}
	size := off + 4 + int64(b.Len())*G2Size

	// B_G2 from the start; the first failure on either side stops both
	// and is the setup's error (the other side then sees a cancelled
	// context).
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	g2Done := startG2Query(ctx, cancel, w, off, b, fb, max(chunk/2, 1), rec.begin("b_g2", b.Len()))
	_, _, gen1, _ := bls12381.Generators()
	mul1 := func(s []fr.Element, out []bls12381.G1Affine) error { return fb.MulG1(gen1, s, out) }
	for i := range queries {
		q := &queries[i]
		err = writeQuery(ctx, w, offsets[i], q.src, mul1, EncodeG1, G1Size, chunk, rec.begin(q.name, q.src.Len()))
		if err != nil {
			cancel(fmt.Errorf("setup: %s: %w", q.name, err))
			break
		}
		q.src = nil // its scalars are garbage now (b's stay for b_g2)
		switch q.name {
		case "l":
			sc.l = nil
		case "a":
			sc.a = [2][]fr.Element{}
		}
	}
	<-g2Done
	if err := context.Cause(ctx); err != nil {
		return nil, nil, err
	}
	rep := rec.report()
	rep.Total = time.Since(start)
	rep.Bytes = size
	return vk, rep, nil
}

// writeVKHeader writes the file's verifying key at its start and returns
// its length, where the queries begin.
func writeVKHeader(w io.WriterAt, vk *VerifyingKey) (int64, error) {
	var hdr bytes.Buffer
	writeVK(&hdr, vk)
	if _, err := w.WriteAt(hdr.Bytes(), 0); err != nil {
		return 0, fmt.Errorf("setup: writing the verifying key: %w", err)
	}
	return int64(hdr.Len()), nil
}

// startG2Query writes B_G2 (b's scalars times the G2 generator, by fb) at
// off on its own goroutine, cancelling ctx with its error when it fails,
// and closes the returned channel when it is done.
func startG2Query(ctx context.Context, cancel context.CancelCauseFunc, w io.WriterAt, off int64, b scalarSource, fb FixedBase, chunk int, ph *phaseRecorder) <-chan struct{} {
	done := make(chan struct{})
	go func() {
		_, _, _, gen2 := bls12381.Generators()
		mul := func(s []fr.Element, out []bls12381.G2Affine) error { return fb.MulG2(gen2, s, out) }
		defer close(done)
		if err := writeQuery(ctx, w, off, b, mul, EncodeG2, G2Size, chunk, ph); err != nil {
			cancel(fmt.Errorf("setup: b_g2: %w", err))
		}
	}()
	return done
}

// writeQuery writes one vector at off: its u32 length, then the points of
// src's scalars multiplied by mul, chunk by chunk. A chunk is encoded and
// written on a second goroutine while the next is multiplied (two point
// buffers, one byte buffer).
func writeQuery[P any](ctx context.Context, w io.WriterAt, off int64, src scalarSource,
	mul func([]fr.Element, []P) error, encode func([]byte, *P), size, chunk int, ph *phaseRecorder,
) error {
	n := src.Len()
	var lenb [4]byte
	binary.BigEndian.PutUint32(lenb[:], uint32(n))
	if _, err := w.WriteAt(lenb[:], off); err != nil {
		return err
	}
	off += 4
	chunk = min(chunk, max(n, 1))
	qw := startQueryWriter(w, off, n, chunk, size, encode, ph)
	scal := make([]fr.Element, chunk)
	var err error
	for lo := 0; lo < n && err == nil; lo += chunk {
		hi := min(lo+chunk, n)
		var pts []P
		select {
		case pts = <-qw.free:
		case <-qw.failed:
		}
		if pts == nil {
			break
		}
		if err = ctx.Err(); err != nil {
			qw.free <- pts
			break
		}
		t0 := time.Now()
		pts = pts[:hi-lo]
		if err = mul(src.chunk(lo, hi, scal), pts); err != nil {
			qw.free <- pts
			break
		}
		ph.add(time.Since(t0), 0)
		qw.jobs <- queryChunk[P]{lo, pts}
	}
	if werr := qw.close(); err == nil {
		err = werr
	}
	if err == nil {
		ph.end()
	}
	return err
}

// queryChunk is points multiplied for the scalars from lo on, to be
// encoded and written.
type queryChunk[P any] struct {
	lo  int
	pts []P
}

// queryWriter encodes and writes one vector's chunks on its own goroutine
// while the next chunk is multiplied: two point buffers go round through
// free; failed closes at the first write error.
type queryWriter[P any] struct {
	jobs   chan queryChunk[P]
	free   chan []P
	failed chan struct{}
	err    error // the first write error, read after close
	wg     sync.WaitGroup
}

// startQueryWriter starts the writer of n points of size bytes each,
// encoded by encode, at off (past the length), in chunks of at most chunk.
func startQueryWriter[P any](w io.WriterAt, off int64, n, chunk, size int, encode func([]byte, *P), ph *phaseRecorder) *queryWriter[P] {
	qw := &queryWriter[P]{jobs: make(chan queryChunk[P], 1), free: make(chan []P, 2), failed: make(chan struct{})}
	qw.free <- make([]P, chunk)
	qw.free <- make([]P, chunk)
	qw.wg.Add(1)
	go func() {
		defer qw.wg.Done()
		enc := make([]byte, chunk*size)
		written := 0
		for j := range qw.jobs {
			if qw.err == nil {
				t0 := time.Now()
				buf := enc[:len(j.pts)*size]
				parallelFor(len(j.pts), func(i int) { encode(buf[i*size:], &j.pts[i]) })
				if _, err := w.WriteAt(buf, off+int64(j.lo)*int64(size)); err != nil {
					qw.err = err
					close(qw.failed)
				}
				written += len(j.pts)
				ph.add(0, time.Since(t0))
				if written < n {
					ph.done(written) // the last is end's
				}
			}
			qw.free <- j.pts[:cap(j.pts)]
		}
	}()
	return qw
}

// close ends the writer once every chunk sent is written and returns the
// first write error.
func (qw *queryWriter[P]) close() error {
	close(qw.jobs)
	qw.wg.Wait()
	return qw.err
}
