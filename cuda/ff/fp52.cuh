// Fp products on the FP64 pipe (an experiment, not in the default library): the
// Montgomery product in 8 limbs of 52 bits held in doubles, R = 2^416.
//
// Why: the MSM's bucket accumulation is bound by the integer multiply pipe
// (its 32-bit IMAD.WIDE products keep it 80.8 % busy, docs/gpu-notes.md),
// while the FP64 pipe, which on Hopper issues as many fused multiply-adds
// a clock as the integer pipe does 32-bit products, stands idle. A double
// FMA rounded toward zero splits a product of two 52-bit integers exactly:
//   h = fma_rz(a, b, 2^104)                = 2^104 + floor(ab / 2^52) · 2^52
//   l = fma_rz(a, b, (2^104 + 2^52) - h)   = 2^52 + (ab mod 2^52)
// (the subtraction is exact: both are multiples of 2^52 below 2^105), and
// the two halves are the low bits of h's and l's encodings (their
// exponents fixed). Each limb product is 2 FMAs and a subtraction on the
// FP64 pipe; the columns add up in 64-bit integers. cuda/test/fp52_bench.cu
// checks it against fp_t on the host and on the device and times both.
#pragma once

#include <stdint.h>
#include <string.h>

#if !defined(__CUDACC__)
#include <cmath>
#endif

#ifndef HD
#if defined(__CUDACC__)
#define HD __host__ __device__ __forceinline__
#else
#define HD inline
#endif
#endif

struct fp52_t {
  static constexpr int N = 8;
  double l[N];  // each an integer in [0, 2^52); the value below 2p

  static constexpr uint64_t PINV = 0x3fffcfffcfffdull;  // -p^-1 mod 2^52
  static constexpr uint64_t M52 = (1ull << 52) - 1;

  // A limb's integer value and back (x in [0, 2^52)), exact and without
  // the conversion unit on the device: 2^52 + x has x as its low bits.
  HD static int64_t I(double d) {
#if defined(__CUDA_ARCH__)
    return __double_as_longlong(d + 0x1p52) & (int64_t)M52;
#else
    return (int64_t)d;
#endif
  }
  HD static double D(int64_t x) {
#if defined(__CUDA_ARCH__)
    return __longlong_as_double(x | 0x4330000000000000ll) - 0x1p52;
#else
    return (double)x;
#endif
  }
  // p's limbs, as integers and as doubles
  HD static int64_t modi(int i) {
    const int64_t m[N] = {0xeffffffffaaabll, 0xfeb153ffffb9fll, 0x6b0f6241eabffll, 0x12bf6730d2a0fll,
                          0x764774b84f385ll, 0x1ba7b6434bacdll, 0x1ea397fe69a4bll, 0x1a011ll};
    return m[i];
  }
  HD static double mod(int i) { return (double)modi(i); }

  // Carries t's limbs into 52 bits but the top one (the value nonnegative;
  // limbs may be negative or up to 2^62 on entry).
  HD static void carry(int64_t* t) {
    #pragma unroll
    for (int i = 0; i < N - 1; i++) {
      t[i + 1] += t[i] >> 52;
      t[i] &= (int64_t)M52;
    }
  }

