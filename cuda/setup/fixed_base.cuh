// Kernels of the G1 fixed-base multiplication (cuzk_fixed_base_g1): a comb
// of FB_WINDOWS windows of FB_BITS bits over one base B,
//
//   table[w·FB_DIGITS + d − 1] = d·2^(FB_BITS·w)·B   (affine, d = 1..FB_DIGITS)
//   s·B = Σ_w table[w·FB_DIGITS + digit_w(s) − 1]    (digit 0 adds nothing)
//
// so a scalar costs at most 32 mixed additions and no doubling. The table
// (8160 points, 783 KB) stays in L2; within one window all threads of a
// wave read the same 255 entries (24 KB), mostly from L1.
//
// The additions never meet a doubling or an opposite point for a base of
// prime order r and a canonical scalar: before window w the accumulator is
// k·B with k < 2^(8w), the entry is d·2^(8w)·B, and k + d·2^(8w) is a prefix
// of the scalar's digits, below r. add_affine handles both cases anyway.
#pragma once

#include "../ec/g1.cuh"

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
HD g1_affine fb_table_entry(uint32_t j, const g1_affine& base) {
  const uint32_t w = j / FB_DIGITS, d = j % FB_DIGITS + 1;
  g1_xyzz bw = g1_xyzz::from_affine(base);
  for (uint32_t i = 0; i < FB_BITS * w; i++) bw = bw.dbl();
  g1_xyzz acc = g1_xyzz::inf();
  for (int b = FB_BITS - 1; b >= 0; b--) {
    acc = acc.dbl();
    if ((d >> b) & 1) acc.add(bw);
  }
  return acc.to_affine();
}

// The comb sum of one scalar given in canonical limbs (< r).
HD g1_xyzz fb_comb(const fr_t& k, const g1_affine* tab) {
  g1_xyzz acc = g1_xyzz::inf();
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
HD void fb_affine_batch(g1_affine* out, const g1_xyzz* p, uint64_t n, uint64_t t, uint64_t T) {
  if (t >= n) return;
  fp_t run = fp_t::one();
  uint64_t last = t;
  for (uint64_t i = t; i < n; i += T) {
    out[i].x = run;
    const g1_xyzz& q = p[i];
    if (!q.is_inf()) run = run * (q.ZZ * q.ZZZ);
    last = i;
  }
  fp_t inv = run.inv();
  for (uint64_t i = last;; i -= T) {
    const g1_xyzz q = p[i];
    g1_affine a;
    if (q.is_inf()) {
      a.x = fp_t::zero();
      a.y = fp_t::zero();
    } else {
      const fp_t zinv = inv * out[i].x;  // 1/(ZZ·ZZZ)
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

__global__ void fb_table(g1_affine* tab, g1_affine base) {
  const uint32_t j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j < FB_TABLE) tab[j] = fb_table_entry(j, base);
}

// One thread per scalar (Montgomery form in, XYZZ out).
__global__ void __launch_bounds__(128) fb_mul(g1_xyzz* out, const fr_t* __restrict__ scalars, uint64_t n,
                                              const g1_affine* __restrict__ tab) {
  const uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = fb_comb(ldfr(scalars + i).from_mont(), tab);
}

__global__ void __launch_bounds__(128) fb_affine(g1_affine* out, const g1_xyzz* __restrict__ p, uint64_t n) {
  fb_affine_batch(out, p, n, (uint64_t)blockIdx.x * blockDim.x + threadIdx.x, (uint64_t)gridDim.x * blockDim.x);
}
#endif
