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

#include "../ff/field.cuh"
#include "../util/device.cuh"
#include "pow_tab.cuh"

// Pass block shapes: THREADS threads running V virtual threads of 4
// elements each, so a block holds E = 4·THREADS·V elements: E/2^t groups of
// 2^t (t <= max_t), MINB blocks per SM (the shapes were chosen by measuring
// them all: docs/gpu-notes.md, v9 and v10).
template <uint32_t THREADS, uint32_t V, uint32_t MINB>
struct ntt_shape {
  static constexpr uint32_t threads = THREADS, v = V, min_blocks = MINB;
  static constexpr uint32_t elems = 4 * THREADS * V;
  static constexpr uint32_t max_t = elems >= 1024 ? 10 : 9;
};
typedef ntt_shape<128, 1, 5> ntt_narrow;  // one group of 2^9 (or two of 2^8 ...)
typedef ntt_shape<256, 1, 2> ntt_wide_t;  // one group of 2^10: where it saves a pass
// Passes with a stride (s > 0): adjacent groups are adjacent columns, and a
// block of several groups reads and writes whole row segments (4 groups of
// 2^9: 128 bytes) in one instruction, where one group per block would read
// 32 bytes per row at stride 2^s. The build knobs below select other
// 2048-element shapes for experiments.
#ifndef CUZK_NTT_BIG_T
#define CUZK_NTT_BIG_T 256
#endif
#ifndef CUZK_NTT_BIG_V
#define CUZK_NTT_BIG_V 2
#endif
#ifndef CUZK_NTT_BIG_MINB
#define CUZK_NTT_BIG_MINB 2
#endif
typedef ntt_shape<CUZK_NTT_BIG_T, CUZK_NTT_BIG_V, CUZK_NTT_BIG_MINB> ntt_big;

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


