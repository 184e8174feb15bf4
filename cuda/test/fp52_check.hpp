// The host check of ff/fp52.cuh against fp_t (fp52_host.cc runs it alone,
// fp52_bench.cu before the device's): random pairs and the extremes, each
// checked through two products (the second from the first's result, which
// may be up to 2p) against fp_t's x·y·2^-416.
#pragma once

#include <fenv.h>
#include <stdio.h>

#include <vector>

#include "../ff/field.cuh"
#include "../ff/fp52.cuh"
#include "../ec/xyzz52.cuh"

static uint64_t s = 0x2545f4914f6cdd1dull;
static uint32_t next() {
  s ^= s << 13;
  s ^= s >> 7;
  s ^= s << 17;
  return (uint32_t)(s >> 16);
}

static fp_t reduce(fp_t x) {
  while (fp_t::geq_mod(x.v)) fp_t::sub_mod_inplace(x.v);
  return x;
}

static fp_t random_fp() {
  fp_t a;
  for (int j = 0; j < 12; j++) a.v[j] = next();
  a.v[11] &= 0x1fffffffu;  // below 2^381
  return reduce(a);
}

// x·y·2^-416 mod p by fp_t: two products, the second by 2^352 (raw).
static fp_t reference(const fp_t& x, const fp_t& y) {
  fp_t c;
  for (int j = 0; j < 12; j++) c.v[j] = 0;
  c.v[11] = 1;
  return reduce(fp_t::mul_portable(fp_t::mul_portable(x, y), c));
}

static fp_t words_of(const fp52_t& z) {
  fp_t r;
  z.to_words(r.v);
  return r;
}

static bool below_2p(const fp52_t& z) {
  fp_t w = words_of(z);
  if (!fp_t::geq_mod(w.v)) return true;
  fp_t::sub_mod_inplace(w.v);
  return !fp_t::geq_mod(w.v);
}

static int fp52_host_check(int n) {
  fesetround(FE_TOWARDZERO);
  int bad = 0;
  fp_t pm1 = fp_t::zero() - fp_t::raw_one();  // p - 1
  std::vector<fp_t> xs = {fp_t::zero(), fp_t::raw_one(), pm1};
  for (int i = 0; i < n; i++) xs.push_back(random_fp());
  for (size_t i = 0; i + 1 < xs.size(); i++) {
    const fp_t& x = xs[i];
    const fp_t& y = xs[(i * 7 + 1) % xs.size()];
    const fp52_t z = fp52_t::mul(fp52_t::from_words(x.v), fp52_t::from_words(y.v));
    // a second product from z, which may be up to 2p
    const fp52_t z2 = fp52_t::mul(z, fp52_t::from_words(y.v));
    const fp_t r1 = reference(x, y), r2 = reference(r1, y);
    // the squaring, of an input below p and of one up to 2p
    const fp52_t s1 = fp52_t::from_words(x.v).sqr(), s2 = z.sqr();
    if (!(reduce(words_of(s1)) == reference(x, x)) || !(reduce(words_of(s2)) == reference(r1, r1)) || !below_2p(s1) ||
        !below_2p(s2)) {
      if (bad < 5) printf("host: squaring mismatch at pair %zu\n", i);
      bad++;
    }
    if (!(reduce(words_of(z)) == r1) || !(reduce(words_of(z2)) == r2) || !below_2p(z) || !below_2p(z2)) {
      if (bad < 5) printf("host: mismatch at pair %zu\n", i);
      bad++;
    }
  }
  fesetround(FE_TONEAREST);
  printf("host: fp52 against fp_t, %zu pairs (two products each): %s\n", xs.size() - 1, bad ? "FAIL" : "ok");
  return bad;
}

// The fp52 accumulator (ec/xyzz52.cuh) against fp_t's XYZZ mixed additions:
// runs of random points of a table (multiples of the generator), with the
// sum's double and its negation put in now and then (the rare paths), the
// sums compared in affine form.
struct fp52_points {
  std::vector<g1_affine> pts;
  explicit fp52_points(int n) {
    g1_xyzz acc = g1_xyzz::inf();
    const g1_affine G = g1_generator();
    for (int i = 0; i < n; i++) {
      for (int k = 0; k < 1 + (int)(next() % 5); k++) acc.add_affine(G);
      pts.push_back(acc.to_affine());
    }
  }
};

static bool same_affine(const g1_affine& a, const g1_affine& b) { return a.x == b.x && a.y == b.y; }

static int fp52_acc_host_check(const fp52_points& t, int runs, int len) {
  fesetround(FE_TOWARDZERO);
  int bad = 0;
  for (int r = 0; r < runs; r++) {
    g1_xyzz a32 = g1_xyzz::inf();
    xyzz52_t a52 = xyzz52_t::infinity();
    for (int i = 0; i < len; i++) {
      g1_affine p = t.pts[next() % t.pts.size()];
      const uint32_t kind = next() % 16;
      if (kind == 0 && !a32.is_inf()) p = a32.to_affine();        // doubling
      if (kind == 1 && !a32.is_inf()) p = a32.to_affine().neg();  // to infinity
      if (kind == 2) p.y = p.y.neg();                             // a negated digit
      a32.add_affine(p);
      if (p.is_inf()) continue;  // as the accumulation kernels skip them
      a52.add_affine(&p, false, fp52_t::from_words(p.x.v), fp52_t::from_words(p.y.v));
    }
    if (!same_affine(a32.to_affine(), a52.xyzz().to_affine())) {
      if (bad < 5) printf("host: fp52 accumulator differs on run %d\n", r);
      bad++;
    }
  }
  fesetround(FE_TONEAREST);
  printf("host: fp52 accumulator against fp_t's, %d runs of %d additions: %s\n", runs, len, bad ? "FAIL" : "ok");
  return bad;
}
