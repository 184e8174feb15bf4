package cuda

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/consensys/gnark-crypto/ecc"
	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr/fft"

	"github.com/cuzk-project/cuzk/circuits/synthetic"
	"github.com/cuzk-project/cuzk/device/cpu"
	"github.com/cuzk-project/cuzk/groth16"
	"github.com/cuzk-project/cuzk/r1cs"
	"github.com/cuzk-project/cuzk/r1cs/compiled"
)

// skipReason says why the GPU tests skip: no library, or no device.
func skipReason() string {
	if err := load(); err != nil {
		return fmt.Sprintf("no CUDA library: %v", err)
	}
	return "the CUDA library sees no device"
}

// gpu opens device 0 or skips the test.
func gpu(t testing.TB) *Device {
	t.Helper()
	if !Available() {
		t.Skip(skipReason())
	}
	d, err := New(0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return d
}

func randFr(r *rand.Rand, n int) []fr.Element {
	v := make([]fr.Element, n)
	for i := range v {
		v[i].SetUint64(r.Uint64())
		var x fr.Element
		x.SetUint64(r.Uint64())
		v[i].Mul(&v[i], &x).Add(&v[i], &x)
	}
	return v
}

func maxLg(t testing.TB) int {
	if testing.Short() {
		return 12
	}
	return 22
}

func TestDevices(t *testing.T) {
	if !Available() {
		t.Skip(skipReason())
	}
	infos, err := Devices()
	if err != nil {
		t.Fatal(err)
	}
	for _, in := range infos {
		t.Logf("device %d: %s, %d SMs, %d MiB (%d free)", in.Index, in.Name, in.SMs, in.TotalMem>>20, in.FreeMem>>20)
		if in.Name == "" || in.TotalMem == 0 || in.SMs == 0 {
			t.Errorf("device %d: incomplete info %+v", in.Index, in)
		}
	}
}

// TestNTT compares every mode with gnark-crypto's fft on fresh random inputs, 2^1–2^22.
func TestNTT(t *testing.T) {
	d := gpu(t)
	r := rand.New(rand.NewPCG(1, 2))
	for lg := 1; lg <= maxLg(t); lg++ {
		m := 1 << lg
		dom := fft.NewDomain(uint64(m))
		modes := []NTTMode{FwdDIF, FwdDIT, InvDIF, InvDIT, FwdDIF | Coset, FwdDIT | Coset, InvDIF | Coset, InvDIT | Coset}
		if lg > 16 {
			modes = []NTTMode{FwdDIF, InvDIT | Coset}
		}
		for _, mode := range modes {
			v := randFr(r, m)
			want := append([]fr.Element(nil), v...)
			var opts []fft.Option
			if mode&Coset != 0 {
				opts = append(opts, fft.OnCoset())
			}
			switch mode &^ Coset {
			case FwdDIF:
				dom.FFT(want, fft.DIF, opts...)
			case FwdDIT:
				dom.FFT(want, fft.DIT, opts...)
			case InvDIF:
				dom.FFTInverse(want, fft.DIF, opts...)
			case InvDIT:
				dom.FFTInverse(want, fft.DIT, opts...)
			}
			if err := d.NTT(v, mode); err != nil {
				t.Fatal(err)
			}
			for i := range v {
				if v[i] != want[i] {
					t.Fatalf("2^%d mode %d: element %d differs from gnark", lg, mode, i)
				}
			}
		}
	}
}

// cpuH is bellperson's H computed with gnark's fft (its DIF output is
// bit-reversed, its inverse includes ×1/m and, on the coset, ×g^−i).
func cpuH(a, b, c []fr.Element, m int) []fr.Element {
	dom := fft.NewDomain(uint64(m))
	pad := func(v []fr.Element) []fr.Element {
		w := make([]fr.Element, m)
		copy(w, v)
		return w
	}
	A, B, C := pad(a), pad(b), pad(c)
	for _, v := range [][]fr.Element{A, B, C} {
		dom.FFTInverse(v, fft.DIF)
		dom.FFT(v, fft.DIT, fft.OnCoset())
	}
	var g, one fr.Element
	g.SetUint64(7)
	one.SetOne()
	g.Exp(g, big.NewInt(int64(m)))
	g.Sub(&g, &one).Inverse(&g)
	for i := range A {
		A[i].Mul(&A[i], &B[i]).Sub(&A[i], &C[i]).Mul(&A[i], &g)
	}
	dom.FFTInverse(A, fft.DIF, fft.OnCoset())
	fft.BitReverse(A)
	return A[:m-1]
}

func TestH(t *testing.T) {
	d := gpu(t)
	r := rand.New(rand.NewPCG(3, 4))
	for lg := 1; lg <= maxLg(t) && lg <= 20; lg++ {
		m := 1 << lg
		for _, rows := range []int{m, m/2 + 1, max(1, m-3)} {
			a, b, c := randFr(r, rows), randFr(r, rows), randFr(r, rows)
			got, err := d.H(a, b, c, m)
			if err != nil {
				t.Fatal(err)
			}
			want := cpuH(a, b, c, m)
			for i := range want {
				if got[i] != want[i] {
					t.Fatalf("m=2^%d rows=%d: coefficient %d differs", lg, rows, i)
				}
			}
		}
	}
}

// randPoints returns n points, distinct up to 2^16 and repeating after.
func randPoints(r *rand.Rand, n int) []bls12381.G1Affine {
	k := min(n, 1<<16)
	_, _, g1, _ := bls12381.Generators()
	sc := randFr(r, k)
	pts := bls12381.BatchScalarMultiplicationG1(&g1, sc)
	out := make([]bls12381.G1Affine, n)
	for i := range out {
		out[i] = pts[(i*7919)%k]
	}
	return out
}

func TestMSM(t *testing.T) {
	d := gpu(t)
	r := rand.New(rand.NewPCG(5, 6))
	sizes := []int{1, 2, 3, 7, 100, 1025, 4097, 1 << 16, 1<<16 + 3}
	if !testing.Short() {
		sizes = append(sizes, 1<<18+1, 1<<20, 1<<22)
	}
	bases := randPoints(r, sizes[len(sizes)-1])
	for _, n := range sizes {
		s := randFr(r, n)
		if n > 8 {
			s[0].SetZero()
			s[1].SetOne()
			s[2].SetOne()
			s[2].Neg(&s[2])
			s[5] = s[6]
		}
		got, err := d.MSM(bases[:n], s)
		if err != nil {
			t.Fatal(err)
		}
		var want bls12381.G1Jac
		if _, err := want.MultiExp(bases[:n], s, ecc.MultiExpConfig{}); err != nil {
			t.Fatal(err)
		}
		if !got.Equal(&want) {
			t.Fatalf("n=%d: GPU MSM differs from gnark", n)
		}
	}
	// skewed scalars: few distinct small values
	n := min(sizes[len(sizes)-1], 1<<20)
	s := make([]fr.Element, n)
	for i := range s {
		s[i].SetUint64(uint64(2 + r.IntN(3)))
	}
	got, err := d.MSM(bases[:n], s)
	if err != nil {
		t.Fatal(err)
	}
	var want bls12381.G1Jac
	want.MultiExp(bases[:n], s, ecc.MultiExpConfig{})
	if !got.Equal(&want) {
		t.Fatalf("skewed n=%d: GPU MSM differs from gnark", n)
	}
}

// randSplit draws n scalars split as the devices split them: about a
// quarter 0, a quarter 1 (bits of ones), half random (the tail's scalars and
// base indices); all holds the n scalars themselves.
func randSplit(r *rand.Rand, n int) (ones []uint32, scal []fr.Element, idx []uint32, all []fr.Element) {
	ones = make([]uint32, (n+31)/32)
	all = make([]fr.Element, n)
	for i := 0; i < n; i++ {
		switch r.IntN(4) {
		case 1:
			ones[i/32] |= 1 << (i % 32)
			all[i].SetOne()
		case 2, 3:
			v := randFr(r, 1)[0]
			scal = append(scal, v)
			idx = append(idx, uint32(i))
			all[i] = v
		}
	}
	return ones, scal, idx, all
}

func TestMSMSplit(t *testing.T) {
	d := gpu(t)
	r := rand.New(rand.NewPCG(7, 8))
	for _, n := range []int{1, 33, 1000, 1 << 16} {
		bases := randPoints(r, n)
		ones, scal, idx, all := randSplit(r, n)
		got, err := d.MSMSplit(bases, ones, scal, idx)
		if err != nil {
			t.Fatal(err)
		}
		var want bls12381.G1Jac
		want.MultiExp(bases, all, ecc.MultiExpConfig{})
		if !got.Equal(&want) {
			t.Fatalf("n=%d: split MSM differs from gnark", n)
		}
	}
}

// TestProveVerify proves synthetic circuits with the CUDA device; the sums
// equal the CPU device's and the proofs verify.
func TestProveVerify(t *testing.T) {
	d := gpu(t)
	cfgs := []synthetic.Config{
		synthetic.Default(64),
		synthetic.Default(1000),
		{Constraints: 2, Inputs: 0, BoolFraction: 0.5, ADensity: 1, BDensity: 1, Seed: 2},
		{Constraints: 300, Inputs: 50, BoolFraction: 0, ADensity: 1, BDensity: 1, Seed: 3},
		{Constraints: 513, Inputs: 1, BoolFraction: 1, ADensity: 0.5, BDensity: 0.1, Seed: 4},
		{Constraints: 256, Inputs: 3, BoolFraction: 0.9, ADensity: 0, BDensity: 0, Seed: 5},
		{Constraints: 5000, Inputs: 20, BoolFraction: 0.75, ADensity: 0.997, BDensity: 0.25, Seed: 6},
	}
	ctx := context.Background()
	cd := cpu.New(0)
	rnd := rand.NewChaCha8([32]byte{9})
	for _, cfg := range cfgs {
		t.Run(fmt.Sprintf("n=%d/in=%d", cfg.Constraints, cfg.Inputs), func(t *testing.T) {
			c, err := synthetic.New(cfg)
			if err != nil {
				t.Fatal(err)
			}
			p, err := groth16.Setup(c, []byte(fmt.Sprint("device/cuda test ", cfg.Seed)))
			if err != nil {
				t.Fatal(err)
			}
			defer d.Release(p)
			pvk, err := groth16.PrepareVerifyingKey(&p.VK)
			if err != nil {
				t.Fatal(err)
			}
			// sums equal the CPU device's
			a1, err := groth16.Synthesize(c, r1cs.Shape{})
			if err != nil {
				t.Fatal(err)
			}
			a2, _ := groth16.Synthesize(c, r1cs.Shape{})
			s1, err := groth16.Compute(ctx, d, a1, p)
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
				t.Errorf("B2 differs from the CPU device")
			}
			// The witness-only path (Prepare/Run/Finish of an assignment
			// with its compiled system, matrices resident after the first
			// run) gives the same sums.
			sys, err := compiled.Compile(c, r1cs.Shape{})
			if err != nil {
				t.Fatal(err)
			}
			defer sys.Close()
			for run := range 2 {
				aw := witnessOnly(t, c, sys)
				s3, err := groth16.Compute(ctx, d, aw, p)
				if err != nil {
					t.Fatal(err)
				}
				for _, x := range []struct {
					name string
					g, c *bls12381.G1Jac
				}{{"H", &s3.H, &s2.H}, {"L", &s3.L, &s2.L}, {"A", &s3.A, &s2.A}, {"B1", &s3.B1, &s2.B1}} {
					if !x.g.Equal(x.c) {
						t.Errorf("witness run %d: %s differs from the CPU device", run, x.name)
					}
				}
				if !s3.B2.Equal(&s2.B2) {
					t.Errorf("witness run %d: B2 differs from the CPU device", run)
				}
			}
			proof, inputs, err := groth16.Prove(ctx, d, p, c, rnd)
			if err != nil {
				t.Fatal(err)
			}
			if err := groth16.Verify(pvk, &proof, inputs); err != nil {
				t.Fatalf("proof does not verify: %v", err)
			}
		})
	}
}

