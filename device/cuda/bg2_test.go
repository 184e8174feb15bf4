package cuda

import (
	"context"
	"fmt"
	"math/big"
	"math/rand/v2"
	"testing"
	"unsafe"

	"github.com/consensys/gnark-crypto/ecc"
	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"

	"github.com/cuzk-project/cuzk/circuits/synthetic"
	"github.com/cuzk-project/cuzk/device/cpu"
	"github.com/cuzk-project/cuzk/groth16"
	"github.com/cuzk-project/cuzk/r1cs"
)

// TestResultLayout: cResult is cuzk_result, the witness runs' times and the
// B_G2 fields appended after the existing ones (whose offsets stay).
func TestResultLayout(t *testing.T) {
	var r cResult
	for _, f := range []struct {
		name      string
		got, want uintptr
	}{
		{"Total", unsafe.Offsetof(r.Total), 768},
		{"MSMB", unsafe.Offsetof(r.MSMB), 792},
		{"SpMV", unsafe.Offsetof(r.SpMV), 800},
		{"BG2", unsafe.Offsetof(r.BG2), 808},
		{"HasBG2", unsafe.Offsetof(r.HasBG2), 1192},
		{"MSMB2", unsafe.Offsetof(r.MSMB2), 1196},
		{"HostPre", unsafe.Offsetof(r.HostPre), 1200},
		{"Host", unsafe.Offsetof(r.Host), 1204},
		{"HostSynced", unsafe.Offsetof(r.HostSynced), 1208},
		{"size", unsafe.Sizeof(r), 1212},
	} {
		if f.got != f.want {
			t.Errorf("cResult.%s at %d, want %d", f.name, f.got, f.want)
		}
	}
}

// randG2 returns n points k·G2 of random k.
func randG2(r *rand.Rand, n int) []bls12381.G2Affine {
	_, _, _, g2 := bls12381.Generators()
	out := make([]bls12381.G2Affine, n)
	for i := range out {
		var k big.Int
		out[i].ScalarMultiplication(&g2, k.SetUint64(r.Uint64()|1))
	}
	return out
}

// xyzzBytesG2 writes p as XYZZ with ZZ = l², ZZZ = l³ (X = x·l², Y = y·l³).
func xyzzBytesG2(p *bls12381.G2Affine, l *bls12381.E2) []byte {
	var zz, zzz, x, y bls12381.E2
	zz.Square(l)
	zzz.Mul(&zz, l)
	x.Mul(&p.X, &zz)
	y.Mul(&p.Y, &zzz)
	b := make([]byte, 384)
	put := func(k int, e *bls12381.E2) {
		copy(b[96*k:], unsafe.Slice((*byte)(unsafe.Pointer(e)), 96))
	}
	put(0, &x)
	put(1, &y)
	put(2, &zz)
	put(3, &zzz)
	return b
}

// TestXYZZToJacG2 (no GPU): the G2 result conversion, finite and infinite.
func TestXYZZToJacG2(t *testing.T) {
	r := rand.New(rand.NewPCG(41, 42))
	for i, p := range randG2(r, 5) {
		var l bls12381.E2
		l.A0.SetUint64(uint64(3 + i))
		l.A1.SetUint64(r.Uint64())
		got := xyzzToJacG2(xyzzBytesG2(&p, &l))
		var want bls12381.G2Jac
		want.FromAffine(&p)
		if !got.Equal(&want) {
			t.Fatalf("point %d: conversion differs", i)
		}
	}
	inf := xyzzToJacG2(make([]byte, 384))
	if !inf.Z.IsZero() {
		t.Fatal("ZZ = 0 is not infinity")
	}
}

