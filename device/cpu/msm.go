package cpu

import (
	"context"
	"fmt"
	"sync"

	"github.com/consensys/gnark-crypto/ecc"
	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fp"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/cuzk-project/cuzk/groth16"
)

// minChunk is the fewest additions worth a goroutine.
const minChunk = 1024

// chunks splits n items into at most tasks ranges of at least minChunk.
func chunks(n, tasks int) int {
	k := n / minChunk
	if k > tasks {
		k = tasks
	}
	if k < 1 {
		k = 1
	}
	return k
}

// onesBlock is how many points one goroutine gathers and reduces at a time.
const onesBlock = 8192

// g1Scratch is one goroutine's buffers for sumAffineG1.
type g1Scratch struct {
	pts      [onesBlock]bls12381.G1Affine
	den, pre [onesBlock / 2]fp.Element
}

var g1Scratches = sync.Pool{New: func() any { return new(g1Scratch) }}

// sumG1 returns Σ bases[i] for i in idx, by batched affine additions.
func sumG1(bases []bls12381.G1Affine, idx []uint32, tasks int) bls12381.G1Jac {
	k := chunks(len(idx), tasks)
	parts := make([]bls12381.G1Jac, k)
	var wg sync.WaitGroup
	for t := 0; t < k; t++ {
		lo, hi := t*len(idx)/k, (t+1)*len(idx)/k
		wg.Go(func() {
			acc := infinityG1()
			s := g1Scratches.Get().(*g1Scratch)
			for b := lo; b < hi; b += onesBlock {
				e := min(b+onesBlock, hi)
				pts := s.pts[:e-b]
				for j, i := range idx[b:e] {
					pts[j] = bases[i]
				}
				sumAffineG1(&acc, pts, s.den[:], s.pre[:])
			}
			g1Scratches.Put(s)
			parts[t] = acc
		})
	}
	wg.Wait()
	for t := 1; t < k; t++ {
		parts[0].AddAssign(&parts[t])
	}
	return parts[0]
}

// g2Scratch is one goroutine's buffers for sumAffineG2.
type g2Scratch struct {
	pts      [onesBlock / 2]bls12381.G2Affine
	den, pre [onesBlock / 4]bls12381.E2
}

var g2Scratches = sync.Pool{New: func() any { return new(g2Scratch) }}

// sumG2 returns Σ bases[i] for i in idx, by batched affine additions.
func sumG2(bases []bls12381.G2Affine, idx []uint32, tasks int) bls12381.G2Jac {
	k := chunks(len(idx), tasks)
	parts := make([]bls12381.G2Jac, k)
	var wg sync.WaitGroup
	for t := 0; t < k; t++ {
		lo, hi := t*len(idx)/k, (t+1)*len(idx)/k
		wg.Go(func() {
			acc := infinityG2()
			s := g2Scratches.Get().(*g2Scratch)
			for b := lo; b < hi; b += len(s.pts) {
				e := min(b+len(s.pts), hi)
				pts := s.pts[:e-b]
				for j, i := range idx[b:e] {
					pts[j] = bases[i]
				}
				sumAffineG2(&acc, pts, s.den[:], s.pre[:])
			}
			g2Scratches.Put(s)
			parts[t] = acc
		})
	}
	wg.Wait()
	for t := 1; t < k; t++ {
		parts[0].AddAssign(&parts[t])
	}
	return parts[0]
}

// gather copies bases[idx[i]] into dst[i], in parallel.
func gather[P any](dst, bases []P, idx []uint32, tasks int) {
	k := chunks(len(idx), tasks)
	var wg sync.WaitGroup
	for t := 0; t < k; t++ {
		lo, hi := t*len(idx)/k, (t+1)*len(idx)/k
		wg.Go(func() {
			for i := lo; i < hi; i++ {
				dst[i] = bases[idx[i]]
			}
		})
	}
	wg.Wait()
}

func infinityG1() bls12381.G1Jac {
	var p bls12381.G1Jac
	p.X.SetOne()
	p.Y.SetOne()
	return p
}