func TestUnavailableBuilds(t *testing.T) {
	// Runs everywhere: without a library New fails cleanly.
	if Available() {
		t.Skip("a GPU is present")
	}
	if _, err := New(0); err == nil {
		t.Fatal("New succeeded without a library or device")
	}
}

// TestTwoWorkers runs Prepare/Run/Finish from two goroutines on one
// device (the engine's dual-worker pattern) over several partitions of
// two circuits; every proof verifies and every Run reports a kernel interval.
func TestTwoWorkers(t *testing.T) {
	d := gpu(t)
	ctx := context.Background()
	type circ struct {
		c   *synthetic.Circuit
		p   *groth16.Params
		pvk *groth16.PreparedVerifyingKey
	}
	var cs []circ
	for i, cfg := range []synthetic.Config{
		{Constraints: 3000, Inputs: 5, BoolFraction: 0.75, ADensity: 0.99, BDensity: 0.25, Seed: 11},
		{Constraints: 1500, Inputs: 2, BoolFraction: 0.5, ADensity: 1, BDensity: 0.5, Seed: 12},
	} {
		c, err := synthetic.New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		p, err := groth16.Setup(c, []byte(fmt.Sprint("two workers ", i)))
		if err != nil {
			t.Fatal(err)
		}
		if err := d.Retain(p); err != nil {
			t.Fatal(err)
		}
		defer d.Release(p)
		pvk, err := groth16.PrepareVerifyingKey(&p.VK)
		if err != nil {
			t.Fatal(err)
		}
		cs = append(cs, circ{c, p, pvk})
	}
	const parts = 8
	errs := make(chan error, parts)
	work := make(chan int, parts)
	for i := 0; i < parts; i++ {
		work <- i
	}
	close(work)
	for w := 0; w < 2; w++ {
		go func() {
			for i := range work {
				x := cs[i%len(cs)]
				a, err := groth16.Synthesize(x.c, r1cs.Shape{})
				if err != nil {
					errs <- err
					continue
				}
				inputs := append([]fr.Element(nil), a.Input[1:]...)
				w, err := d.Prepare(ctx, a, x.p)
				if err != nil {
					errs <- err
					continue
				}
				pr, err := d.Run(ctx, w)
				if err != nil {
					errs <- err
					continue
				}
				ks, ke := pr.(*Partial).KernelInterval()
				if !ke.After(ks) {
					errs <- fmt.Errorf("partition %d: empty kernel interval %v..%v", i, ks, ke)
					continue
				}
				sums, err := d.Finish(ctx, pr)
				if err != nil {
					errs <- err
					continue
				}
				r, s, _ := groth16.DrawRS(nil)
				proof, err := groth16.Assemble(&x.p.VK, sums, r, s)
				if err == nil {
					err = groth16.Verify(x.pvk, &proof, inputs)
				}
				errs <- err
			}
		}()
	}
	for i := 0; i < parts; i++ {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}

// TestRunAfterClose: a Run that finds its device closed returns ErrClosed
// and frees the job's pinned buffers (the drained pool keeps none).
func TestRunAfterClose(t *testing.T) {
	d := gpu(t)
	c, err := synthetic.New(synthetic.Default(300))
	if err != nil {
		t.Fatal(err)
	}
	p, err := groth16.Setup(c, []byte("run after close"))
	if err != nil {
		t.Fatal(err)
	}
	a, err := groth16.Synthesize(c, r1cs.Shape{})
	if err != nil {
		t.Fatal(err)
	}
	wp, err := d.Prepare(context.Background(), a, p)
	if err != nil {
		t.Fatal(err)
	}
	w := wp.(*prepared)
	d.Close()
	if _, err := d.Run(context.Background(), w); !errors.Is(err, ErrClosed) {
		t.Fatalf("Run after Close: err = %v, want ErrClosed", err)
	}
	if w.ab.p != nil || w.st[0].bits.p != nil || w.st[2].idx.p != nil {
		t.Fatal("the job still holds pinned buffers")
	}
	d.pool.mu.Lock()
	kept := len(d.pool.free)
	d.pool.mu.Unlock()
	if kept != 0 {
		t.Fatalf("the drained pool kept %d buffers", kept)
	}
}
