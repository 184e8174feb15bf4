package groth16

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/big"
	"math/rand/v2"
	"sync"
	"testing"

	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-project/cuzk/r1cs"
)

// memFile is an io.WriterAt in memory.
type memFile struct {
	mu sync.Mutex
	b  []byte
}

func (m *memFile) WriteAt(p []byte, off int64) (int, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if end := int(off) + len(p); end > len(m.b) {
		m.b = append(m.b, make([]byte, end-len(m.b))...)
	}
	copy(m.b[off:], p)
	return len(p), nil
}

// TestWriteSetupEqualsSetup: the streamed file is Setup's WriteTo image byte
// for byte, whatever the chunk, with and without the shape hint, and its
// verifying key is Setup's.
func TestWriteSetupEqualsSetup(t *testing.T) {
	for _, tc := range []struct {
		c     randCircuit
		chunk int
	}{
		{randCircuit{Seed: 1, Inputs: 0, Rows: 5}, 0},
		{randCircuit{Seed: 2, Inputs: 3, Rows: 40}, 1},
		{randCircuit{Seed: 3, Inputs: 5, Rows: 300, BitHeavy: true}, 7},
		{randCircuit{Seed: 4, Inputs: 2, Rows: 1100}, 256},
	} {
		t.Run(fmt.Sprintf("rows=%d/chunk=%d", tc.c.Rows, tc.chunk), func(t *testing.T) {
			seed := []byte("stream")
			p, err := Setup(&tc.c, seed)
			if err != nil {
				t.Fatal(err)
			}
			want, err := p.MarshalBinary()
			if err != nil {
				t.Fatal(err)
			}
			var cnt r1cs.Counter
			if err := r1cs.Synthesize(&cnt, &tc.c); err != nil {
				t.Fatal(err)
			}
			shape := r1cs.Shape{Inputs: cnt.Inputs, Aux: cnt.Aux, Constraints: cnt.Constraints}
			for _, hint := range []*r1cs.Shape{nil, &shape} {
				var f memFile
				var phases []string
				vk, rep, err := WriteSetup(context.Background(), &f, &tc.c, seed, SetupOptions{
					Chunk: tc.chunk, Shape: hint,
					Progress: func(p SetupProgress) {
						if p.Done == 0 && !p.End {
							phases = append(phases, p.Phase)
						}
					},
				})
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(f.b, want) {
					t.Fatalf("hint %v: streamed file (%d bytes) differs from Setup's (%d bytes) at byte %d",
						hint != nil, len(f.b), len(want), firstDiff(f.b, want))
				}
				if rep.Bytes != int64(len(want)) {
					t.Errorf("report: %d bytes, file %d", rep.Bytes, len(want))
				}
				var vb, pb bytes.Buffer
				if _, err := vk.WriteTo(&vb); err != nil {
					t.Fatal(err)
				}
				if _, err := p.VK.WriteTo(&pb); err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(vb.Bytes(), pb.Bytes()) {
					t.Errorf("verifying key differs from Setup's")
				}
				wantPhases := []string{"count", "evaluate", "scalars", "ic", "b_g2", "h", "l", "a", "b_g1"}
				if hint != nil {
					wantPhases = wantPhases[1:]
				}
				if fmt.Sprint(phases) != fmt.Sprint(wantPhases) {
					t.Errorf("phases %v, want %v", phases, wantPhases)
				}
			}
		})
	}
}

func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// failingFixedBase fails its k1-th G1 call and its k2-th G2 call (0: none).
type failingFixedBase struct {
	CPUFixedBase
	mu             sync.Mutex
	k1, k2, n1, n2 int
}

var errFixedBase = errors.New("fixed-base failed")

func (f *failingFixedBase) MulG1(base bls12381.G1Affine, s []fr.Element, out []bls12381.G1Affine) error {
	if f.failNow(&f.n1, f.k1) {
		return errFixedBase
	}
	return f.CPUFixedBase.MulG1(base, s, out)
}

func (f *failingFixedBase) MulG2(base bls12381.G2Affine, s []fr.Element, out []bls12381.G2Affine) error {
	if f.failNow(&f.n2, f.k2) {
		return errFixedBase
	}
	return f.CPUFixedBase.MulG2(base, s, out)
}

// failNow counts a call of one group (calls) and reports whether it is
// the k-th.
func (f *failingFixedBase) failNow(calls *int, k int) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	*calls++
	return *calls == k
}