func infinityG2() bls12381.G2Jac {
	var p bls12381.G2Jac
	p.X.SetOne()
	p.Y.SetOne()
	return p
}

// msmMaxPoints bounds one gnark MultiExp call. MultiExp allocates a digit
// buffer of 34 bytes per point (17 16-bit windows): 4.3 GiB for the 2^27
// points of a PoRep H. Calls of at most 2^24 points keep it at 544 MiB for
// one more bucket reduction per 2^24 points (≈ 0.4 % more additions).
var msmMaxPoints = 1 << 24

// multiExpG1 is gnark's MultiExp, at most msmMaxPoints at a time, with the
// identity for no points. It stops between calls once ctx is done.
func multiExpG1(ctx context.Context, bases []bls12381.G1Affine, scalars []fr.Element, tasks int) (bls12381.G1Jac, error) {
	acc := infinityG1()
	if len(bases) != len(scalars) {
		return acc, fmt.Errorf("%w: G1 MSM over %d bases and %d scalars", groth16.ErrAssignmentMismatch, len(bases), len(scalars))
	}
	for lo := 0; lo < len(scalars); lo += msmMaxPoints {
		if err := ctx.Err(); lo > 0 && err != nil {
			return acc, err
		}
		hi := min(lo+msmMaxPoints, len(scalars))
		var r bls12381.G1Jac
		if _, err := r.MultiExp(bases[lo:hi], scalars[lo:hi], msmConfig(tasks)); err != nil {
			return acc, fmt.Errorf("cpu: G1 MSM over %d points: %w", hi-lo, err)
		}
		acc.AddAssign(&r)
	}
	return acc, nil
}

// multiExpG2 is multiExpG1 in G2.
func multiExpG2(ctx context.Context, bases []bls12381.G2Affine, scalars []fr.Element, tasks int) (bls12381.G2Jac, error) {
	acc := infinityG2()
	if len(bases) != len(scalars) {
		return acc, fmt.Errorf("%w: G2 MSM over %d bases and %d scalars", groth16.ErrAssignmentMismatch, len(bases), len(scalars))
	}
	for lo := 0; lo < len(scalars); lo += msmMaxPoints {
		if err := ctx.Err(); lo > 0 && err != nil {
			return acc, err
		}
		hi := min(lo+msmMaxPoints, len(scalars))
		var r bls12381.G2Jac
		if _, err := r.MultiExp(bases[lo:hi], scalars[lo:hi], msmConfig(tasks)); err != nil {
			return acc, fmt.Errorf("cpu: G2 MSM over %d points: %w", hi-lo, err)
		}
		acc.AddAssign(&r)
	}
	return acc, nil
}

// A query's tail (the bases of its scalars other than 0 and 1) is copied
// next to each other for gnark's MultiExp. A tail longer than one chunk is
// not copied whole by Prepare: Run gathers and multiplies it one chunk at a
// time through a single pooled buffer, which bounds the copy at 384 MiB per
// query instead of a quarter of the query (gigabytes at PoRep scale). gnark
// never uses windows wider than 16 bits, so beyond 2^20 points a chunk costs
// only its bucket reduction (2^16 additions per window) more than one large
// MSM: about 1.5 % at 2^22 points.
var (
	tailChunkG1 = 1 << 22 // × 96 B = 384 MiB
	tailChunkG2 = 1 << 21 // × 192 B = 384 MiB
)

// chunkedG1 is Σ scalars[i]·all[idx[i]], gathering at most tailChunkG1
// bases at a time.
func (d *Device) chunkedG1(ctx context.Context, all []bls12381.G1Affine, idx []uint32, scalars []fr.Element, tasks int) (bls12381.G1Jac, error) {
	buf := d.g1.get(min(len(idx), tailChunkG1))
	defer d.g1.put(buf)
	acc := infinityG1()
	for lo := 0; lo < len(idx); lo += len(buf) {
		if err := ctx.Err(); lo > 0 && err != nil {
			return acc, err
		}
		hi := min(lo+len(buf), len(idx))
		gather(buf[:hi-lo], all, idx[lo:hi], tasks)
		s, err := multiExpG1(ctx, buf[:hi-lo], scalars[lo:hi], tasks)
		if err != nil {
			return acc, err
		}
		acc.AddAssign(&s)
	}
	return acc, nil
}

