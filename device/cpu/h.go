package cpu

import (
	"fmt"
	"math/big"
	"sync"
	"unsafe"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr/fft"

	"github.com/cuzk-project/cuzk/device/internal/split"
	"github.com/cuzk-project/cuzk/groth16"
)

// precomputeLimit is the largest domain whose twiddle and coset tables are
// kept (four tables of m elements: 128 MiB at 2^20, 512 MiB at 2^22).
var precomputeLimit = 1 << 22

type domainEntry struct {
	once sync.Once
	dom  *fft.Domain
	vecs pool[fr.Element]
}

// domain returns the cached FFT domain of size m (m ≥ 2).
func (d *Device) domain(m int) *domainEntry {
	d.mu.Lock()
	if d.domains == nil {
		d.domains = make(map[int]*domainEntry)
	}
	e := d.domains[m]
	if e == nil {
		e = &domainEntry{}
		d.domains[m] = e
	}
	d.mu.Unlock()
	e.once.Do(func() {
		if m > precomputeLimit {
			e.dom = fft.NewDomain(uint64(m), fft.WithoutPrecompute())
		} else {
			e.dom = fft.NewDomain(uint64(m))
		}
	})
	return e
}

// computeH returns the m − 1 coefficients of H = (A·B − C)/Z in natural
// order (bellperson's execute_fft), and a function to call once they are no
// longer needed. It transforms a.A, a.B and a.C in place where they have
// room for m elements (r1cs.NewProvingAssignment reserves it when the
// domain is at most 1/16 over the hinted rows, as for PoRep) and pooled
// copies otherwise, so a, b and c hold garbage afterwards (the Device
// contract lets Run drop them). In place, H costs no memory beyond a, b, c:
// 12 GiB less at a 2^27 domain than three copies plus the result.
func (d *Device) computeH(a *groth16.Assignment, m, tasks int) ([]fr.Element, func(), error) {
	if m < 2 {
		return nil, func() {}, nil // deg H ≤ m − 2 < 0: no coefficients
	}
	e := d.domain(m)
	dom := e.dom
	n := len(a.A)
	if n > m {
		return nil, nil, fmt.Errorf("%w: %d rows exceed the domain of %d", groth16.ErrAssignmentMismatch, n, m)
	}
	var vecs [3][]fr.Element
	var pooled [3]bool
	for i, src := range [][]fr.Element{a.A, a.B, a.C} {
		if cap(src) >= m && !overlaps(src[:m], vecs[:i]) {
			vecs[i] = src[:m]
		} else {
			vecs[i], pooled[i] = e.vecs.get(m), true
			copy(vecs[i], src)
		}
		clear(vecs[i][n:])
	}
	release := func(i int) {
		if pooled[i] {
			e.vecs.put(vecs[i])
		}
		vecs[i] = nil
	}
	nb := fft.WithNbTasks(tasks)

	// Evaluations over the domain → coefficients (bit-reversed after DIF)
	// → evaluations over the coset g·H (natural order after DIT).
	split.Parallel(len(vecs), len(vecs), func(i int) {
		dom.FFTInverse(vecs[i], fft.DIF, nb)
		dom.FFT(vecs[i], fft.DIT, fft.OnCoset(), nb)
	})

	// (A·B − C) / Z, where Z = x^m − 1 is the constant g^m − 1 on the coset.
	var zInv fr.Element
	zInv.Exp(dom.FrMultiplicativeGen, bigUint(uint64(m)))
	one := fr.One()
	zInv.Sub(&zInv, &one).Inverse(&zInv)
	va, vb, vc := vecs[0], vecs[1], vecs[2]
	k := chunks(m, tasks)
	split.Parallel(k, k, func(t int) {
		for i := t * m / k; i < (t+1)*m/k; i++ {
			va[i].Mul(&va[i], &vb[i]).Sub(&va[i], &vc[i]).Mul(&va[i], &zInv)
		}
	})
	release(1)
	release(2)

	// Back to coefficients (bit-reversed after DIF), then natural order.
	dom.FFTInverse(va, fft.DIF, fft.OnCoset(), nb)
	fft.BitReverse(va)
	return va[:m-1], func() { release(0) }, nil
}

// overlaps reports whether v shares memory with any of others (a caller's
// a, b and c could alias; they are then transformed in copies).
func overlaps(v []fr.Element, others [][]fr.Element) bool {
	lo := uintptr(unsafe.Pointer(unsafe.SliceData(v)))
	hi := lo + uintptr(len(v))*unsafe.Sizeof(v[0])
	for _, o := range others {
		if len(o) == 0 {
			continue
		}
		olo := uintptr(unsafe.Pointer(unsafe.SliceData(o)))
		ohi := olo + uintptr(len(o))*unsafe.Sizeof(o[0])
		if lo < ohi && olo < hi {
			return true
		}
	}
	return false
}

func bigUint(v uint64) *big.Int { return new(big.Int).SetUint64(v) }
