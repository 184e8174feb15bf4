// Short Weierstrass points with a = 0 (BLS12-381 G1 over Fp, G2 over Fp2)
// in affine and XYZZ coordinates, generic over the coordinate field F.
//
// Affine points are X then Y (gnark-crypto's G1Affine / G2Affine layout);
// (0, 0) is the point at infinity. XYZZ: x = X/ZZ, y = Y/ZZZ,
// ZZ^3 = ZZZ^2; ZZ = 0 is the point at infinity.
// Formulas: EFD "xyzz" (madd-2008-s, add-2008-s, dbl-2008-s-1, mdbl-2008-s),
// which need a = 0 only (not b); each Y3 = u*v - w*z is one two-product sum
// (F::mul_add2, one reduction per coordinate on the device).
// F provides zero, one, is_zero, ==, +, -, neg, dbl, *, sqr, inv, mul_add2.
#pragma once

#include "../ff/field.cuh"

template <class F>
struct affine_t {
  F x, y;
  HD bool is_inf() const { return x.is_zero() && y.is_zero(); }
  HD affine_t neg() const {
    affine_t r;
    r.x = x;
    r.y = y.neg();
    return r;
  }
};

template <class F>
struct xyzz_t;
// The doublings inside the additions, where equal points meet (rare): out of
// line on the device, so that kernels with two or more inlined additions keep
// their registers for the common path.
//
// Every out-of-line function takes its points and returns its result by
// value, never through a reference: with references, once no kernel of the
// module passed them a point in global memory, ptxas 11.8 compiled G2's
// out-of-line doubling to convert its argument's address as a local one,
// and its caller in msm_segments handed it an address that was not (a
// misaligned local read, found by compute-sanitizer). A value argument is
// the callee's own copy, whatever the caller's memory.
#if defined(__CUDA_ARCH__)
#define CUZK_RARE __device__ __noinline__
#else
#define CUZK_RARE inline
#endif
template <class F>
CUZK_RARE xyzz_t<F> xyzz_dbl_rare(xyzz_t<F> p);
template <class F>
CUZK_RARE xyzz_t<F> xyzz_mdbl_rare(affine_t<F> p);

// Fields whose XYZZ addition and doubling are out of line on the device
// (G2: an Fp2 addition is ~3x G1's code; inlined in every kernel that adds,
// the module took many times G1's compile time). Only the mixed addition,
// the accumulation's and the batch addition's inner step, stays inline.
// Specialized to true by ec/g2.cuh; G1 (false) is unchanged.
template <class F>
struct xyzz_out_of_line {
  static constexpr bool value = false;
};
// G2's out-of-line addition takes the generic addresses of its points as
// integers, not copies: passed by value, each call copied two 576-byte
// points through local memory (msm_segments: 1,014 local loads and 2,947
// stores in its SASS against 144 and 293 this way), and an argument given
// as an address ptxas can infer the space of may be converted as a local
// one. The G2 MSM 2^25 takes 640 ms against 690 by value (H100).
template <class F>
CUZK_RARE void xyzz_add_ool_at(uintptr_t p, uintptr_t q);
template <class F>
CUZK_RARE xyzz_t<F> xyzz_dbl_ool(xyzz_t<F> p);

template <class F>
struct xyzz_t {
  F X, Y, ZZ, ZZZ;

  HD static xyzz_t inf() {
    xyzz_t r;
    r.X = F::one();
    r.Y = F::one();
    r.ZZ = F::zero();
    r.ZZZ = F::zero();
    return r;
  }
  HD bool is_inf() const { return ZZ.is_zero(); }
  HD static xyzz_t from_affine(const affine_t<F>& p) {
    if (p.is_inf()) return inf();
    xyzz_t r;
    r.X = p.x;
    r.Y = p.y;
    r.ZZ = F::one();
    r.ZZZ = F::one();
    return r;
  }
  HD xyzz_t neg() const {
    xyzz_t r = *this;
    r.Y = Y.neg();
    return r;
  }

