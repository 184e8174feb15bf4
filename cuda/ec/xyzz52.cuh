// A G1 XYZZ accumulator over ff/fp52.cuh (the FP64 pipe), for bucket
// accumulation beside fp_t's (an experiment: test/fp52_bench.cu checks and
// times it; the library does not use it yet).
//
// The points stay as the SRS holds them: fp_t words, x·2^384 mod p. Read
// as fp52 integers (R = 2^416) they are x·a and y·a with a = 2^-32. The
// mixed addition (madd-2008-s, a = 0) is weighted-homogeneous, so it stays
// consistent on stored values (X·τx, Y·τy, ZZ·τzz, ZZZ·τzzz) where
// τx = a·τzz, τy = a·τzzz and τzzz² = a·τzz³ (each addition keeps these:
// τzz' = τzz·τx², τzzz' = τzzz·τx³). A run starts from its first point with
// τzz = a, τzzz = a² (X = x·a², Y = y·a³: two products by constants) and
// ends as an fp_t XYZZ point (four products by constants), a few percent
// of a bucket run's products. The rare cases (a point equal to or the
// negation of the sum) go through fp_t's addition.
//
// Lazy sums: the product is below 2p for inputs whose product is below
// 2^416·p, so no sum is reduced; the bounds are noted at each step.
#pragma once

#include "../ff/fp52.cuh"
#include "g1.cuh"

struct xyzz52_t {
  fp52_t X, Y, ZZ, ZZZ;  // X < 8p, Y, ZZ, ZZZ < 2p
  bool inf;

  // a = 2^-32 and a² as fp52 values (2^384 and 2^352 mod p).
  HD static fp52_t ca() {
    const int64_t v[8] = {0x900000002fffdll, 0xbc40c0002760ll,  0x3c758baebf400ll, 0x57455f4898575ll,
                          0xd77ce58537052ll, 0x71a97a256ec6ll,  0xec3fa80e4935cll, 0x15f65ll};
    return fp52_t::of(v);
  }
  HD static fp52_t ca2() {
    const int64_t v[8] = {0, 0, 0, 0, 0, 0, 1ll << 40, 0};
    return fp52_t::of(v);
  }

  HD static xyzz52_t infinity() {
    xyzz52_t r;
    r.inf = true;
    r.X = r.Y = r.ZZ = r.ZZZ = fp52_t::zero();
    return r;
  }

  // From a valid fp_t XYZZ point (not infinity): X·a², Y·a³, ZZ·a, ZZZ·a².
  HD static xyzz52_t of(const g1_xyzz& q) {
    xyzz52_t r;
    r.inf = q.is_inf();
    if (r.inf) return r;
    r.X = fp52_t::mul(fp52_t::from_words(q.X.v), ca());
    r.Y = fp52_t::mul(fp52_t::from_words(q.Y.v), ca2());
    r.ZZ = fp52_t::from_words(q.ZZ.v);
    r.ZZZ = fp52_t::mul(fp52_t::from_words(q.ZZZ.v), ca());
    return r;
  }

  // The fp_t XYZZ point: X·a, Y·a, ZZ·a², ZZZ·a², made canonical (once
  // a run: out of line on the device, to keep the kernels' loops short).
  HD g1_xyzz xyzz() const { return to_xyzz(*this); }
  static CUZK_RARE g1_xyzz to_xyzz(xyzz52_t a) { return a.xyzz_inline(); }
  HD g1_xyzz xyzz_inline() const {
    if (inf) return g1_xyzz::inf();
    g1_xyzz r;
    fp52_t::mul(X, ca()).reduce_once().to_words(r.X.v);
    fp52_t::mul(Y, ca()).reduce_once().to_words(r.Y.v);
    fp52_t::mul(ZZ, ca2()).reduce_once().to_words(r.ZZ.v);
    fp52_t::mul(ZZZ, ca2()).reduce_once().to_words(r.ZZZ.v);
    return r;
  }

  // this += (x, y): x and y the point's coordinates' words (fp_t,
  // canonical) read as fp52 (x·a, y·a); p where the point is, for the rare
  // paths (negated if neg), so that its words need not stay live.
  HD void add_affine(const g1_affine* p, bool neg, const fp52_t& x, const fp52_t& y) {
    if (inf) {
      *this = start(x, y);
      return;
    }
    const fp52_t U2 = fp52_t::mul(x, ZZ);    // < 2p
    const fp52_t S2 = fp52_t::mul(y, ZZZ);   // < 2p
    const fp52_t P = fp52_t::sub(U2, X, 8);  // < 10p
    const fp52_t R = fp52_t::sub(S2, Y, 2);  // < 4p
    if (P.is_zero()) {
      *this = rare_add(*this, *p, neg);
      return;
    }
    const fp52_t PP = P.sqr();
    const fp52_t PPP = fp52_t::mul(P, PP);
    const fp52_t Q = fp52_t::mul(X, PP);
    const fp52_t X3 = fp52_t::sub2(R.sqr(), PPP, Q, 6);  // R² + 6p − PPP − 2Q < 8p
    // R·(Q − X3) − Y·PPP as R·(Q + 8p − X3) + Y·(2p − PPP): < 44p², one reduction
    Y = fp52_t::mul_add2(R, fp52_t::sub(Q, X3, 8), Y, fp52_t::sub(fp52_t::zero(), PPP, 2));
    X = X3;
    ZZ = fp52_t::mul(ZZ, PP);
    ZZZ = fp52_t::mul(ZZZ, PPP);
  }

  // A run's first point (out of line, as xyzz).
  static CUZK_RARE xyzz52_t start(fp52_t x, fp52_t y) {
    xyzz52_t r;
    r.inf = false;
    r.X = fp52_t::mul(x, ca());
    r.Y = fp52_t::mul(y, ca2());
    r.ZZ = ca();
    r.ZZZ = ca2();
    return r;
  }

  // The sum equal to the point or to its negation: fp_t's addition (out of
  // line on the device, by value: see ec/xyzz.cuh).
  static CUZK_RARE xyzz52_t rare_add(xyzz52_t a, g1_affine p, bool neg) {
    if (neg) p.y = p.y.neg();
    g1_xyzz q = a.xyzz_inline();
    q.add_affine(p);
    return of(q);
  }
};

// msm_acc_chunk's accumulator (msm/kernels.cuh) on the FP64 pipe: xyzz52_t, the point at
// infinity skipped as fp_t's addition skips it, the rare cases re-read from src.
struct xyzz52_acc {
  xyzz52_t acc;
  HD static xyzz52_acc inf() { return {xyzz52_t::infinity()}; }
  HD void add(const g1_affine* src, bool neg, const g1_affine& p) {
    if (!p.is_inf()) acc.add_affine(src, neg, fp52_t::from_words(p.x.v), fp52_t::from_words(p.y.v));
  }
  HD g1_xyzz sum() const { return acc.xyzz(); }
};