  // Limb sums carried into 52-bit limbs (the value nonnegative and below
  // 2^416; limbs may be negative or up to 2^62 on entry).
  HD static fp52_t norm(int64_t* t) {
    carry(t);
    return of(t);
  }
  // a + k·p − b for b ≤ k·p (k small): congruent to a − b, nonnegative.
  HD static fp52_t sub(const fp52_t& a, const fp52_t& b, int k) {
    int64_t t[N];
    #pragma unroll
    for (int i = 0; i < N; i++) t[i] = I(a.l[i]) - I(b.l[i]) + k * modi(i);
    return norm(t);
  }
  // a + k·p − b − 2c for b + 2c ≤ k·p.
  HD static fp52_t sub2(const fp52_t& a, const fp52_t& b, const fp52_t& c, int k) {
    int64_t t[N];
    #pragma unroll
    for (int i = 0; i < N; i++) t[i] = I(a.l[i]) - I(b.l[i]) - 2 * I(c.l[i]) + k * modi(i);
    return norm(t);
  }
  // Whether the value (any below 2^16·p) is a multiple of p: the nearest
  // multiple q·p, from the top limbs, subtracted exactly.
  HD bool is_zero() const {
    const double top = l[N - 1] * 0x1p52 + l[N - 2];  // value / 2^312, less below 1
    // nearest (floor of +0.5: the host check runs with rounding toward zero)
    const double q = floor(top * (1.0 / (0x1a011 * 0x1p52 + 0x1ea397fe69a4b + 0.5)) + 0.5);
    const int64_t qi = (int64_t)q;
    int64_t t[N];
    #pragma unroll
    for (int i = 0; i < N; i++) t[i] = I(l[i]) - qi * modi(i);
    carry(t);
    int64_t any = 0;
    #pragma unroll
    for (int i = 0; i < N; i++) any |= t[i];
    return any == 0;
  }
  // The value below 2p made below p.
  HD fp52_t reduce_once() const {
    int64_t t[N];
    #pragma unroll
    for (int i = 0; i < N; i++) t[i] = I(l[i]) - modi(i);
    carry(t);
    return t[N - 1] < 0 ? *this : of(t);
  }
  HD static fp52_t zero() {
    fp52_t r;
    #pragma unroll
    for (int i = 0; i < N; i++) r.l[i] = 0;
    return r;
  }
  HD static fp52_t of(const int64_t* v) {
    fp52_t r;
    #pragma unroll
    for (int i = 0; i < N; i++) r.l[i] = D(v[i]);
    return r;
  }

  // a·b as hi·2^52 + lo (a, b integers below 2^52; the host rounds toward
  // zero only where the caller set FE_TOWARDZERO).
  HD static void mul52(double a, double b, int64_t& hi, int64_t& lo) {
    const double c104 = 0x1p104, c = 0x1p104 + 0x1p52;
#if defined(__CUDA_ARCH__)
    const double h = __fma_rz(a, b, c104);
    const double l = __fma_rz(a, b, c - h);
    hi = __double_as_longlong(h) - 0x4670000000000000ll;
    lo = __double_as_longlong(l) - 0x4330000000000000ll;
#else
    const double h = std::fma(a, b, c104);
    const double l = std::fma(a, b, c - h);
    int64_t hb, lb;
    memcpy(&hb, &h, 8);
    memcpy(&lb, &l, 8);
    hi = hb - 0x4670000000000000ll;
    lo = lb - 0x4330000000000000ll;
#endif
  }

  // a·b·2^-416 mod p, below 2p. The inputs need not be below 2p: the
  // result is below (ab/p/2^416 + 1)·p, so below 2p for a·b < 2^416·p
  // (e.g. both below 2^17·p), which the lazy sums of xyzz52.cuh use.
  HD static fp52_t mul(const fp52_t& a, const fp52_t& b) {
    const fp52_t* x[1] = {&a};
    const fp52_t* y[1] = {&b};
    return sum<1>(x, y);
  }
  // (a·b + c·d)·2^-416 mod p with one reduction, below 2p while
  // a·b + c·d < 2^416·p.
  HD static fp52_t mul_add2(const fp52_t& a, const fp52_t& b, const fp52_t& c, const fp52_t& d) {
    const fp52_t* x[2] = {&a, &c};
    const fp52_t* y[2] = {&b, &d};
    return sum<2>(x, y);
  }

