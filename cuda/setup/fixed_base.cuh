// Kernels of the fixed-base multiplication (cuzk_fixed_base_g1, _g2): a
// comb of FB_WINDOWS windows of FB_BITS bits over one base B, generic over
// the coordinate field F (fp_t for G1, fp2_t for G2),
//
//   table[w·FB_DIGITS + d − 1] = d·2^(FB_BITS·w)·B   (affine, d = 1..FB_DIGITS)
//   s·B = Σ_w table[w·FB_DIGITS + digit_w(s) − 1]    (digit 0 adds nothing)
//
// so a scalar costs at most 32 mixed additions and no doubling. The table
// (8160 points: 783 KB for G1, 1.57 MB for G2) stays in L2; within one
// window all threads of a wave read the same 255 entries, mostly from L1.
//
// The additions never meet a doubling or an opposite point for a base of
// prime order r and a canonical scalar: before window w the accumulator is
// k·B with k < 2^(8w), the entry is d·2^(8w)·B, and k + d·2^(8w) is a prefix
// of the scalar's digits, below r. add_affine handles both cases anyway.
#pragma once

#include "../ec/g1.cuh"
#include "../ec/g2.cuh"

#define FB_BITS 8
#define FB_WINDOWS (256 / FB_BITS)
#define FB_DIGITS ((1 << FB_BITS) - 1)
#define FB_TABLE (FB_WINDOWS * FB_DIGITS)

// The per-thread bodies are host-and-device functions, so that the host
// check (cuda/test/fixed_base_host.cc, make cuda-host-check) runs the same
// code with the portable field arithmetic; the kernels below wrap them.

// Entry j: 2^(8w)·B by doublings, times d by double-and-add, to affine with
// its own inversion (8160 of them: the table is built once per call, a few
// milliseconds).
template <class F>
HD affine_t<F> fb_table_entry(uint32_t j, const affine_t<F>& base) {
  const uint32_t w = j / FB_DIGITS, d = j % FB_DIGITS + 1;
  xyzz_t<F> bw = xyzz_t<F>::from_affine(base);
  for (uint32_t i = 0; i < FB_BITS * w; i++) bw = bw.dbl();
  xyzz_t<F> acc = xyzz_t<F>::inf();
  for (int b = FB_BITS - 1; b >= 0; b--) {
    acc = acc.dbl();
    if ((d >> b) & 1) acc.add(bw);
  }
  return acc.to_affine();
}

// The comb sum of one scalar given in canonical limbs (< r).
template <class F>
HD xyzz_t<F> fb_comb(const fr_t& k, const affine_t<F>* tab) {
  xyzz_t<F> acc = xyzz_t<F>::inf();
#pragma unroll 1
  for (int w = 0; w < FB_WINDOWS; w++) {
    const uint32_t d = (k.v[w / 4] >> (8 * (w % 4))) & 0xff;
    if (d) acc.add_affine(tab[w * FB_DIGITS + d - 1]);
  }
  return acc;
}

// XYZZ to affine with one inversion for thread t of T (Montgomery's trick
// over its points i = t, t + T, t + 2T, … < n; adjacent threads take
// adjacent points): forward, the prefix products of ZZ·ZZZ go into out[i].x;
// backward, each point takes its inverse from them. The identity becomes
// (0, 0) and stays out of the product.
template <class F>
HD void fb_affine_batch(affine_t<F>* out, const xyzz_t<F>* p, uint64_t n, uint64_t t, uint64_t T) {
  if (t >= n) return;
  F run = F::one();
  uint64_t last = t;
  for (uint64_t i = t; i < n; i += T) {
    out[i].x = run;
    const xyzz_t<F>& q = p[i];
    if (!q.is_inf()) run = run * (q.ZZ * q.ZZZ);
    last = i;
  }
  F inv = run.inv();
  for (uint64_t i = last;; i -= T) {
    const xyzz_t<F> q = p[i];
    affine_t<F> a;
    if (q.is_inf()) {
      a.x = F::zero();
      a.y = F::zero();
    } else {
      const F zinv = inv * out[i].x;  // 1/(ZZ·ZZZ)
      inv = inv * (q.ZZ * q.ZZZ);
      a.x = q.X * (zinv * q.ZZZ);
      a.y = q.Y * (zinv * q.ZZ);
    }
    out[i] = a;
    if (i < T) break;
  }
}

#if defined(__CUDACC__)
#include "../util/device.cuh"

template <class F>
__global__ void fb_table(affine_t<F>* tab, affine_t<F> base) {
  const uint32_t j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j < FB_TABLE) tab[j] = fb_table_entry(j, base);
}

// One thread per scalar (Montgomery form in, XYZZ out).
template <class F>
__global__ void __launch_bounds__(128) fb_mul(xyzz_t<F>* out, const fr_t* __restrict__ scalars, uint64_t n,
                                              const affine_t<F>* __restrict__ tab) {
  const uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = fb_comb(ldfr(scalars + i).from_mont(), tab);
}

template <class F>
__global__ void __launch_bounds__(128) fb_affine(affine_t<F>* out, const xyzz_t<F>* __restrict__ p, uint64_t n) {
  fb_affine_batch(out, p, n, (uint64_t)blockIdx.x * blockDim.x + threadIdx.x, (uint64_t)gridDim.x * blockDim.x);
}
#endif
