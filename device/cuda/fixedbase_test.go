package cuda

import (
	"bytes"
	"context"
	"fmt"
	"math/big"
	"math/rand/v2"
	"os"
	"testing"

	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-project/cuzk/circuits/synthetic"
	"github.com/cuzk-project/cuzk/groth16"
	"github.com/cuzk-project/cuzk/r1cs"
)

// TestFixedBase compares the GPU's fixed-base multiplications with the
// CPU's (groth16.CPUFixedBase) byte for byte, in G1 and G2: scalars 0, 1,
// 2, r − 1, every 2^k and random ones, two bases and the identity, sizes
// from 1 to past the library's chunk (2^24 points in G1, 2^23 in G2; not
// with -short).
func TestFixedBase(t *testing.T) {
	d := gpu(t)
	_, _, g1, g2 := bls12381.Generators()
	var g17 bls12381.G1Affine
	g17.ScalarMultiplication(&g1, big.NewInt(7))
	var g27 bls12381.G2Affine
	g27.ScalarMultiplication(&g2, big.NewInt(7))
	var cpuFB groth16.CPUFixedBase
	var poison1 bls12381.G1Affine // off the curve: never an answer
	poison1.X.SetOne()
	var poison2 bls12381.G2Affine
	poison2.X.A0.SetOne()
	t.Run("G1", func(t *testing.T) {
		checkFixedBase(t, []bls12381.G1Affine{g1, g17, {}}, poison1, 1<<24+3, d.MulG1, cpuFB.MulG1)
	})
	t.Run("G2", func(t *testing.T) {
		checkFixedBase(t, []bls12381.G2Affine{g2, g27, {}}, poison2, 1<<23+3, d.MulG2, cpuFB.MulG2)
	})

	if err := d.MulG1(g1, make([]fr.Element, 2), make([]bls12381.G1Affine, 3)); err == nil {
		t.Error("MulG1 accepted 2 scalars for 3 outputs")
	}
	if err := d.MulG2(g2, make([]fr.Element, 2), make([]bls12381.G2Affine, 3)); err == nil {
		t.Error("MulG2 accepted 2 scalars for 3 outputs")
	}
	off1 := g1
	off1.Y.SetOne()
	if err := d.MulG1(off1, make([]fr.Element, 1), make([]bls12381.G1Affine, 1)); err == nil {
		t.Error("MulG1 accepted a base off the curve")
	}
	off2 := g2
	off2.Y.A0.SetOne()
	if err := d.MulG2(off2, make([]fr.Element, 1), make([]bls12381.G2Affine, 1)); err == nil {
		t.Error("MulG2 accepted a base off the curve")
	}
	if err := d.MulG1(g1, nil, nil); err != nil {
		t.Errorf("MulG1 of nothing: %v", err)
	}
	if err := d.MulG2(g2, nil, nil); err != nil {
		t.Errorf("MulG2 of nothing: %v", err)
	}
}

// checkFixedBase compares gpu with cpu on bases[0] (the generator),
// bases[1] and bases[2] (the identity) at sizes 1 .. 2^16 + 1 and, without
// -short, large (past the library's chunk), skipping the pairs whose CPU
// reference would cost minutes. The GPU's output starts as poison.
func checkFixedBase[P comparable](t *testing.T, bases []P, poison P, large int, gpu, cpu func(P, []fr.Element, []P) error) {
	sizes := []int{1, 7, 300, 4099, 1<<16 + 1}
	if !testing.Short() {
		sizes = append(sizes, large)
	}
	rng := rand.New(rand.NewPCG(11, 12))
	for _, n := range sizes {
		s := randFr(rng, n)
		edges := []int64{0, 1, 2, -1, -2}
		for i := 0; i < len(edges) && i < n; i++ {
			s[i].SetInt64(edges[i])
		}
		for k := 0; k < 255 && len(edges)+k < n; k++ {
			var x big.Int
			s[len(edges)+k].SetBigInt(x.Lsh(big.NewInt(1), uint(k)))
		}
		for bi, base := range bases {
			if (bi == 2 && n > 4099) || (bi == 0 && n > 1<<16+1) {
				continue // the CPU reference costs seconds per million points
			}
			t.Run(fmt.Sprintf("n=%d/base=%d", n, bi), func(t *testing.T) {
				got := make([]P, n)
				for i := range got {
					got[i] = poison
				}
				if err := gpu(base, s, got); err != nil {
					t.Fatal(err)
				}
				want := make([]P, n)
				if err := cpu(base, s, want); err != nil {
					t.Fatal(err)
				}
				bad := 0
				for i := range want {
					if got[i] != want[i] {
						if bad < 5 {
							t.Errorf("point %d (scalar %s) differs: got %v, want %v", i, s[i].String(), got[i], want[i])
						}
						bad++
					}
				}
				if bad > 0 {
					t.Fatalf("%d of %d points differ", bad, n)
				}
			})
		}
	}
}

// TestSetupCUDAEqualsCPU: the .params written with the GPU's fixed-base
// equal those of the CPU path from the same seed, byte for byte, and those
// of the in-memory groth16.Setup.
func TestSetupCUDAEqualsCPU(t *testing.T) {
	d := gpu(t)
	cases := []struct{ rows, chunk int }{{1 << 10, 0}, {1 << 12, 1000}}
	if !testing.Short() {
		cases = append(cases, struct{ rows, chunk int }{1 << 16, 1 << 14})
	}
	for _, tc := range cases {
		t.Run(fmt.Sprintf("rows=%d", tc.rows), func(t *testing.T) {
			cfg := synthetic.Default(tc.rows)
			c, err := synthetic.New(cfg)
			if err != nil {
				t.Fatal(err)
			}
			seed := []byte("cuda setup")
			cpuB, _ := writeSetup(t, c, seed, groth16.SetupOptions{Chunk: tc.chunk})
			gpuB, rep := writeSetup(t, c, seed, groth16.SetupOptions{FixedBase: d, Chunk: tc.chunk})
			for _, ph := range rep.Phases {
				t.Logf("%-8s %9d  wall %v  fixed-base %v  write %v", ph.Name, ph.N, ph.Wall, ph.FixedBase, ph.Write)
			}
			if !bytes.Equal(cpuB, gpuB) {
				t.Fatalf("GPU setup (%d bytes) differs from the CPU's (%d bytes) at byte %d", len(gpuB), len(cpuB), firstByteDiff(gpuB, cpuB))
			}
			p, err := groth16.Setup(c, seed)
			if err != nil {
				t.Fatal(err)
			}
			mem, err := p.MarshalBinary()
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(mem, gpuB) {
				t.Fatalf("GPU setup differs from groth16.Setup at byte %d", firstByteDiff(gpuB, mem))
			}
		})
	}
}

// writeSetup is groth16.WriteSetup of c into a temporary file, and the
// file's bytes.
func writeSetup(t *testing.T, c r1cs.Circuit, seed []byte, o groth16.SetupOptions) ([]byte, *groth16.SetupReport) {
	t.Helper()
	f, err := os.CreateTemp(t.TempDir(), "setup")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	_, rep, err := groth16.WriteSetup(context.Background(), f, c, seed, o)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(f.Name())
	if err != nil {
		t.Fatal(err)
	}
	return b, rep
}

func firstByteDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// TestFixedBaseSymbol: the library the tests load exports the fixed-base
// entry point (no GPU needed).
func TestFixedBaseSymbol(t *testing.T) {
	if err := load(); err != nil {
		t.Skip(skipReason())
	}
	if err := loadFixedBase(); err != nil {
		t.Fatal(err)
	}
}
