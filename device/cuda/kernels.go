package cuda

import (
	"fmt"
	"time"
	"unsafe"

	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// NTTMode selects a transform (gnark-crypto fft names in brackets).
type NTTMode uint32

const (
	FwdDIF NTTMode = 0 // natural → bit-reversed [FFT(DIF)]
	FwdDIT NTTMode = 1 // bit-reversed → natural [FFT(DIT)]
	InvDIF NTTMode = 2 // natural → bit-reversed, ×1/n [FFTInverse(DIF)]
	InvDIT NTTMode = 3 // bit-reversed → natural, ×1/n [FFTInverse(DIT)]
	Coset  NTTMode = 4 // flag: on the coset of 7 [OnCoset]
)

// NTT transforms v (length a power of two, at most 2^28) in place on the GPU.
func (d *Device) NTT(v []fr.Element, mode NTTMode) error {
	n := len(v)
	if n == 0 || n&(n-1) != 0 || n > 1<<28 {
		return fmt.Errorf("cuda: NTT of %d elements: need a power of two up to 2^28", n)
	}
	if err := d.lock(); err != nil {
		return err
	}
	defer d.mu.Unlock()
	if rc := lib.ntt(d.ctx, frptr(v), log2(n), uint32(mode)); rc != 0 {
		return libErr("ntt", rc)
	}
	return nil
}

// H computes bellperson's H coefficients (m−1 of them, natural order) from
// the rows a, b, c (len ≤ m, m a power of two).
func (d *Device) H(a, b, c []fr.Element, m int) ([]fr.Element, error) {
	if m < 2 || m&(m-1) != 0 || m > 1<<28 || len(a) > m || len(b) != len(a) || len(c) != len(a) {
		return nil, fmt.Errorf("cuda: H over %d, %d, %d rows in a domain of %d", len(a), len(b), len(c), m)
	}
	if err := d.lock(); err != nil {
		return nil, err
	}
	defer d.mu.Unlock()
	out := make([]fr.Element, m-1)
	if rc := lib.h(d.ctx, frptr(a), frptr(b), frptr(c), uint64(len(a)), log2(m), frptr(out)); rc != 0 {
		return nil, libErr("h", rc)
	}
	return out, nil
}

// MSM computes Σ scalars[i]·bases[i] on the GPU (bases uploaded per call).
func (d *Device) MSM(bases []bls12381.G1Affine, scalars []fr.Element) (bls12381.G1Jac, error) {
	if len(scalars) > len(bases) {
		return bls12381.G1Jac{}, fmt.Errorf("cuda: MSM of %d scalars over %d bases", len(scalars), len(bases))
	}
	if err := d.lock(); err != nil {
		return bls12381.G1Jac{}, err
	}
	defer d.mu.Unlock()
	var out [192]byte
	if rc := lib.msm(d.ctx, g1ptr(bases), frptr(scalars), uint64(len(scalars)), unsafe.Pointer(&out[0])); rc != 0 {
		return bls12381.G1Jac{}, libErr("msm", rc)
	}
	return xyzzToJac(out[:]), nil
}

// MSMSplit computes Σ_{i: bit i of ones} bases[i] + Σ_j scalars[j]·bases[idx[j]].
func (d *Device) MSMSplit(bases []bls12381.G1Affine, ones []uint32, scalars []fr.Element, idx []uint32) (bls12381.G1Jac, error) {
	if len(idx) != len(scalars) || (ones != nil && len(ones) < (len(bases)+31)/32) {
		return bls12381.G1Jac{}, fmt.Errorf("cuda: MSMSplit: %d scalars, %d indices, %d bitmap words for %d bases", len(scalars), len(idx), len(ones), len(bases))
	}
	for j, i := range idx {
		if int(i) >= len(bases) {
			return bls12381.G1Jac{}, fmt.Errorf("cuda: MSMSplit: index %d (tail %d) beyond %d bases", i, j, len(bases))
		}
	}
	if err := d.lock(); err != nil {
		return bls12381.G1Jac{}, err
	}
	defer d.mu.Unlock()
	var out [192]byte
	var op, ip unsafe.Pointer
	if ones != nil {
		op = unsafe.Pointer(&ones[0])
	}
	if len(idx) > 0 {
		ip = unsafe.Pointer(&idx[0])
	}
	if rc := lib.msmSplit(d.ctx, g1ptr(bases), uint64(len(bases)), op, frptr(scalars), ip, uint64(len(scalars)), unsafe.Pointer(&out[0])); rc != 0 {
		return bls12381.G1Jac{}, libErr("msm split", rc)
	}
	return xyzzToJac(out[:]), nil
}

// BenchNTT times a forward DIF and an inverse DIT NTT of 2^lgn, the H
// sequence from a, b and c (7 transforms) and the one Run uses, from a and
// b (6) (CUDA events, medians of reps).
func (d *Device) BenchNTT(lgn uint32, reps int) (fwd, inv, hseq, hseqAB time.Duration, err error) {
	if err := d.lock(); err != nil {
		return 0, 0, 0, 0, err
	}
	defer d.mu.Unlock()
	var f, i, h, hab float32
	if rc := lib.benchNTT(d.ctx, lgn, int32(reps), &f, &i, &h, &hab); rc != 0 {
		return 0, 0, 0, 0, libErr("bench ntt", rc)
	}
	ms := func(x float32) time.Duration { return time.Duration(float64(x) * 1e6) }
	return ms(f), ms(i), ms(h), ms(hab), nil
}
