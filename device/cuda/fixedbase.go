package cuda

import (
	"fmt"
	"sync"
	"unsafe"

	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/ebitengine/purego"

	"github.com/cuzk-project/cuzk/groth16"
)

// The fixed-base entry point is bound on first use, apart from the
// library's other symbols: a library built before it still proves, and
// only MulG1 reports it missing.
var fixedBase struct {
	once sync.Once
	err  error
	mul  func(ctx uintptr, base, scalars unsafe.Pointer, n uint64, out unsafe.Pointer) int32
}

func loadFixedBase() error {
	fixedBase.once.Do(func() {
		if err := load(); err != nil {
			fixedBase.err = err
			return
		}
		h, err := purego.Dlopen(lib.path, purego.RTLD_NOW|purego.RTLD_GLOBAL) // the loaded library's handle
		if err == nil {
			var sym uintptr
			if sym, err = purego.Dlsym(h, "cuzk_fixed_base_g1"); err == nil {
				purego.RegisterFunc(&fixedBase.mul, sym)
				return
			}
		}
		fixedBase.err = fmt.Errorf("%w: %s: cuzk_fixed_base_g1: %w (rebuild it with make cuda)", ErrUnavailable, lib.path, err)
	})
	return fixedBase.err
}

var _ groth16.FixedBaseG1 = (*Device)(nil)

// MulG1 implements groth16.FixedBaseG1 on the GPU (cuzk_fixed_base_g1):
// out[i] = scalars[i]·base, bit for bit the CPU's points. The library
// moves the scalars and points in chunks of at most 2^24 (368 bytes of
// device memory each); a comb table of the base is built per call, so
// calls of a few million scalars amortize it.
func (d *Device) MulG1(base bls12381.G1Affine, scalars []fr.Element, out []bls12381.G1Affine) error {
	if len(out) != len(scalars) {
		return fmt.Errorf("cuda: fixed-base: %d scalars, %d outputs", len(scalars), len(out))
	}
	if err := loadFixedBase(); err != nil {
		return err
	}
	if len(scalars) == 0 {
		return nil
	}
	if err := d.lock(); err != nil {
		return err
	}
	defer d.mu.Unlock()
	if rc := fixedBase.mul(d.ctx, unsafe.Pointer(&base), frptr(scalars), uint64(len(scalars)), g1ptr(out)); rc != 0 {
		return libErr("fixed_base_g1", rc)
	}
	return nil
}
