// NTT over BLS12-381 Fr without bit-reversal passes.
//
// A transform of size 2^lgn runs as P passes of sub-transforms of size
// 2^t <= 1024 held in shared memory (the four-step decomposition applied
// recursively). A DIF pass takes each group of 2^t elements at stride 2^s
// (natural order), transforms it (output bit-reversed within the group) and
// multiplies output k by w_M^(lo*k), M = 2^(t+s), lo the group's offset below
// the stride. DIF passes run with s decreasing to 0: natural in, bit-reversed
// out. The DIT passes are their transposes, run in the reverse order:
// bit-reversed in, natural out.
#pragma once

#include "field.cuh"

struct pow_tab {  // base^e = c * lo[e & 0x3fff] * hi[e >> 14] for e < 2^28
  const fr_t* lo;
  const fr_t* hi;
};

__device__ __forceinline__ fr_t ldfr(const fr_t* p) {
  fr_t r;
  const uint4* q = reinterpret_cast<const uint4*>(p);
  uint4 a = __ldg(q), b = __ldg(q + 1);
  r.v[0] = a.x; r.v[1] = a.y; r.v[2] = a.z; r.v[3] = a.w;
  r.v[4] = b.x; r.v[5] = b.y; r.v[6] = b.z; r.v[7] = b.w;
  return r;
}

__device__ __forceinline__ fr_t tabpow(const pow_tab& t, uint32_t e) {
  return ldfr(t.lo + (e & 0x3fff)) * ldfr(t.hi + (e >> 14));
}

__device__ __forceinline__ uint32_t brev(uint32_t x, uint32_t bits) {
  return bits == 0 ? 0 : (__brev(x) >> (32 - bits));
}

// W: w_1024^k, k < 512 (for the direction). tw: powers of w_n.
template <bool DIF>
__global__ void __launch_bounds__(512) ntt_pass(fr_t* data, uint32_t lgn, uint32_t t, uint32_t s,
                                                const fr_t* __restrict__ W, pow_tab tw,
                                                pow_tab in_scale, int has_in, pow_tab out_scale,
                                                int has_out) {
  __shared__ fr_t sh[1024];
  const uint32_t N = 1u << t, half = N >> 1;
  const uint32_t G = 1024u >> t;
  const uint32_t tid = threadIdx.x;
  const uint32_t bt = tid & (half - 1);
  const uint32_t g = tid >> (t - 1);
  const uint64_t gid = (uint64_t)blockIdx.x * G + g;
  const bool valid = gid < ((1ull << lgn) >> t);
  const uint64_t lo = gid & ((1ull << s) - 1), hi = gid >> s;
  const uint64_t base = (hi << (t + s)) + lo;
  const uint32_t twsh = lgn - t - s;
  fr_t* S = sh + g * N;

#pragma unroll
  for (int r = 0; r < 2; r++) {
    uint32_t q = bt + r * half;
    uint64_t idx = base + ((uint64_t)q << s);
    fr_t x = valid ? data[idx] : fr_t::zero();
    if (DIF) {
      if (has_in) x = x * tabpow(in_scale, (uint32_t)idx);
    } else {
      if (has_in) x = x * tabpow(in_scale, brev((uint32_t)idx, lgn));
      if (s > 0) x = x * tabpow(tw, ((uint32_t)lo * brev(q, t)) << twsh);
    }
    S[q] = x;
  }
  __syncthreads();

  if (DIF) {
    for (uint32_t h = half; h >= 1; h >>= 1) {
      uint32_t m = bt & (h - 1);
      uint32_t j = ((bt - m) << 1) + m;
      fr_t w = ldfr(W + ((m * (half / h)) << (10 - t)));
      fr_t u = S[j], v = S[j + h];
      S[j] = u + v;
      S[j + h] = (u - v) * w;
      __syncthreads();
    }
  } else {
    for (uint32_t h = 1; h <= half; h <<= 1) {
      uint32_t m = bt & (h - 1);
      uint32_t j = ((bt - m) << 1) + m;
      fr_t w = ldfr(W + ((m * (half / h)) << (10 - t)));
      fr_t u = S[j], v = S[j + h] * w;
      S[j] = u + v;
      S[j + h] = u - v;
      __syncthreads();
    }
  }

#pragma unroll
  for (int r = 0; r < 2; r++) {
    uint32_t q = bt + r * half;
    uint64_t idx = base + ((uint64_t)q << s);
    fr_t x = S[q];
    if (DIF) {
      if (s > 0) x = x * tabpow(tw, ((uint32_t)lo * brev(q, t)) << twsh);
      if (has_out) x = x * tabpow(out_scale, brev((uint32_t)idx, lgn));
    } else {
      if (has_out) x = x * tabpow(out_scale, (uint32_t)idx);
    }
    if (valid) data[idx] = x;
  }
}

// a = (a*b - c) * z
__global__ void h_pointwise(fr_t* a, const fr_t* b, const fr_t* c, fr_t z, uint64_t n) {
  uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  a[i] = (a[i] * b[i] - c[i]) * z;
}

// out[i] = in[brev(i)] for i < n_out
__global__ void gather_brev(fr_t* out, const fr_t* in, uint32_t lgn, uint64_t n_out) {
  uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n_out) return;
  out[i] = in[brev((uint32_t)i, lgn)];
}
