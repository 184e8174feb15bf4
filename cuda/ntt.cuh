// NTT over BLS12-381 Fr without bit-reversal passes.
//
// A transform of size 2^lgn runs as P passes of sub-transforms of size
// 2^t <= 1024 (2 <= t unless lgn = 1) held in shared memory (the four-step decomposition applied
// recursively). A DIF pass takes each group of 2^t elements at stride 2^s
// (natural order), transforms it (output bit-reversed within the group) and
// multiplies output k by w_M^(lo*k), M = 2^(t+s), lo the group's offset below
// the stride. DIF passes run with s decreasing to 0: natural in, bit-reversed
// out. The DIT passes are their transposes, run in the reverse order:
// bit-reversed in, natural out.
#pragma once

#include "field.cuh"

// Pass blocks come in two shapes: 256 threads (groups up to 2^10, 2 blocks
// per SM) and 128 threads (groups up to 2^9, compiled for 5 blocks per SM:
// 96 registers, no spills). Measured at 2^27 (H200): 128 × 5 took 55.3 ms
// per transform, 256 × 2 62.7, 128 × 4 56.8, 256 × 3 (spills) 59.4. The
// driver takes 128 unless 256 needs fewer passes (2^19, 2^20).
template <uint32_t THREADS>
struct ntt_shape {
  static constexpr uint32_t elems = 4 * THREADS;
  static constexpr uint32_t max_t = THREADS == 256 ? 10 : 9;
  static constexpr uint32_t min_blocks = THREADS == 256 ? 2 : 5;
};

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

// The inter-pass twiddle w_{2^(s+t)}^e: from Wd (w_{2^18}^k, k < 2^18) in one
// load when s + t <= 18 (the host passes Wd only then), else from the
// two-level table of w_n (one product more).
__device__ __forceinline__ fr_t twiddle(const pow_tab& tw, const fr_t* Wd, uint32_t e, uint32_t st, uint32_t twsh) {
  return Wd ? ldfr(Wd + (e << (18 - st))) : tabpow(tw, e << twsh);
}

// Shared-memory elements are split in two planes of 16-byte halves, so that
// consecutive elements fall in distinct banks.
struct sh_planes {
  uint4* lo;
  uint4* hi;
  __device__ __forceinline__ fr_t get(uint32_t k) const {
    uint4 a = lo[k], b = hi[k];
    fr_t r;
    r.v[0] = a.x; r.v[1] = a.y; r.v[2] = a.z; r.v[3] = a.w;
    r.v[4] = b.x; r.v[5] = b.y; r.v[6] = b.z; r.v[7] = b.w;
    return r;
  }
  __device__ __forceinline__ void put(uint32_t k, const fr_t& x) const {
    lo[k] = make_uint4(x.v[0], x.v[1], x.v[2], x.v[3]);
    hi[k] = make_uint4(x.v[4], x.v[5], x.v[6], x.v[7]);
  }
  // The stage of stride 1 (twiddles 1, DIF and DIT alike) on elements 4x..4x+3.
  __device__ __forceinline__ void stage_h1(uint32_t x) const {
    const uint32_t j = x << 2;
    fr_t u0 = get(j), u1 = get(j + 1), u2 = get(j + 2), u3 = get(j + 3);
    put(j, u0 + u1);
    put(j + 1, u0 - u1);
    put(j + 2, u2 + u3);
    put(j + 3, u2 - u3);
  }
};