  template <int K>
  HD static fp52_t sum(const fp52_t* const* x, const fp52_t* const* y) {
    int64_t t[2 * N + 1];
    #pragma unroll
    for (int k = 0; k <= 2 * N; k++) t[k] = 0;
    #pragma unroll
    for (int q = 0; q < K; q++)
      #pragma unroll
      for (int i = 0; i < N; i++)
        #pragma unroll
        for (int j = 0; j < N; j++) {
          int64_t hi, lo;
          mul52(x[q]->l[i], y[q]->l[j], hi, lo);
          t[i + j] += lo;
          t[i + j + 1] += hi;
        }
    return redc(t);
  }

  // The square with each cross product a_i·a_j (i < j) made once and its
  // column sums doubled: 36 limb products instead of 64 before the
  // reduction.
  HD fp52_t sqr() const {
    int64_t t[2 * N + 1];
    #pragma unroll
    for (int k = 0; k <= 2 * N; k++) t[k] = 0;
    #pragma unroll
    for (int i = 0; i < N; i++)
      #pragma unroll
      for (int j = i + 1; j < N; j++) {
        int64_t hi, lo;
        mul52(l[i], l[j], hi, lo);
        t[i + j] += lo;
        t[i + j + 1] += hi;
      }
    #pragma unroll
    for (int k = 0; k < 2 * N; k++) t[k] += t[k];
    #pragma unroll
    for (int i = 0; i < N; i++) {
      int64_t hi, lo;
      mul52(l[i], l[i], hi, lo);
      t[2 * i] += lo;
      t[2 * i + 1] += hi;
    }
    return redc(t);
  }

  // Montgomery reduction of the columns t[0..2N] (each below 2^62): the
  // value·2^-416 mod p in 52-bit limbs.
  HD static fp52_t redc(int64_t* t) {
    #pragma unroll
    for (int i = 0; i < N; i++) {
      t[i + 1] += t[i] >> 52;
      t[i] &= (int64_t)M52;
      int64_t hi, m;
      mul52(D(t[i]), D((int64_t)PINV), hi, m);  // m = t[i]·PINV mod 2^52
      #pragma unroll
      for (int j = 0; j < N; j++) {
        int64_t h2, l2;
        mul52(D(m), mod(j), h2, l2);
        t[i + j] += l2;
        t[i + j + 1] += h2;
      }
      t[i + 1] += t[i] >> 52;  // t[i] is now a multiple of 2^52
    }
    fp52_t r;
    #pragma unroll
    for (int k = N; k < 2 * N; k++) {
      t[k + 1] += t[k] >> 52;
      r.l[k - N] = D(t[k] & (int64_t)M52);
    }
    return r;
  }

  // From 12 32-bit words (any value below 2^384) and back (a value below
  // 2^384): 52-bit fields cut from and placed into the words.
  HD static fp52_t from_words(const uint32_t* w) {
    fp52_t r;
#pragma unroll
    for (int i = 0; i < N; i++) {
      const int s = 52 * i, k = s >> 5, o = s & 31;
      uint64_t lo = w[k];
      if (k + 1 < 12) lo |= (uint64_t)w[k + 1] << 32;
      uint64_t v = lo >> o;
      if (o > 12 && k + 2 < 12) v |= (uint64_t)w[k + 2] << (64 - o);
      r.l[i] = D((int64_t)(v & M52));
    }
    return r;
  }
  HD void to_words(uint32_t* w) const {
    uint32_t x[15];
#pragma unroll
    for (int k = 0; k < 15; k++) x[k] = 0;
#pragma unroll
    for (int i = 0; i < N; i++) {
      const uint64_t v = (uint64_t)I(l[i]);
      const int s = 52 * i, k = s >> 5, o = s & 31;
      x[k] |= (uint32_t)(v << o);
      x[k + 1] |= (uint32_t)(v >> (32 - o));
      if (o > 12) x[k + 2] |= (uint32_t)(v >> (64 - o));
    }
#pragma unroll
    for (int k = 0; k < 12; k++) w[k] = x[k];
  }
};