// failingFile fails writes at or past off.
type failingFile struct {
	memFile
	off int64
}

var errDisk = errors.New("disk full")

func (f *failingFile) WriteAt(p []byte, off int64) (int, error) {
	if off+int64(len(p)) > f.off {
		return 0, errDisk
	}
	return f.memFile.WriteAt(p, off)
}

// TestWriteSetupErrors: a failing multiplication, a failing write, a
// cancelled context and a wrong shape hint end the setup with their error.
func TestWriteSetupErrors(t *testing.T) {
	c := randCircuit{Seed: 5, Inputs: 2, Rows: 200}
	seed := []byte("errors")
	wrong := r1cs.Shape{Inputs: 3, Aux: 1, Constraints: 200}
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	for _, tc := range []struct {
		name string
		ctx  context.Context
		w    io.WriterAt
		opts SetupOptions
		want error
	}{
		{"fixed-base ic", context.Background(), &memFile{}, SetupOptions{FixedBase: &failingFixedBase{k1: 1}}, errFixedBase},
		{"fixed-base l", context.Background(), &memFile{}, SetupOptions{FixedBase: &failingFixedBase{k1: 5}, Chunk: 16}, errFixedBase},
		{"fixed-base b_g2", context.Background(), &memFile{}, SetupOptions{FixedBase: &failingFixedBase{k2: 3}, Chunk: 16}, errFixedBase},
		{"write", context.Background(), &failingFile{off: 2000}, SetupOptions{Chunk: 8}, errDisk},
		{"cancelled", cancelled, &memFile{}, SetupOptions{}, context.Canceled},
		{"shape", context.Background(), &memFile{}, SetupOptions{Shape: &wrong}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := WriteSetup(tc.ctx, tc.w, &c, seed, tc.opts)
			if err == nil || (tc.want != nil && !errors.Is(err, tc.want)) {
				t.Fatalf("WriteSetup = %v, want %v", err, tc.want)
			}
		})
	}
}

// TestCPUFixedBase compares MulG1 and MulG2 with gnark's scalar
// multiplication, for two bases in turn (the cached table is replaced) and
// the identity.
func TestCPUFixedBase(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	s := make([]fr.Element, 70)
	for i := range s {
		switch i {
		case 0:
		case 1:
			s[i].SetOne()
		case 2:
			s[i].SetInt64(-1)
		default:
			s[i] = randElement(rng)
		}
	}
	_, _, g1, g2 := bls12381.Generators()
	var g17 bls12381.G1Affine
	g17.ScalarMultiplication(&g1, big.NewInt(7))
	var g27 bls12381.G2Affine
	g27.ScalarMultiplication(&g2, big.NewInt(7))
	off1, off2 := g1, g2
	off1.Y.SetOne()
	off2.Y.A0.SetOne()
	var fb CPUFixedBase
	t.Run("G1", func(t *testing.T) { checkCPUFixedBase(t, fb.MulG1, s, g1, g17, off1) })
	t.Run("G2", func(t *testing.T) { checkCPUFixedBase(t, fb.MulG2, s, g2, g27, off2) })
}

// checkCPUFixedBase compares mul with gnark's scalar multiplication for
// gen, g7, gen again (the cached table is replaced twice) and the
// identity, and checks that a short output and a base off the curve are
// refused.
func checkCPUFixedBase[A any, PA interface {
	*A
	ScalarMultiplication(*A, *big.Int) *A
}](t *testing.T, mul func(A, []fr.Element, []A) error, s []fr.Element, gen, g7, off A) {
	var zero A
	for bi, base := range []A{gen, g7, gen, zero} {
		out := make([]A, len(s))
		if err := mul(base, s, out); err != nil {
			t.Fatal(err)
		}
		for i := range s {
			var want A
			var k big.Int
			PA(&want).ScalarMultiplication(&base, s[i].BigInt(&k))
			if any(out[i]) != any(want) {
				t.Fatalf("base %d: s[%d]·base differs", bi, i)
			}
		}
	}
	if err := mul(gen, s, make([]A, 3)); err == nil {
		t.Errorf("accepted %d scalars for 3 outputs", len(s))
	}
	if err := mul(off, s[:1], make([]A, 1)); err == nil {
		t.Error("accepted a base off the curve")
	}
}