// One pass of shape SH: groups of 2^t elements (2 <= t <= max_t) at stride
// 2^s, E/2^t of them per block in shared memory (dynamic: 32·E bytes). The
// loads and stores walk the block's elements row by row across its groups
// (adjacent columns), so a warp touches whole row segments. The butterflies:
// each virtual thread owns 4 elements; the stages run two at a time on the
// four elements they connect (radix 4: one shared-memory round trip per two
// stages), and a stage whose twiddles are all 1 skips its products.
// W: w_1024^k, k < 512 (for the direction). tw: powers of w_n; Wd: see twiddle.
template <bool DIF, class SH>
__global__ void __launch_bounds__(SH::threads, SH::min_blocks)
    ntt_pass(fr_t* data, uint32_t lgn, uint32_t t, uint32_t s, const fr_t* __restrict__ W, pow_tab tw,
             const fr_t* __restrict__ Wd, pow_tab in_scale, int has_in, pow_tab out_scale, int has_out) {
  constexpr uint32_t E = SH::elems, V = SH::v, TH = SH::threads, lgE = E == 512 ? 9 : E == 1024 ? 10 : 11;
  extern __shared__ uint4 ntt_smem[];
  uint4* const plane_lo = ntt_smem;
  uint4* const plane_hi = ntt_smem + E;
  const uint32_t N = 1u << t, Q = N >> 2;
  const uint32_t lgG = lgE - t;  // groups per block: 2^lgG
  const uint64_t ngroups = (1ull << lgn) >> t;
  const uint32_t twsh = lgn - t - s;
  auto planes = [&](uint32_t g) { return sh_planes{plane_lo + g * N, plane_hi + g * N}; };
  // element slot L of the block: group g = L mod G (its offset lo below the
  // stride), row q = L / G, at data[idx]
  struct slot {
    uint64_t idx, lo;
    uint32_t g, q;
    bool valid;
  };
  auto slot_at = [&](uint32_t L) {
    slot r;
    r.g = L & ((1u << lgG) - 1);
    r.q = L >> lgG;
    const uint64_t gid = ((uint64_t)blockIdx.x << lgG) + r.g;
    r.valid = gid < ngroups;
    r.lo = gid & ((1ull << s) - 1);
    r.idx = ((gid >> s) << (t + s)) + r.lo + ((uint64_t)r.q << s);
    return r;
  };

  // four slots at a time: their loads are all in flight before the
  // products that scale them (the DIT's twiddles) wait on them
#pragma unroll
  for (uint32_t k0 = 0; k0 < 4 * V; k0 += 4) {
    fr_t v[4];
#pragma unroll
    for (uint32_t k = 0; k < 4; k++) {
      const slot sl = slot_at(threadIdx.x + (k0 + k) * TH);
      v[k] = sl.valid ? data[sl.idx] : fr_t::zero();
    }
#pragma unroll
    for (uint32_t k = 0; k < 4; k++) {
      const slot sl = slot_at(threadIdx.x + (k0 + k) * TH);
      if (DIF) {
        if (has_in) v[k] = v[k] * tabpow(in_scale, (uint32_t)sl.idx);
      } else {
        if (has_in) v[k] = v[k] * tabpow(in_scale, brev((uint32_t)sl.idx, lgn));
        if (s > 0) v[k] = v[k] * twiddle(tw, Wd, (uint32_t)sl.lo * brev(sl.q, t), s + t, twsh);
      }
      planes(sl.g).put(sl.q, v[k]);
    }
  }
  __syncthreads();

  // virtual thread vt = threadIdx.x + u·TH: offset x in group g
  auto vx = [&](uint32_t u) { return (threadIdx.x + u * TH) & (Q - 1); };
  auto vS = [&](uint32_t u) { return planes((threadIdx.x + u * TH) >> (t - 2)); };
  if (DIF) {
    uint32_t h = N >> 1;
    for (; h >= 2; h >>= 2) {  // stages h and h/2 on {j, j+h/2, j+h, j+3h/2}
      const uint32_t lh = __ffs(h) - 1, h2 = h >> 1;
#pragma unroll
      for (uint32_t u = 0; u < V; u++) {
        const uint32_t x = vx(u);
        const sh_planes S = vS(u);
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
      }
      __syncthreads();
    }
    if (h == 1) {  // odd t: the last stage, twiddles 1
#pragma unroll
      for (uint32_t u = 0; u < V; u++) vS(u).stage_h1(vx(u));
      __syncthreads();
    }
  } else {
    uint32_t h1 = 1;
    if (t & 1) {  // odd t: the first stage, twiddles 1
#pragma unroll
      for (uint32_t u = 0; u < V; u++) vS(u).stage_h1(vx(u));
      __syncthreads();
      h1 = 2;
    }
    for (; h1 < N; h1 <<= 2) {  // stages h1 and 2*h1 on {j, j+h1, j+2h1, j+3h1}
      const uint32_t l1 = __ffs(h1) - 1;
#pragma unroll
      for (uint32_t u = 0; u < V; u++) {
        const uint32_t x = vx(u);
        const sh_planes S = vS(u);
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
      }
      __syncthreads();
    }
  }

#pragma unroll
  for (uint32_t k = 0; k < 4 * V; k++) {
    const slot sl = slot_at(threadIdx.x + k * TH);
    fr_t v = planes(sl.g).get(sl.q);
    if (DIF) {
      if (s > 0) v = v * twiddle(tw, Wd, (uint32_t)sl.lo * brev(sl.q, t), s + t, twsh);
      if (has_out) v = v * tabpow(out_scale, brev((uint32_t)sl.idx, lgn));
    } else {
      if (has_out) v = v * tabpow(out_scale, (uint32_t)sl.idx);
    }
    if (sl.valid) data[sl.idx] = v;
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

// a[i] = c[i] - a[i]
__global__ void sub_from(fr_t* a, const fr_t* c, uint64_t n) {
  uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  a[i] = c[i] - a[i];
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
