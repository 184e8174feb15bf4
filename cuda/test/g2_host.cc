// Host check of the CUDA code's Fp2 and G2 arithmetic (ff/fp2.cuh,
// ec/xyzz.cuh over Fp2, ec/g2.cuh) against vectors computed by gnark-crypto
// (cuda/test/testdata/g2_vectors.txt, written by device/cuda TestG2Vectors).
// Built twice by `make cuda-host-check` (and TestG2HostCheck): as is, +, -
// and * are the portable host forms (Karatsuba over the portable product);
// with -DCUZK_HOST_WIDE they are the device's (the wide product, two- and
// four-product sums, carry-chain add/sub, with the carry flag emulated, which
// aborts if a carry the bounds say is zero is not). Every line's operation is
// also computed with the other forms the file offers (Karatsuba and the wide
// product; affine and XYZZ additions; XYZZ inputs rescaled so that ZZ != 1).
// Prints each mismatch (operation, line, which form) and PASS or FAIL.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <string>
#include <vector>

#include "../ec/g2.cuh"

static int bad = 0, checked = 0;

static void expect(bool ok, const char* op, int line, const char* form) {
  checked++;
  if (ok) return;
  if (bad < 20) printf("FAIL %s (line %d): %s differs from gnark-crypto\n", op, line, form);
  bad++;
}

template <class T>
static T take(const std::vector<uint64_t>& w, size_t& at) {
  T r;
  memcpy(&r, w.data() + at, sizeof r);
  at += sizeof r / 8;
  return r;
}

// a*b with the wide product on every coordinate, whatever the build's default
static fp2_t sqr_wide(const fp2_t& a) {
  return {fp_t::mul_wide(a.a0 + a.a1, a.a0 - a.a1), fp_t::mul_wide(a.a0, a.a1).dbl()};
}

static bool same(const g2_xyzz& p, const g2_affine& q) {
  g2_affine a = p.to_affine();
  return a.x == q.x && a.y == q.y;
}

// p with (X, Y, ZZ, ZZZ) scaled by (l^2, l^3, l^2, l^3): the same point
static g2_xyzz rescale(const g2_affine& p, const fp2_t& l) {
  g2_xyzz r = g2_xyzz::from_affine(p);
  if (r.is_inf()) return r;
  const fp2_t l2 = l.sqr(), l3 = l2 * l;
  r.X = r.X * l2;
  r.Y = r.Y * l3;
  r.ZZ = l2;
  r.ZZZ = l3;
  return r;
}

static bool on_curve(const g2_affine& p) { return p.is_inf() || p.y.sqr() == p.x.sqr() * p.x + g2_b(); }

