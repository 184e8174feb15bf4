// Fp2 = Fp[u]/(u^2 + 1), the field of BLS12-381 G2's coordinates, for host
// and device.
//
// Layout: gnark-crypto's E2, A0 then A1 (a0 + a1*u), each an fp.Element
// (6 little-endian 64-bit limbs, Montgomery form): 96 bytes, shared with Go
// buffers without conversion.
//
// Products: with one Montgomery reduction per output coordinate, the
// schoolbook form costs what Karatsuba does: c0 = a0*b0 - a1*b1 and
// c1 = a0*b1 + a1*b0 are each one two-product sum (fp_t::sum_wide<2>, one
// reduction), 4 products' rows + 2 reductions, against Karatsuba's 3
// products with a reduction each (3 + 3), and without Karatsuba's 2
// additions and 3 subtractions. The host's reference (and CUZK_PORTABLE_MUL)
// is Karatsuba over the portable product, a different algorithm, so the
// host checks compare two computations. Squaring is the complex one:
// (a0 + a1)(a0 - a1) and 2*a0*a1, two products.
#pragma once

#include "field.cuh"

struct fp2_t {
  fp_t a0, a1;

  HD static fp2_t zero() { return {fp_t::zero(), fp_t::zero()}; }
  HD static fp2_t one() { return {fp_t::one(), fp_t::zero()}; }
  HD bool is_zero() const {
    uint32_t a = 0;
#pragma unroll
    for (int i = 0; i < fp_t::N; i++) a |= a0.v[i] | a1.v[i];
    return a == 0;
  }
  HD bool operator==(const fp2_t& o) const { return a0 == o.a0 && a1 == o.a1; }
  HD bool operator!=(const fp2_t& o) const { return !(*this == o); }

  HD friend fp2_t operator+(const fp2_t& a, const fp2_t& b) { return {a.a0 + b.a0, a.a1 + b.a1}; }
  HD friend fp2_t operator-(const fp2_t& a, const fp2_t& b) { return {a.a0 - b.a0, a.a1 - b.a1}; }
  HD fp2_t neg() const { return {a0.neg(), a1.neg()}; }
  HD fp2_t dbl() const { return {a0.dbl(), a1.dbl()}; }
  HD fp2_t conj() const { return {a0, a1.neg()}; }

  HD friend fp2_t operator*(const fp2_t& a, const fp2_t& b) {
#if (defined(__CUDA_ARCH__) || defined(CUZK_HOST_WIDE)) && !defined(CUZK_PORTABLE_MUL)
    return mul_wide(a, b);
#else
    return mul_karatsuba(a, b);
#endif
  }
  // the device's product: two two-product sums (see the file comment)
  HD static fp2_t mul_wide(const fp2_t& a, const fp2_t& b) {
    const fp_t nb1 = b.a1.neg();
    const fp_t* x0[2] = {&a.a0, &a.a1};
    const fp_t* y0[2] = {&b.a0, &nb1};
    const fp_t* y1[2] = {&b.a1, &b.a0};
    return {fp_t::sum_wide<2>(x0, y0), fp_t::sum_wide<2>(x0, y1)};
  }
  // Karatsuba: v0 = a0*b0, v1 = a1*b1, c0 = v0 - v1, c1 = (a0+a1)(b0+b1) - v0 - v1
  HD static fp2_t mul_karatsuba(const fp2_t& a, const fp2_t& b) {
    const fp_t v0 = a.a0 * b.a0, v1 = a.a1 * b.a1;
    const fp_t s = (a.a0 + a.a1) * (b.a0 + b.a1);
    return {v0 - v1, s - v0 - v1};
  }
  // (a0 + a1)(a0 - a1) + 2 a0 a1 u
  HD fp2_t sqr() const {
    const fp_t m = a0 * a1;
    return {(a0 + a1) * (a0 - a1), m.dbl()};
  }
  HD fp2_t mul_fp(const fp_t& s) const { return {a0 * s, a1 * s}; }

  // a*b + c*d with one reduction per coordinate on the device (four-product
  // sums: fp_t::sum_wide<4> needs 5p < 2^384, which Fp's modulus has); on
  // the host two products and a sum.
  HD static fp2_t mul_add2(const fp2_t& a, const fp2_t& b, const fp2_t& c, const fp2_t& d) {
#if (defined(__CUDA_ARCH__) || defined(CUZK_HOST_WIDE)) && !defined(CUZK_PORTABLE_MUL)
    return mul_add2_wide(a, b, c, d);
#else
    return mul_karatsuba(a, b) + mul_karatsuba(c, d);
#endif
  }
  HD static fp2_t mul_add2_wide(const fp2_t& a, const fp2_t& b, const fp2_t& c, const fp2_t& d) {
    const fp_t nb1 = b.a1.neg(), nd1 = d.a1.neg();
    const fp_t* x[4] = {&a.a0, &a.a1, &c.a0, &c.a1};
    const fp_t* y0[4] = {&b.a0, &nb1, &d.a0, &nd1};
    const fp_t* y1[4] = {&b.a1, &b.a0, &d.a1, &d.a0};
    return {fp_t::sum_wide<4>(x, y0), fp_t::sum_wide<4>(x, y1)};
  }

  // 1/(a0 + a1 u) = (a0 - a1 u)/(a0^2 + a1^2); zero maps to zero.
  HD fp2_t inv() const {
    const fp_t t = (a0.sqr() + a1.sqr()).inv();
    return {a0 * t, (a1 * t).neg()};
  }
  HD fp2_t from_mont() const { return {a0.from_mont(), a1.from_mont()}; }
};