// One pass: THREADS threads, 4·THREADS/2^t groups of 2^t elements
// (2 <= t <= max_t), 4 elements per thread; the butterfly stages run two at a time on the four
// elements they connect (radix 4: one shared-memory round trip per two
// stages), and a stage whose twiddles are all 1 skips its products.
// W: w_1024^k, k < 512 (for the direction). tw: powers of w_n; Wd: see twiddle.
template <bool DIF, uint32_t THREADS>
__global__ void __launch_bounds__(THREADS, ntt_shape<THREADS>::min_blocks) ntt_pass(fr_t* data, uint32_t lgn, uint32_t t, uint32_t s,
                                                   const fr_t* __restrict__ W, pow_tab tw,
                                                   const fr_t* __restrict__ Wd, pow_tab in_scale,
                                                   int has_in, pow_tab out_scale, int has_out) {
  constexpr uint32_t E = ntt_shape<THREADS>::elems;
  __shared__ uint4 plane_lo[E], plane_hi[E];
  const uint32_t N = 1u << t, Q = N >> 2;
  const uint32_t G = E >> t;
  const uint32_t tid = threadIdx.x;
  const uint32_t x = tid & (Q - 1);
  const uint32_t g = tid >> (t - 2);
  const uint64_t gid = (uint64_t)blockIdx.x * G + g;
  const bool valid = gid < ((1ull << lgn) >> t);
  const uint64_t lo = gid & ((1ull << s) - 1), hi = gid >> s;
  const uint64_t base = (hi << (t + s)) + lo;
  const uint32_t twsh = lgn - t - s;
  const sh_planes S = {plane_lo + g * N, plane_hi + g * N};

#pragma unroll
  for (int r = 0; r < 4; r++) {
    uint32_t q = x + r * Q;
    uint64_t idx = base + ((uint64_t)q << s);
    fr_t v = valid ? data[idx] : fr_t::zero();
    if (DIF) {
      if (has_in) v = v * tabpow(in_scale, (uint32_t)idx);
    } else {
      if (has_in) v = v * tabpow(in_scale, brev((uint32_t)idx, lgn));
      if (s > 0) v = v * twiddle(tw, Wd, (uint32_t)lo * brev(q, t), s + t, twsh);
    }
    S.put(q, v);
  }
  __syncthreads();

  if (DIF) {
    uint32_t h = N >> 1;
    for (; h >= 2; h >>= 2) {  // stages h and h/2 on {j, j+h/2, j+h, j+3h/2}
      const uint32_t lh = __ffs(h) - 1, h2 = h >> 1;
      const uint32_t m = x & (h2 - 1);
      const uint32_t j = m | ((x >> (lh - 1)) << (lh + 1));
      const uint32_t e = (m << 9) >> lh;
      fr_t u0 = S.get(j), u1 = S.get(j + h2), u2 = S.get(j + h), u3 = S.get(j + h + h2);
      fr_t x0 = u0 + u2, x2 = (u0 - u2) * ldfr(W + e);
      fr_t x1 = u1 + u3, x3 = (u1 - u3) * ldfr(W + e + 256);
      fr_t y1 = x0 - x1, y3 = x2 - x3;
      if (h2 > 1) {
        fr_t wc = ldfr(W + 2 * e);
        y1 = y1 * wc;
        y3 = y3 * wc;
      }
      S.put(j, x0 + x1);
      S.put(j + h2, y1);
      S.put(j + h, x2 + x3);
      S.put(j + h + h2, y3);
      __syncthreads();
    }
    if (h == 1) {  // odd t: the last stage, twiddles 1
      S.stage_h1(x);
      __syncthreads();
    }
  } else {
    uint32_t h1 = 1;
    if (t & 1) {  // odd t: the first stage, twiddles 1
      S.stage_h1(x);
      __syncthreads();
      h1 = 2;
    }
    for (; h1 < N; h1 <<= 2) {  // stages h1 and 2*h1 on {j, j+h1, j+2h1, j+3h1}
      const uint32_t l1 = __ffs(h1) - 1;
      const uint32_t m = x & (h1 - 1);
      const uint32_t j = m | ((x >> l1) << (l1 + 2));
      fr_t u0 = S.get(j), u1 = S.get(j + h1), u2 = S.get(j + 2 * h1), u3 = S.get(j + 3 * h1);
      if (h1 > 1) {
        fr_t w = ldfr(W + ((m << 9) >> l1));
        u1 = u1 * w;
        u3 = u3 * w;
      }
      fr_t x0 = u0 + u1, x1 = u0 - u1, x2 = u2 + u3, x3 = u2 - u3;
      const uint32_t e = (m << 9) >> (l1 + 1);
      x2 = x2 * ldfr(W + e);
      x3 = x3 * ldfr(W + e + 256);
      S.put(j, x0 + x2);
      S.put(j + 2 * h1, x0 - x2);
      S.put(j + h1, x1 + x3);
      S.put(j + 3 * h1, x1 - x3);
      __syncthreads();
    }
  }

#pragma unroll
  for (int r = 0; r < 4; r++) {
    uint32_t q = x + r * Q;
    uint64_t idx = base + ((uint64_t)q << s);
    fr_t v = S.get(q);
    if (DIF) {
      if (s > 0) v = v * twiddle(tw, Wd, (uint32_t)lo * brev(q, t), s + t, twsh);
      if (has_out) v = v * tabpow(out_scale, brev((uint32_t)idx, lgn));
    } else {
      if (has_out) v = v * tabpow(out_scale, (uint32_t)idx);
    }
    if (valid) data[idx] = v;
  }
}

// The size-2 transform (lgn = 1), forward and inverse alike (w_2 = -1).
__global__ void ntt_size2(fr_t* d, pow_tab in_scale, int has_in, pow_tab out_scale, int has_out) {
  if (threadIdx.x != 0 || blockIdx.x != 0) return;
  fr_t a = d[0], b = d[1];
  if (has_in) {
    a = a * tabpow(in_scale, 0);
    b = b * tabpow(in_scale, 1);
  }
  fr_t x = a + b, y = a - b;
  if (has_out) {
    x = x * tabpow(out_scale, 0);
    y = y * tabpow(out_scale, 1);
  }
  d[0] = x;
  d[1] = y;
}

// a = (a*b - c) * z
__global__ void h_pointwise(fr_t* a, const fr_t* b, const fr_t* c, fr_t z, uint64_t n) {
  uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  a[i] = (a[i] * b[i] - c[i]) * z;
}

// c[i] *= b[i]
__global__ void mul_inplace(fr_t* c, const fr_t* b, uint64_t n) {
  uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  c[i] = c[i] * b[i];
}

// out[i] = in[brev(i)] for i < n_out
__global__ void gather_brev(fr_t* out, const fr_t* in, uint32_t lgn, uint64_t n_out) {
  uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n_out) return;
  out[i] = in[brev((uint32_t)i, lgn)];
}