  // dbl-2008-s-1 (a = 0)
  HD xyzz_t dbl() const {
    if constexpr (xyzz_out_of_line<F>::value)
      return xyzz_dbl_ool(*this);
    else
      return dbl_inline();
  }
  HD xyzz_t dbl_inline() const {
    if (is_inf()) return *this;
    F U = Y.dbl();
    F V = U.sqr();
    F W = U * V;
    F S = X * V;
    F X2 = X.sqr();
    F M = X2.dbl() + X2;
    xyzz_t r;
    r.X = M.sqr() - S.dbl();
    r.Y = F::mul_add2(M, S - r.X, W, Y.neg());
    r.ZZ = V * ZZ;
    r.ZZZ = W * ZZZ;
    return r;
  }

  // mdbl-2008-s: double an affine point.
  HD static xyzz_t dbl_affine(const affine_t<F>& p) {
    F U = p.y.dbl();
    F V = U.sqr();
    F W = U * V;
    F S = p.x * V;
    F X2 = p.x.sqr();
    F M = X2.dbl() + X2;
    xyzz_t r;
    r.X = M.sqr() - S.dbl();
    r.Y = F::mul_add2(M, S - r.X, W, p.y.neg());
    r.ZZ = V;
    r.ZZZ = W;
    return r;
  }

  // madd-2008-s: this += p (affine).
  HD void add_affine(const affine_t<F>& p) {
    if (p.is_inf()) return;
    if (is_inf()) {
      *this = from_affine(p);
      return;
    }
    F U2 = p.x * ZZ;
    F S2 = p.y * ZZZ;
    F P = U2 - X;
    F R = S2 - Y;
    if (P.is_zero()) {
      if (R.is_zero())
        *this = xyzz_mdbl_rare(p);
      else
        *this = inf();
      return;
    }
    F PP = P.sqr();
    F PPP = P * PP;
    F Q = X * PP;
    F X3 = R.sqr() - PPP - Q.dbl();
    Y = F::mul_add2(R, Q - X3, Y, PPP.neg());
    X = X3;
    ZZ = ZZ * PP;
    ZZZ = ZZZ * PPP;
  }

  // add-2008-s: this += q.
  HD void add(const xyzz_t& q) {
    if constexpr (xyzz_out_of_line<F>::value)
      xyzz_add_ool_at<F>(reinterpret_cast<uintptr_t>(this), reinterpret_cast<uintptr_t>(&q));
    else
      add_inline(q);
  }
  HD void add_inline(const xyzz_t& q) {
    if (q.is_inf()) return;
    if (is_inf()) {
      *this = q;
      return;
    }
    F U1 = X * q.ZZ;
    F U2 = q.X * ZZ;
    F S1 = Y * q.ZZZ;
    F S2 = q.Y * ZZZ;
    F P = U2 - U1;
    F R = S2 - S1;
    if (P.is_zero()) {
      if (R.is_zero())
        *this = xyzz_dbl_rare(*this);
      else
        *this = inf();
      return;
    }
    F PP = P.sqr();
    F PPP = P * PP;
    F Q = U1 * PP;
    F X3 = R.sqr() - PPP - Q.dbl();
    Y = F::mul_add2(R, Q - X3, S1, PPP.neg());
    X = X3;
    ZZ = ZZ * q.ZZ * PP;
    ZZZ = ZZZ * q.ZZZ * PPP;
  }

  // to_affine with one inversion; infinity maps to (0, 0).
  HD affine_t<F> to_affine() const {
    affine_t<F> r;
    if (is_inf()) {
      r.x = F::zero();
      r.y = F::zero();
      return r;
    }
    // zinv = (ZZ*ZZZ)^-1; 1/ZZ = zinv*ZZZ, 1/ZZZ = zinv*ZZ
    F zinv = (ZZ * ZZZ).inv();
    F izz = zinv * ZZZ;
    F izzz = zinv * ZZ;
    r.x = X * izz;
    r.y = Y * izzz;
    return r;
  }
};

template <class F>
CUZK_RARE xyzz_t<F> xyzz_dbl_rare(xyzz_t<F> p) {
  return p.dbl();
}
template <class F>
CUZK_RARE void xyzz_add_ool_at(uintptr_t p, uintptr_t q) {
  reinterpret_cast<xyzz_t<F>*>(p)->add_inline(*reinterpret_cast<const xyzz_t<F>*>(q));
}
template <class F>
CUZK_RARE xyzz_t<F> xyzz_dbl_ool(xyzz_t<F> p) {
  return p.dbl_inline();
}
template <class F>
CUZK_RARE xyzz_t<F> xyzz_mdbl_rare(affine_t<F> p) {
  return xyzz_t<F>::dbl_affine(p);
}
