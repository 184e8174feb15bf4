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

// The fixed-base entry points are bound on first use, apart from the
// library's other symbols: a library built before them still proves, and
// only MulG1 and MulG2 report them missing.
var fixedBase struct {
	once   sync.Once
	err    error
	g1, g2 func(ctx uintptr, base, scalars unsafe.Pointer, n uint64, out unsafe.Pointer) int32
}

func loadFixedBase() error {
	fixedBase.once.Do(func() {
		if err := load(); err != nil {
			fixedBase.err = err
			return
		}
		h, err := purego.Dlopen(lib.path, purego.RTLD_NOW|purego.RTLD_GLOBAL) // the loaded library's handle
		if err != nil {
			fixedBase.err = fmt.Errorf("%w: %s: %w", ErrUnavailable, lib.path, err)
			return
		}
		for _, f := range []struct {
			name string
			fn   any
		}{{"cuzk_fixed_base_g1", &fixedBase.g1}, {"cuzk_fixed_base_g2", &fixedBase.g2}} {
			sym, err := purego.Dlsym(h, f.name)
			if err != nil {
				fixedBase.err = fmt.Errorf("%w: %s: %s: %w (rebuild it with make cuda)", ErrUnavailable, lib.path, f.name, err)
				return
			}
			purego.RegisterFunc(f.fn, sym)
		}
	})
	return fixedBase.err
}

var _ groth16.FixedBase = (*Device)(nil)

// MulG1 implements groth16.FixedBase on the GPU (cuzk_fixed_base_g1):
// out[i] = scalars[i]·base, bit for bit the CPU's points. The library
// moves the scalars and points in chunks of at most 2^24 (368 bytes of
// device memory each); a comb table of the base is built per call, so
// calls of a few million scalars amortize it.
func (d *Device) MulG1(base bls12381.G1Affine, scalars []fr.Element, out []bls12381.G1Affine) error {
	if len(out) != len(scalars) {
		return fmt.Errorf("cuda: fixed-base G1: %d scalars, %d outputs", len(scalars), len(out))
	}
	return d.fixedBase("fixed_base_g1", &fixedBase.g1, unsafe.Pointer(&base), scalars, g1ptr(out))
}

// MulG2 implements groth16.FixedBase on the GPU (cuzk_fixed_base_g2), as
// MulG1 over G2, in chunks of at most 2^23 points (608 bytes each). The
// setup calls it beside MulG1; the device's lock takes their chunks in turn.
func (d *Device) MulG2(base bls12381.G2Affine, scalars []fr.Element, out []bls12381.G2Affine) error {
	if len(out) != len(scalars) {
		return fmt.Errorf("cuda: fixed-base G2: %d scalars, %d outputs", len(scalars), len(out))
	}
	return d.fixedBase("fixed_base_g2", &fixedBase.g2, unsafe.Pointer(&base), scalars, g2ptr(out))
}

// fixedBase runs the bound entry point *fn under the device's lock.
func (d *Device) fixedBase(name string, fn *func(uintptr, unsafe.Pointer, unsafe.Pointer, uint64, unsafe.Pointer) int32,
	base unsafe.Pointer, scalars []fr.Element, out unsafe.Pointer) error {
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
	if rc := (*fn)(d.ctx, base, frptr(scalars), uint64(len(scalars)), out); rc != 0 {
		return libErr(name, rc)
	}
	return nil
}
