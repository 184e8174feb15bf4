package cuda

import (
	"bytes"
	"fmt"
	"math/big"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fp"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// g2VectorsFile holds Fp2 and G2 results computed by gnark-crypto, which the
// host program cuda/test/g2_host.cc compares the CUDA code's arithmetic with.
var g2VectorsFile = filepath.Join("..", "..", "cuda", "test", "testdata", "g2_vectors.txt")

// g2Vectors returns the vector file's text: each line an operation's name
// and its operands and result as 64-bit hex words, in memory order
// (Montgomery limbs; an E2 is A0 then A1; an affine point X then Y, (0, 0)
// for infinity; a scalar is an fr.Element).
func g2Vectors() []byte {
	r := rand.New(rand.NewPCG(0x62, 0x32))
	var b bytes.Buffer
	b.WriteString("# Fp2 and G2 vectors from gnark-crypto (device/cuda TestG2Vectors writes and checks this file).\n")
	b.WriteString("# Words: 64-bit hex, memory order (Montgomery limbs; E2 = A0, A1; affine = X, Y; (0, 0) = infinity).\n")
	line := func(name string, vals ...any) {
		b.WriteString(name)
		for _, v := range vals {
			switch x := v.(type) {
			case *bls12381.E2:
				writeWords(&b, x.A0[:])
				writeWords(&b, x.A1[:])
			case *bls12381.G2Affine:
				writeWords(&b, x.X.A0[:])
				writeWords(&b, x.X.A1[:])
				writeWords(&b, x.Y.A0[:])
				writeWords(&b, x.Y.A1[:])
			case *fr.Element:
				writeWords(&b, x[:])
			default:
				panic(fmt.Sprintf("g2Vectors: %T", v))
			}
		}
		b.WriteByte('\n')
	}
	randFp := func() fp.Element {
		var e fp.Element
		for i := range e {
			e[i] = r.Uint64()
		}
		e[5] %= 0x1a0111ea397fe69a // any value below p is a Montgomery form
		return e
	}
	var minus1 fp.Element
	minus1.SetOne()
	minus1.Neg(&minus1)
	var pm1 fp.Element // p - 1 as limbs (the largest Montgomery form)
	pm1.SetZero()
	pm1.Sub(&pm1, &fp.Element{1})
	special := []bls12381.E2{
		{},
		{A0: fp.One()},
		{A1: fp.One()},
		{A0: minus1, A1: minus1},
		{A0: pm1, A1: pm1},
		{A0: fp.Element{1}, A1: pm1},
	}
	var elems []bls12381.E2
	elems = append(elems, special...)
	for range 40 {
		elems = append(elems, bls12381.E2{A0: randFp(), A1: randFp()})
	}
	for i := range elems {
		x := &elems[i]
		y := &elems[(i*7+3)%len(elems)]
		var mul, sqr, add, sub, inv, ma, t bls12381.E2
		mul.Mul(x, y)
		sqr.Square(x)
		add.Add(x, y)
		sub.Sub(x, y)
		inv.Inverse(x)
		line("fp2_mul", x, y, &mul)
		line("fp2_sqr", x, &sqr)
		line("fp2_add", x, y, &add)
		line("fp2_sub", x, y, &sub)
		line("fp2_inv", x, &inv)
		c := &elems[(i*5+1)%len(elems)]
		d := &elems[(i*3+2)%len(elems)]
		ma.Mul(x, y)
		t.Mul(c, d)
		ma.Add(&ma, &t)
		line("fp2_muladd", x, y, c, d, &ma)
	}
	_, _, _, g2 := bls12381.Generators()
	line("g2_gen", &g2)
	var pts []bls12381.G2Affine
	for range 12 {
		var k big.Int
		k.SetUint64(r.Uint64())
		var p bls12381.G2Affine
		p.ScalarMultiplication(&g2, &k)
		pts = append(pts, p)
	}
	pts = append(pts, g2)
	var inf bls12381.G2Affine
	for i := range pts {
		p, q := &pts[i], &pts[(i+1)%len(pts)]
		var sum, dbl, neg, mul bls12381.G2Affine
		sum.Add(p, q)
		line("g2_add", p, q, &sum)
		dbl.Double(p)
		line("g2_dbl", p, &dbl)
		line("g2_add", p, p, &dbl) // doubling through the addition
		neg.Neg(p)
		line("g2_add", p, &neg, &inf) // cancellation
		line("g2_add", p, &inf, p)
		line("g2_add", &inf, p, p)
		var k fr.Element
		k.SetUint64(r.Uint64())
		k.Mul(&k, &k).Mul(&k, &k)
		var kb big.Int
		mul.ScalarMultiplication(p, k.BigInt(&kb))
		line("g2_mul", p, &k, &mul)
	}
	return b.Bytes()
}

func writeWords(b *bytes.Buffer, w []uint64) {
	for _, x := range w {
		fmt.Fprintf(b, " %016x", x)
	}
}

// TestG2Vectors checks that cuda/test/testdata/g2_vectors.txt is what
// gnark-crypto computes today; CUZK_WRITE_VECTORS=1 rewrites it.
func TestG2Vectors(t *testing.T) {
	want := g2Vectors()
	if os.Getenv("CUZK_WRITE_VECTORS") == "1" {
		if err := os.WriteFile(g2VectorsFile, want, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	got, err := os.ReadFile(g2VectorsFile)
	if err != nil {
		t.Fatalf("%v (CUZK_WRITE_VECTORS=1 writes it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%s differs from gnark-crypto's results (CUZK_WRITE_VECTORS=1 rewrites it)", g2VectorsFile)
	}
}

// TestG2HostCheck builds cuda/test/g2_host.cc with the host's C++ compiler
// and runs it on the vectors: the CUDA code's Fp2 (the device's wide forms
// with the carry flag emulated, and the portable Karatsuba) and G2 (XYZZ
// additions, doublings, scalar multiplication) against gnark-crypto. It
// skips where there is no compiler.
func TestG2HostCheck(t *testing.T) {
	cxx := hostCXX()
	if cxx == "" {
		t.Skip("no C++ compiler (set CXX)")
	}
	src, err := filepath.Abs(filepath.Join("..", "..", "cuda", "test", "g2_host.cc"))
	if err != nil {
		t.Fatal(err)
	}
	for _, form := range []struct{ name, flag string }{{"portable", "-UCUZK_HOST_WIDE"}, {"device", "-DCUZK_HOST_WIDE"}} {
		bin := filepath.Join(t.TempDir(), "g2_host_"+form.name)
		out, err := exec.Command(cxx, "-O2", "-std=c++17", "-Wno-unknown-pragmas", form.flag, "-o", bin, src).CombinedOutput()
		if err != nil {
			t.Fatalf("%s: %v\n%s", cxx, err, out)
		}
		out, err = exec.Command(bin, g2VectorsFile).CombinedOutput()
		t.Logf("%s forms: %s", form.name, out)
		if err != nil || !strings.Contains(string(out), "PASS") {
			t.Fatalf("g2 host check (%s forms) failed: %v", form.name, err)
		}
	}
}

// hostCXX is $CXX or the first C++ compiler on the path ("" if none).
func hostCXX() string {
	if cxx := os.Getenv("CXX"); cxx != "" {
		return cxx
	}
	for _, c := range []string{"c++", "g++", "clang++"} {
		if _, err := exec.LookPath(c); err == nil {
			return c
		}
	}
	return ""
}