// chunkedG2 is chunkedG1 in G2, with its gather buffer from bufs.
func chunkedG2(ctx context.Context, bufs *pool[bls12381.G2Affine], all []bls12381.G2Affine, idx []uint32, scalars []fr.Element, tasks int) (bls12381.G2Jac, error) {
	buf := bufs.get(min(len(idx), tailChunkG2))
	defer bufs.put(buf)
	acc := infinityG2()
	for lo := 0; lo < len(idx); lo += len(buf) {
		if err := ctx.Err(); lo > 0 && err != nil {
			return acc, err
		}
		hi := min(lo+len(buf), len(idx))
		gather(buf[:hi-lo], all, idx[lo:hi], tasks)
		s, err := multiExpG2(ctx, buf[:hi-lo], scalars[lo:hi], tasks)
		if err != nil {
			return acc, err
		}
		acc.AddAssign(&s)
	}
	return acc, nil
}

func msmConfig(tasks int) ecc.MultiExpConfig {
	n := 2 * tasks
	if n > 1024 {
		n = 1024
	}
	return ecc.MultiExpConfig{NbTasks: n}
}

// msmG1 is Σ scalars[i]·bases[i] through the 0/1 split, the way Prepare and
// Run treat a dense query.
func (d *Device) msmG1(bases []bls12381.G1Affine, scalars []fr.Element) (bls12381.G1Jac, error) {
	if len(bases) != len(scalars) {
		return bls12381.G1Jac{}, fmt.Errorf("%w: %d bases for %d scalars", groth16.ErrAssignmentMismatch, len(bases), len(scalars))
	}
	t := d.tasks()
	q := g1Query{all: bases}
	d.newSplit(&q.split, tally(scalars, nil))
	q.walk(scalars, nil, 0)
	q.bases, q.owned = d.compactG1(bases, &q.split, t)
	s, err := d.sum(context.Background(), &q, t)
	d.u32.put(q.ones)
	d.u32.put(q.tail)
	d.scalars.put(q.scalars)
	if q.owned {
		d.g1.put(q.bases)
	}
	return s, err
}

// sharedG2 holds the gather buffers of SumG2.
var sharedG2 pool[bls12381.G2Affine]

// SumG2 is the B_G2 sum of a 0/1 split computed the way this device's Run
// computes it: Σ bases[i] for i in ones, by batched affine additions, plus
// Σ scalars[j]·bases[tail[j]], by gnark's MultiExp over at most 2^21
// gathered bases at a time. Another device's Finish (device/cuda) uses it, so
// that B_G2 has one implementation.
func SumG2(ctx context.Context, bases []bls12381.G2Affine, ones, tail []uint32, scalars []fr.Element, tasks int) (bls12381.G2Jac, error) {
	if len(tail) != len(scalars) {
		return infinityG2(), fmt.Errorf("%w: G2 tail of %d bases and %d scalars", groth16.ErrAssignmentMismatch, len(tail), len(scalars))
	}
	for _, idx := range [][]uint32{ones, tail} {
		for _, i := range idx {
			if int(i) >= len(bases) {
				return infinityG2(), fmt.Errorf("%w: G2 base index %d of %d bases", groth16.ErrAssignmentMismatch, i, len(bases))
			}
		}
	}
	if tasks < 1 {
		tasks = 1
	}
	acc, err := chunkedG2(ctx, &sharedG2, bases, tail, scalars, tasks)
	if err != nil {
		return acc, err
	}
	s := sumG2(bases, ones, tasks)
	acc.AddAssign(&s)
	return acc, nil
}
