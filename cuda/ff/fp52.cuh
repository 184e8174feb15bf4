// Fp products on the FP64 pipe (an experiment, not used by the library): the
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

  HD static double mod(int i) {
    const double m[N] = {(double)0xeffffffffaaabull, (double)0xfeb153ffffb9full, (double)0x6b0f6241eabffull,
                         (double)0x12bf6730d2a0full, (double)0x764774b84f385ull, (double)0x1ba7b6434bacdull,
                         (double)0x1ea397fe69a4bull, (double)0x1a011ull};
    return m[i];
  }
  static constexpr uint64_t PINV = 0x3fffcfffcfffdull;  // -p^-1 mod 2^52
  static constexpr uint64_t M52 = (1ull << 52) - 1;

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

  // a·b·2^-416 mod p, below 2p (a, b below 2p).
  HD static fp52_t mul(const fp52_t& a, const fp52_t& b) {
    int64_t t[2 * N + 1];
    for (int k = 0; k <= 2 * N; k++) t[k] = 0;
    for (int i = 0; i < N; i++)
      for (int j = 0; j < N; j++) {
        int64_t hi, lo;
        mul52(a.l[i], b.l[j], hi, lo);
        t[i + j] += lo;
        t[i + j + 1] += hi;
      }
    for (int i = 0; i < N; i++) {
      t[i + 1] += t[i] >> 52;
      t[i] &= (int64_t)M52;
      int64_t hi, m;
      mul52((double)t[i], (double)PINV, hi, m);  // m = t[i]·PINV mod 2^52
      for (int j = 0; j < N; j++) {
        int64_t h2, l2;
        mul52((double)m, mod(j), h2, l2);
        t[i + j] += l2;
        t[i + j + 1] += h2;
      }
      t[i + 1] += t[i] >> 52;  // t[i] is now a multiple of 2^52
    }
    fp52_t r;
    for (int k = N; k < 2 * N; k++) {
      t[k + 1] += t[k] >> 52;
      r.l[k - N] = (double)(t[k] & (int64_t)M52);
    }
    return r;
  }

  // From 12 32-bit words (any value below 2^381 · 2) and back.
  HD static fp52_t from_words(const uint32_t* w) {
    fp52_t r;
    for (int i = 0; i < N; i++) {
      uint64_t v = 0;
      for (int b = 0; b < 52; b++) {
        const int bit = 52 * i + b;
        if (bit < 384 && ((w[bit >> 5] >> (bit & 31)) & 1)) v |= 1ull << b;
      }
      r.l[i] = (double)v;
    }
    return r;
  }
  HD void to_words(uint32_t* w) const {
    for (int k = 0; k < 12; k++) w[k] = 0;
    for (int i = 0; i < N; i++) {
      const uint64_t v = (uint64_t)l[i];
      for (int b = 0; b < 52; b++) {
        const int bit = 52 * i + b;
        if (bit < 384 && ((v >> b) & 1)) w[bit >> 5] |= 1u << (bit & 31);
      }
    }
  }
};
