// BLS12-381 G1 (y^2 = x^3 + 4) in affine and XYZZ coordinates.
//
// Affine points have gnark-crypto's G1Affine memory layout: X then Y, each
// an fp.Element (12 words, Montgomery). (0, 0) is the point at infinity.
// XYZZ: x = X/ZZ, y = Y/ZZZ, ZZ^3 = ZZZ^2; ZZ = 0 is the point at infinity.
// Formulas: EFD "xyzz" (madd-2008-s, add-2008-s, dbl-2008-s-1, mdbl-2008-s);
// each Y3 = u*v - w*z is one two-product sum (fp_t::mul_add2, one reduction).
#pragma once

#include <string.h>

#include "../ff/field.cuh"

struct g1_affine {
  fp_t x, y;
  HD bool is_inf() const { return x.is_zero() && y.is_zero(); }
  HD g1_affine neg() const {
    g1_affine r;
    r.x = x;
    r.y = y.neg();
    return r;
  }
};

struct g1_xyzz;
// The doublings inside the additions, where equal points meet (rare): out of
// line on the device, so that kernels with two or more inlined additions keep
// their registers for the common path.
#if defined(__CUDA_ARCH__)
#define CUZK_RARE __device__ __noinline__
#else
#define CUZK_RARE inline
#endif
CUZK_RARE g1_xyzz xyzz_dbl_rare(const g1_xyzz& p);
CUZK_RARE g1_xyzz xyzz_mdbl_rare(const g1_affine& p);

struct g1_xyzz {
  fp_t X, Y, ZZ, ZZZ;

  HD static g1_xyzz inf() {
    g1_xyzz r;
    r.X = fp_t::one();
    r.Y = fp_t::one();
    r.ZZ = fp_t::zero();
    r.ZZZ = fp_t::zero();
    return r;
  }
  HD bool is_inf() const { return ZZ.is_zero(); }
  HD static g1_xyzz from_affine(const g1_affine& p) {
    if (p.is_inf()) return inf();
    g1_xyzz r;
    r.X = p.x;
    r.Y = p.y;
    r.ZZ = fp_t::one();
    r.ZZZ = fp_t::one();
    return r;
  }
  HD g1_xyzz neg() const {
    g1_xyzz r = *this;
    r.Y = Y.neg();
    return r;
  }

  // dbl-2008-s-1 (a = 0)
  HD g1_xyzz dbl() const {
    if (is_inf()) return *this;
    fp_t U = Y.dbl();
    fp_t V = U.sqr();
    fp_t W = U * V;
    fp_t S = X * V;
    fp_t X2 = X.sqr();
    fp_t M = X2.dbl() + X2;
    g1_xyzz r;
    r.X = M.sqr() - S.dbl();
    r.Y = fp_t::mul_add2(M, S - r.X, W, Y.neg());
    r.ZZ = V * ZZ;
    r.ZZZ = W * ZZZ;
    return r;
  }

  // mdbl-2008-s: double an affine point.
  HD static g1_xyzz dbl_affine(const g1_affine& p) {
    fp_t U = p.y.dbl();
    fp_t V = U.sqr();
    fp_t W = U * V;
    fp_t S = p.x * V;
    fp_t X2 = p.x.sqr();
    fp_t M = X2.dbl() + X2;
    g1_xyzz r;
    r.X = M.sqr() - S.dbl();
    r.Y = fp_t::mul_add2(M, S - r.X, W, p.y.neg());
    r.ZZ = V;
    r.ZZZ = W;
    return r;
  }

  // madd-2008-s: this += p (affine).
  HD void add_affine(const g1_affine& p) {
    if (p.is_inf()) return;
    if (is_inf()) {
      *this = from_affine(p);
      return;
    }
    fp_t U2 = p.x * ZZ;
    fp_t S2 = p.y * ZZZ;
    fp_t P = U2 - X;
    fp_t R = S2 - Y;
    if (P.is_zero()) {
      if (R.is_zero())
        *this = xyzz_mdbl_rare(p);
      else
        *this = inf();
      return;
    }
    fp_t PP = P.sqr();
    fp_t PPP = P * PP;
    fp_t Q = X * PP;
    fp_t X3 = R.sqr() - PPP - Q.dbl();
    Y = fp_t::mul_add2(R, Q - X3, Y, PPP.neg());
    X = X3;
    ZZ = ZZ * PP;
    ZZZ = ZZZ * PPP;
  }

  // add-2008-s: this += q.
  HD void add(const g1_xyzz& q) {
    if (q.is_inf()) return;
    if (is_inf()) {
      *this = q;
      return;
    }
    fp_t U1 = X * q.ZZ;
    fp_t U2 = q.X * ZZ;
    fp_t S1 = Y * q.ZZZ;
    fp_t S2 = q.Y * ZZZ;
    fp_t P = U2 - U1;
    fp_t R = S2 - S1;
    if (P.is_zero()) {
      if (R.is_zero())
        *this = xyzz_dbl_rare(*this);
      else
        *this = inf();
      return;
    }
    fp_t PP = P.sqr();
    fp_t PPP = P * PP;
    fp_t Q = U1 * PP;
    fp_t X3 = R.sqr() - PPP - Q.dbl();
    Y = fp_t::mul_add2(R, Q - X3, S1, PPP.neg());
    X = X3;
    ZZ = ZZ * q.ZZ * PP;
    ZZZ = ZZZ * q.ZZZ * PPP;
  }

  // to_affine with one inversion; infinity maps to (0, 0).
  HD g1_affine to_affine() const {
    g1_affine r;
    if (is_inf()) {
      r.x = fp_t::zero();
      r.y = fp_t::zero();
      return r;
    }
    // 1/ZZZ = ZZ^-3/2 ... use: zinv = (ZZ*ZZZ)^-1; 1/ZZ = zinv*ZZZ, 1/ZZZ = zinv*ZZ
    fp_t zinv = (ZZ * ZZZ).inv();
    fp_t izz = zinv * ZZZ;
    fp_t izzz = zinv * ZZ;
    r.x = X * izz;
    r.y = Y * izzz;
    return r;
  }
};

CUZK_RARE g1_xyzz xyzz_dbl_rare(const g1_xyzz& p) { return p.dbl(); }
CUZK_RARE g1_xyzz xyzz_mdbl_rare(const g1_affine& p) { return g1_xyzz::dbl_affine(p); }

// The standard generator of G1 (gnark-crypto's g1Gen), in Montgomery form.
inline g1_affine g1_generator() {
  const uint64_t gx[6] = {0x5cb38790fd530c16ull, 0x7817fc679976fff5ull, 0x154f95c7143ba1c1ull,
                          0xf0ae6acdf3d0e747ull, 0xedce6ecc21dbf440ull, 0x120177419e0bfb75ull};
  const uint64_t gy[6] = {0xbaac93d50ce72271ull, 0x8c22631a7918fd8eull, 0xdd595f13570725ceull,
                          0x51ac582950405194ull, 0x0e1c8c3fad0059c0ull, 0x0bbc3efc5008a26aull};
  g1_affine G;
  memcpy(G.x.v, gx, 48);
  memcpy(G.y.v, gy, 48);
  return G;
}