func TestMSMG2(t *testing.T) {
	d := gpu(t)
	r := rand.New(rand.NewPCG(43, 44))
	sizes := []int{1, 2, 3, 7, 100, 1025, 4097}
	if !testing.Short() {
		sizes = append(sizes, 1<<16+3, 1<<17+1)
	}
	nb := sizes[len(sizes)-1]
	k := min(nb, 1<<12)
	distinct := randG2(r, k)
	bases := make([]bls12381.G2Affine, nb) // distinct up to 2^12, repeating after
	for i := range bases {
		bases[i] = distinct[(i*7919)%k]
	}
	bases[3] = bls12381.G2Affine{} // an infinite base
	for _, n := range sizes {
		s := randFr(r, n)
		if n > 8 {
			s[0].SetZero()
			s[1].SetOne()
			s[2].SetOne()
			s[2].Neg(&s[2])
			s[5] = s[6]
		}
		got, err := d.MSMG2(bases[:n], s)
		if err != nil {
			t.Fatal(err)
		}
		var want bls12381.G2Jac
		if _, err := want.MultiExp(bases[:n], s, ecc.MultiExpConfig{}); err != nil {
			t.Fatal(err)
		}
		if !got.Equal(&want) {
			t.Fatalf("n=%d: GPU G2 MSM differs from gnark", n)
		}
	}
}

func TestMSMSplitG2(t *testing.T) {
	d := gpu(t)
	r := rand.New(rand.NewPCG(45, 46))
	for _, n := range []int{1, 33, 1000, 5000} {
		bases := randG2(r, n)
		ones, scal, idx, all := randSplit(r, n)
		got, err := d.MSMSplitG2(bases, ones, scal, idx)
		if err != nil {
			t.Fatal(err)
		}
		var want bls12381.G2Jac
		want.MultiExp(bases, all, ecc.MultiExpConfig{})
		if !got.Equal(&want) {
			t.Fatalf("n=%d: split G2 MSM differs from gnark", n)
		}
	}
}

// TestBG2OnDevice: with the parameters resident, Run computes B_G2 (Finish
// does not), and all five sums equal the CPU device's exactly.
func TestBG2OnDevice(t *testing.T) {
	d := gpu(t)
	ctx := context.Background()
	cd := cpu.New(0)
	for _, cfg := range []synthetic.Config{
		synthetic.Default(64),
		{Constraints: 2, Inputs: 0, BoolFraction: 0.5, ADensity: 1, BDensity: 1, Seed: 2},
		{Constraints: 513, Inputs: 1, BoolFraction: 1, ADensity: 0.5, BDensity: 0.1, Seed: 4},
		{Constraints: 256, Inputs: 3, BoolFraction: 0.9, ADensity: 0, BDensity: 0, Seed: 5},
		{Constraints: 5000, Inputs: 20, BoolFraction: 0.75, ADensity: 0.997, BDensity: 0.25, Seed: 6},
	} {
		t.Run(fmt.Sprintf("n=%d/in=%d/b=%g", cfg.Constraints, cfg.Inputs, cfg.BDensity), func(t *testing.T) {
			c, err := synthetic.New(cfg)
			if err != nil {
				t.Fatal(err)
			}
			p, err := groth16.Setup(c, []byte(fmt.Sprint("device/cuda bg2 ", cfg.Seed)))
			if err != nil {
				t.Fatal(err)
			}
			if err := d.Retain(p); err != nil {
				t.Fatal(err)
			}
			defer d.Release(p)
			d.smu.Lock()
			res := d.srs[p].bg2
			d.smu.Unlock()
			if !res {
				t.Fatalf("B_G2 (%d points) not resident", len(p.BG2))
			}
			a1, err := groth16.Synthesize(c, r1cs.Shape{})
			if err != nil {
				t.Fatal(err)
			}
			a2, _ := groth16.Synthesize(c, r1cs.Shape{})
			w, err := d.Prepare(ctx, a1, p)
			if err != nil {
				t.Fatal(err)
			}
			pr, err := d.Run(ctx, w)
			if err != nil {
				t.Fatal(err)
			}
			if !pr.(*Partial).hasB2 {
				t.Fatal("Run did not compute B_G2")
			}
			s1, err := d.Finish(ctx, pr)
			if err != nil {
				t.Fatal(err)
			}
			s2, err := groth16.Compute(ctx, cd, a2, p)
			if err != nil {
				t.Fatal(err)
			}
			for _, x := range []struct {
				name string
				g, c *bls12381.G1Jac
			}{{"H", &s1.H, &s2.H}, {"L", &s1.L, &s2.L}, {"A", &s1.A, &s2.A}, {"B1", &s1.B1, &s2.B1}} {
				if !x.g.Equal(x.c) {
					t.Errorf("%s differs from the CPU device", x.name)
				}
			}
			if !s1.B2.Equal(&s2.B2) {
				t.Errorf("B2 (computed by Run) differs from the CPU device")
			}
		})
	}
}
