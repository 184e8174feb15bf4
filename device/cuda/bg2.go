package cuda

import (
	"fmt"
	"runtime"
	"time"
	"unsafe"

	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-project/cuzk/groth16"
)

// B_G2 on the GPU: the parameters' B_G2 query resident beside the G1
// queries, and Run's G2 MSM over the B split (the same ones bitmap and tail
// as B_G1), so that Finish no longer computes it on the CPU.

var g2lib struct {
	srsUploadBG2 func(srs uintptr, bg2 unsafe.Pointer, n uint64) int32
	msmG2        func(ctx uintptr, bases, scalars unsafe.Pointer, n uint64, out unsafe.Pointer) int32
	msmSplitG2   func(ctx uintptr, bases unsafe.Pointer, nbases uint64, ones, scalars, idx unsafe.Pointer, ntail uint64, out unsafe.Pointer) int32
}

// regG2 registers the library's G2 functions (load calls it).
func regG2(reg func(fn any, name string)) {
	reg(&g2lib.srsUploadBG2, "cuzk_srs_upload_bg2")
	reg(&g2lib.msmG2, "cuzk_msm_g2")
	reg(&g2lib.msmSplitG2, "cuzk_msm_split_g2")
}

// uploadBG2 adds p.BG2 to the resident parameters h when it has B_G1's
// count (otherwise Finish reports the mismatch, as before). Without the
// device memory for it, B_G2 stays on the CPU (Finish computes it): it
// returns false and no error.
func uploadBG2(h uintptr, p *groth16.Params) (bool, error) {
	if !hasBG2(p) {
		return false, nil
	}
	rc := g2lib.srsUploadBG2(h, unsafe.Pointer(&p.BG2[0]), uint64(len(p.BG2)))
	runtime.KeepAlive(p)
	switch {
	case rc == codeMem:
		return false, nil
	case rc != 0:
		return false, libErr("srs upload bg2", rc)
	}
	return true, nil
}

// hasBG2 reports whether p has a B_G2 the device can hold (b_g1's count).
func hasBG2(p *groth16.Params) bool { return len(p.BG2) != 0 && len(p.BG2) == len(p.BG1) }

// readBG2 takes Run's B_G2 from res when the device computed it.
func (r *Partial) readBG2(res *cResult) {
	r.hasB2 = res.HasBG2 != 0
	if r.hasB2 {
		r.b2 = xyzzToJacG2(res.BG2[:])
	}
	r.Timing.MSMB2 = msDur(res.MSMB2)
}

// msDur converts the library's milliseconds.
func msDur(f float32) time.Duration { return time.Duration(float64(f) * 1e6) }

// xyzzToJacG2 converts a G2 XYZZ point (X, Y, ZZ, ZZZ, each an E2: A0
// then A1) to Jacobian coordinates: Z = ZZ·ZZZ, X' = X·ZZ·ZZZ², Y' = Y·ZZ³·ZZZ².
func xyzzToJacG2(b []byte) bls12381.G2Jac {
	var c [4]bls12381.E2
	for k := range c {
		for i := 0; i < 6; i++ {
			c[k].A0[i] = le64(b[96*k+8*i:])
			c[k].A1[i] = le64(b[96*k+48+8*i:])
		}
	}
	X, Y, ZZ, ZZZ := &c[0], &c[1], &c[2], &c[3]
	var r bls12381.G2Jac
	if ZZ.IsZero() {
		r.X.SetOne()
		r.Y.SetOne()
		return r
	}
	var zzz2, zz3 bls12381.E2
	zzz2.Square(ZZZ)
	zz3.Square(ZZ).Mul(&zz3, ZZ)
	r.Z.Mul(ZZ, ZZZ)
	r.X.Mul(X, ZZ).Mul(&r.X, &zzz2)
	r.Y.Mul(Y, &zz3).Mul(&r.Y, &zzz2)
	return r
}

func g2ptr(s []bls12381.G2Affine) unsafe.Pointer {
	if len(s) == 0 {
		return nil
	}
	return unsafe.Pointer(&s[0])
}

// MSMG2 computes Σ scalars[i]·bases[i] over G2 on the GPU (bases uploaded per call).
func (d *Device) MSMG2(bases []bls12381.G2Affine, scalars []fr.Element) (bls12381.G2Jac, error) {
	if len(scalars) > len(bases) {
		return bls12381.G2Jac{}, fmt.Errorf("cuda: G2 MSM of %d scalars over %d bases", len(scalars), len(bases))
	}
	if err := d.lock(); err != nil {
		return bls12381.G2Jac{}, err
	}
	defer d.mu.Unlock()
	var out [384]byte
	if rc := g2lib.msmG2(d.ctx, g2ptr(bases), frptr(scalars), uint64(len(scalars)), unsafe.Pointer(&out[0])); rc != 0 {
		return bls12381.G2Jac{}, libErr("msm g2", rc)
	}
	return xyzzToJacG2(out[:]), nil
}

// MSMSplitG2 computes Σ_{i: bit i of ones} bases[i] + Σ_j scalars[j]·bases[idx[j]] over G2.
func (d *Device) MSMSplitG2(bases []bls12381.G2Affine, ones []uint32, scalars []fr.Element, idx []uint32) (bls12381.G2Jac, error) {
	if len(idx) != len(scalars) || (ones != nil && len(ones) < (len(bases)+31)/32) || len(idx) > len(bases) {
		return bls12381.G2Jac{}, fmt.Errorf("cuda: MSMSplitG2: %d scalars, %d indices, %d bitmap words for %d bases", len(scalars), len(idx), len(ones), len(bases))
	}
	for j, i := range idx {
		if int(i) >= len(bases) {
			return bls12381.G2Jac{}, fmt.Errorf("cuda: MSMSplitG2: index %d (tail %d) beyond %d bases", i, j, len(bases))
		}
	}
	if err := d.lock(); err != nil {
		return bls12381.G2Jac{}, err
	}
	defer d.mu.Unlock()
	var out [384]byte
	var op, ip unsafe.Pointer
	if len(ones) > 0 {
		op = unsafe.Pointer(&ones[0])
	}
	if len(idx) > 0 {
		ip = unsafe.Pointer(&idx[0])
	}
	if rc := g2lib.msmSplitG2(d.ctx, g2ptr(bases), uint64(len(bases)), op, frptr(scalars), ip, uint64(len(scalars)), unsafe.Pointer(&out[0])); rc != 0 {
		return bls12381.G2Jac{}, libErr("msm split g2", rc)
	}
	return xyzzToJacG2(out[:]), nil
}