int main(int argc, char** argv) {
  const char* path = argc > 1 ? argv[1] : "cuda/test/testdata/g2_vectors.txt";
  FILE* f = fopen(path, "r");
  if (!f) {
    printf("FAIL: cannot open %s\n", path);
    return 2;
  }
  fp2_t lam = fp2_t::one().dbl() + fp2_t{fp_t::zero(), fp_t::one()};  // 2 + u
  char buf[1 << 14];
  int line = 0, ops = 0;
  while (fgets(buf, sizeof buf, f)) {
    line++;
    if (buf[0] == '#' || buf[0] == '\n') continue;
    char name[32];
    int off = 0;
    if (sscanf(buf, "%31s%n", name, &off) != 1) continue;
    std::vector<uint64_t> w;
    const char* s = buf + off;
    while (*s) {
      char* e;
      unsigned long long x = strtoull(s, &e, 16);
      if (e == s) break;
      w.push_back(x);
      s = e;
    }
    size_t at = 0;
    const std::string op = name;
    ops++;
    if (op == "fp2_mul" && w.size() == 36) {
      fp2_t a = take<fp2_t>(w, at), b = take<fp2_t>(w, at), want = take<fp2_t>(w, at);
      expect(a * b == want, name, line, "a*b");
      expect(fp2_t::mul_wide(a, b) == want, name, line, "mul_wide (two two-product sums)");
      expect(fp2_t::mul_karatsuba(a, b) == want, name, line, "mul_karatsuba");
    } else if (op == "fp2_sqr" && w.size() == 24) {
      fp2_t a = take<fp2_t>(w, at), want = take<fp2_t>(w, at);
      expect(a.sqr() == want, name, line, "sqr");
      expect(sqr_wide(a) == want, name, line, "complex squaring with the wide product");
      expect(a * a == want, name, line, "a*a");
    } else if (op == "fp2_add" && w.size() == 36) {
      fp2_t a = take<fp2_t>(w, at), b = take<fp2_t>(w, at), want = take<fp2_t>(w, at);
      expect(a + b == want, name, line, "a+b");
      fp2_t c = {fp_t::add_chain(a.a0, b.a0), fp_t::add_chain(a.a1, b.a1)};
      expect(c == want, name, line, "carry-chain add");
    } else if (op == "fp2_sub" && w.size() == 36) {
      fp2_t a = take<fp2_t>(w, at), b = take<fp2_t>(w, at), want = take<fp2_t>(w, at);
      expect(a - b == want, name, line, "a-b");
      fp2_t c = {fp_t::sub_chain(a.a0, b.a0), fp_t::sub_chain(a.a1, b.a1)};
      expect(c == want, name, line, "carry-chain sub");
      expect(b.neg() + a == want, name, line, "-b+a");
    } else if (op == "fp2_inv" && w.size() == 24) {
      fp2_t a = take<fp2_t>(w, at), want = take<fp2_t>(w, at);
      expect(a.inv() == want, name, line, "inv");
      if (!a.is_zero()) expect(a * a.inv() == fp2_t::one(), name, line, "a*inv(a) == 1");
    } else if (op == "fp2_muladd" && w.size() == 60) {
      fp2_t a = take<fp2_t>(w, at), b = take<fp2_t>(w, at), c = take<fp2_t>(w, at), d = take<fp2_t>(w, at),
            want = take<fp2_t>(w, at);
      expect(fp2_t::mul_add2(a, b, c, d) == want, name, line, "mul_add2");
      expect(fp2_t::mul_add2_wide(a, b, c, d) == want, name, line, "mul_add2_wide (four-product sums)");
    } else if (op == "g2_gen" && w.size() == 24) {
      g2_affine g = take<g2_affine>(w, at), mine = g2_generator();
      expect(g.x == mine.x && g.y == mine.y, name, line, "g2_generator()");
      expect(on_curve(mine), name, line, "generator on y^2 = x^3 + 4(u+1)");
    } else if (op == "g2_add" && w.size() == 72) {
      g2_affine p = take<g2_affine>(w, at), q = take<g2_affine>(w, at), want = take<g2_affine>(w, at);
      g2_xyzz m = g2_xyzz::from_affine(p);
      m.add_affine(q);
      expect(same(m, want), name, line, "mixed addition (madd-2008-s)");
      g2_xyzz x = g2_xyzz::from_affine(p);
      x.add(g2_xyzz::from_affine(q));
      expect(same(x, want), name, line, "XYZZ addition (add-2008-s), ZZ = 1");
      g2_xyzz y = rescale(p, lam);
      y.add(rescale(q, lam.sqr() + fp2_t::one()));
      expect(same(y, want), name, line, "XYZZ addition, ZZ != 1");
      g2_xyzz z = rescale(p, lam);
      z.add_affine(q);
      expect(same(z, want), name, line, "mixed addition, ZZ != 1");
      expect(on_curve(want), name, line, "result on the curve");
    } else if (op == "g2_dbl" && w.size() == 48) {
      g2_affine p = take<g2_affine>(w, at), want = take<g2_affine>(w, at);
      expect(same(g2_xyzz::from_affine(p).dbl(), want), name, line, "dbl-2008-s-1");
      expect(same(g2_xyzz::dbl_affine(p), want), name, line, "mdbl-2008-s");
      expect(same(rescale(p, lam).dbl(), want), name, line, "dbl, ZZ != 1");
    } else if (op == "g2_mul" && w.size() == 52) {
      g2_affine p = take<g2_affine>(w, at);
      fr_t k = take<fr_t>(w, at).from_mont();
      g2_affine want = take<g2_affine>(w, at);
      g2_xyzz acc = g2_xyzz::inf();
      for (int b = 255; b >= 0; b--) {
        acc = acc.dbl();
        if ((k.v[b / 32] >> (b % 32)) & 1) acc.add_affine(p);
      }
      expect(same(acc, want), name, line, "double-and-add");
    } else {
      printf("FAIL: line %d: unknown operation %s or %zu words\n", line, name, w.size());
      bad++;
    }
  }
  fclose(f);
#if defined(CUZK_HOST_WIDE)
  const char* form = "device forms (CUZK_HOST_WIDE)";
#else
  const char* form = "portable forms";
#endif
  printf("g2 host check, %s: %d operations, %d comparisons, %d mismatches\n", form, ops, checked, bad);
  if (ops < 300) {
    printf("FAIL: only %d operations in %s\n", ops, path);
    bad++;
  }
  printf("%s\n", bad ? "FAIL" : "PASS");
  return bad ? 1 : 0;
}
