package cpu

import (
	"context"
	"fmt"
	"sync"

	"github.com/consensys/gnark-crypto/ecc"
	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-project/cuzk/device/internal/split"
	"github.com/cuzk-project/cuzk/groth16"
)

// jacobian is what the MSM code needs of a group's Jacobian points J
// (bls12381.G1Jac, G2Jac) over affine bases A: the code is written once
// for both groups. Its hot loops (MultiExp, the batched affine additions)
// are gnark-crypto's or concrete per group; what goes through the type
// parameters runs once per MultiExp call or per block.
type jacobian[J, A any] interface {
	*J
	AddAssign(*J) *J
	MultiExp(points []A, scalars []fr.Element, config ecc.MultiExpConfig) (*J, error)
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

// multiExp is gnark's MultiExp, at most msmMaxPoints at a time, with
// identity for no points. It stops between calls once ctx is done.
func multiExp[J, A any, PJ jacobian[J, A]](ctx context.Context, bases []A, scalars []fr.Element, tasks int, identity J) (J, error) {
	acc := identity
	if len(bases) != len(scalars) {
		return acc, fmt.Errorf("%w: MSM over %d bases and %d scalars", groth16.ErrAssignmentMismatch, len(bases), len(scalars))
	}
	for lo := 0; lo < len(scalars); lo += msmMaxPoints {
		if err := ctx.Err(); lo > 0 && err != nil {
			return acc, err
		}
		hi := min(lo+msmMaxPoints, len(scalars))
		var r J
		if _, err := PJ(&r).MultiExp(bases[lo:hi], scalars[lo:hi], msmConfig(tasks)); err != nil {
			return acc, fmt.Errorf("cpu: MSM over %d points: %w", hi-lo, err)
		}
		PJ(&acc).AddAssign(&r)
	}
	return acc, nil
}

func msmConfig(tasks int) ecc.MultiExpConfig {
	return ecc.MultiExpConfig{NbTasks: min(2*tasks, 1024)}
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

// group is what the MSM code needs to know of G1 or G2 beyond its types.
type group[J, A any] struct {
	identity  J
	chunk     int        // tailChunkG1, tailChunkG2
	bufs      *pool[A]   // gather buffers
	scratches *sync.Pool // of scratch[A, J], for the ones
}

func (d *Device) g1Group() group[bls12381.G1Jac, bls12381.G1Affine] {
	return group[bls12381.G1Jac, bls12381.G1Affine]{infinityG1(), tailChunkG1, &d.g1, &g1Scratches}
}

func (d *Device) g2Group() group[bls12381.G2Jac, bls12381.G2Affine] {
	return group[bls12381.G2Jac, bls12381.G2Affine]{infinityG2(), tailChunkG2, &d.g2, &g2Scratches}
}

// compact returns the tail's bases next to each other: a subslice of all
// when they already are, a pooled copy (owned) when the tail fits in one
// chunk, and nil when it does not (the sum then gathers chunk by chunk).
func compact[J, A any](g group[J, A], all []A, tail []uint32, tasks int) ([]A, bool) {
	if split.Contiguous(tail) {
		if len(tail) == 0 {
			return nil, false
		}
		return all[tail[0] : int(tail[0])+len(tail)], false
	}
	if len(tail) > g.chunk {
		return nil, false
	}
	dst := g.bufs.get(len(tail))
	gather(dst, all, tail, tasks)
	return dst, true
}

// chunked is Σ scalars[i]·all[idx[i]], gathering at most g.chunk bases at
// a time.
func chunked[J, A any, PJ jacobian[J, A]](ctx context.Context, g group[J, A], all []A, idx []uint32, scalars []fr.Element, tasks int) (J, error) {
	buf := g.bufs.get(min(len(idx), g.chunk))
	defer g.bufs.put(buf)
	acc := g.identity
	for lo := 0; lo < len(idx); lo += len(buf) {
		if err := ctx.Err(); lo > 0 && err != nil {
			return acc, err
		}
		hi := min(lo+len(buf), len(idx))
		gather(buf[:hi-lo], all, idx[lo:hi], tasks)
		s, err := multiExp[J, A, PJ](ctx, buf[:hi-lo], scalars[lo:hi], tasks, g.identity)
		if err != nil {
			return acc, err
		}
		PJ(&acc).AddAssign(&s)
	}
	return acc, nil
}

// sum is Σ all[ones] + Σ scalars[i]·all[tail[i]] for the split s, with the
// tail's bases compacted (nil: gathered chunk by chunk).
func sum[J, A any, PJ jacobian[J, A]](ctx context.Context, g group[J, A], s *sorted, all, compacted []A, tasks int) (J, error) {
	var acc J
	var err error
	if compacted == nil && len(s.tail) > 0 { // left uncompacted by Prepare
		acc, err = chunked[J, A, PJ](ctx, g, all, s.tail, s.scalars, tasks)
	} else {
		acc, err = multiExp[J, A, PJ](ctx, compacted, s.scalars, tasks, g.identity)
	}
	if err != nil {
		return acc, err
	}
	ones := sumOnes[A, J, PJ](all, s.ones, tasks, g.identity, g.scratches)
	PJ(&acc).AddAssign(&ones)
	return acc, nil
}

// msmG1 is Σ scalars[i]·bases[i] through the 0/1 split, the way Prepare and
// Run treat a dense query.
func (d *Device) msmG1(bases []bls12381.G1Affine, scalars []fr.Element) (bls12381.G1Jac, error) {
	if len(bases) != len(scalars) {
		return bls12381.G1Jac{}, fmt.Errorf("%w: %d bases for %d scalars", groth16.ErrAssignmentMismatch, len(bases), len(scalars))
	}
	t := d.tasks()
	g := d.g1Group()
	var s sorted
	d.sort(&s, []split.Span{{Vals: scalars}}, t)
	compacted, owned := compact(g, bases, s.tail, t)
	r, err := sum(context.Background(), g, &s, bases, compacted, t)
	d.unsort(&s)
	if owned {
		d.g1.put(compacted)
	}
	return r, err
}

// sharedG2 holds the gather buffers of SumG2.
var sharedG2 pool[bls12381.G2Affine]

// SumG2 is the B_G2 sum of a 0/1 split computed the way this device's
// Finish computes it: Σ bases[b] over the set bits b of ones (bit b of word
// b/32), by batched affine additions, plus Σ scalars[j]·bases[tail[j]], by
// gnark's MultiExp over at most 2^21 gathered bases at a time. Another
// device's Finish (device/cuda) uses it, so that B_G2 has one
// implementation.
func SumG2(ctx context.Context, bases []bls12381.G2Affine, ones, tail []uint32, scalars []fr.Element, tasks int) (bls12381.G2Jac, error) {
	if len(tail) != len(scalars) {
		return infinityG2(), fmt.Errorf("%w: G2 tail of %d bases and %d scalars", groth16.ErrAssignmentMismatch, len(tail), len(scalars))
	}
	if len(ones) != split.Words(len(bases)) {
		return infinityG2(), fmt.Errorf("%w: a bitmap of %d words for %d G2 bases", groth16.ErrAssignmentMismatch, len(ones), len(bases))
	}
	if r := len(bases) % 32; r != 0 && ones[len(ones)-1]>>uint(r) != 0 {
		return infinityG2(), fmt.Errorf("%w: ones beyond the %d G2 bases", groth16.ErrAssignmentMismatch, len(bases))
	}
	for _, i := range tail {
		if int(i) >= len(bases) {
			return infinityG2(), fmt.Errorf("%w: G2 base index %d of %d bases", groth16.ErrAssignmentMismatch, i, len(bases))
		}
	}
	g := group[bls12381.G2Jac, bls12381.G2Affine]{infinityG2(), tailChunkG2, &sharedG2, &g2Scratches}
	return sum(ctx, g, &sorted{ones: ones, tail: tail, scalars: scalars}, bases, nil, max(tasks, 1))
}
