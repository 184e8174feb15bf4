// Kernels of the streamed MSMs (stream.cu): the chained sum's start and
// folds, the tail indices of a chunk rebased to it, chunk boundaries in a
// device tail, points read from the parameter file converted to the
// device's layout.
#pragma once

#include "../ec/g1.cuh"
#include "../ec/g2.cuh"

template <class X>
__global__ void stream_set_inf(X* p) {
  if (threadIdx.x == 0 && blockIdx.x == 0) *p = X::inf();
}

// acc += b
template <class X>
__global__ void stream_fold(X* acc, const X* b) {
  if (threadIdx.x == 0 && blockIdx.x == 0) acc->add(*b);
}

// dst[i] = src[i] - lo for the n tail entries of the chunk [lo, lo + len)
// (dst may be src); an index outside it sets *bad and becomes 0, so that
// nothing is read outside the chunk.
__global__ void stream_rebase(uint32_t* dst, const uint32_t* src, uint64_t n, uint64_t lo, uint64_t len,
                              uint32_t* bad) {
  const uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const uint64_t v = src[i];
  if (v < lo || v - lo >= len) {
    *bad = 1;
    dst[i] = 0;
    return;
  }
  dst[i] = (uint32_t)(v - lo);
}

// out[k] = entries of the ascending tail idx below min(r0 + k·C, nb), k <= K.
__global__ void stream_bounds(const uint32_t* idx, uint64_t ntail, uint64_t r0, uint64_t C, uint64_t nb, uint64_t K,
                              uint64_t* out) {
  const uint64_t k = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (k > K) return;
  const uint64_t r = r0 + k * C < nb ? r0 + k * C : nb;
  uint64_t lo = 0, hi = ntail;
  while (lo < hi) {
    const uint64_t mid = (lo + hi) >> 1;
    if (idx[mid] < r)
      lo = mid + 1;
    else
      hi = mid;
  }
  out[k] = k == K ? ntail : lo;
}

// R^2 mod p (R = 2^384), 32-bit limbs, least significant first: x·R^2 in
// Montgomery multiplication is x's Montgomery form.
static __constant__ uint32_t stream_fp_r2[12] = {0x1c341746u, 0xf4df1f34u, 0x09d104f1u, 0x0a76e6a6u,
                                                 0x4c95b6d5u, 0x8de5476cu, 0x939d83c0u, 0x67eb88a9u,
                                                 0xb519952du, 0x9a793e85u, 0x92cae3aau, 0x11988fe5u};

// Why a point of the file is rejected (bits of the bad-point record's reasons).
enum stream_bad_reason : unsigned { stream_bad_flags = 1, stream_bad_noncanonical = 2, stream_bad_curve = 4 };

// A 48-byte big-endian coordinate at w (12 words as read from memory) as
// the integer's 32-bit limbs.
__device__ __forceinline__ fp_t stream_be_fp(const uint32_t* w) {
  fp_t r;
#pragma unroll
  for (int i = 0; i < 12; i++) r.v[i] = __byte_perm(w[11 - i], 0, 0x0123);
  return r;
}

// A coordinate's Montgomery form; sets the non-canonical reason where x >= p.
__device__ __forceinline__ fp_t stream_mont(const fp_t& x, unsigned& why) {
  if (fp_t::geq_mod(x.v)) why |= stream_bad_noncanonical;
  fp_t r2;
#pragma unroll
  for (int i = 0; i < 12; i++) r2.v[i] = stream_fp_r2[i];
  return x * r2;
}

// Records point index of query q as bad (why != 0): the least (q, index)
// of a run is reported, the reasons of all.
__device__ __forceinline__ void stream_bad(unsigned long long* bad, uint32_t q, uint64_t index, unsigned why) {
  if (!why) return;
  atomicMin(&bad[0], ((unsigned long long)q << 40) | index);
  atomicOr(&bad[1], (unsigned long long)why);
}

// The n G1 points at p, in the file's encoding (96 bytes: x then y,
// big-endian, the flags in x's top 3 bits), converted in place to the
// Montgomery affine layout. As the file's decoder for the queries: no flag
// may be set (the point at infinity is not accepted in a query),
// coordinates below p, y^2 = x^3 + 4 ((0, 0) is not on it).
__global__ void stream_decode_g1(g1_affine* p, uint64_t n, uint64_t base, uint32_t q, unsigned long long* bad) {
  const uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const uint32_t* w = reinterpret_cast<const uint32_t*>(p + i);
  const fp_t xr = stream_be_fp(w), yr = stream_be_fp(w + 12);
  unsigned why = xr.v[11] >> 29 ? stream_bad_flags : 0;
  const fp_t x = stream_mont(xr, why), y = stream_mont(yr, why);
  const fp_t b = fp_t::one().dbl().dbl();
  if (y.sqr() != x.sqr() * x + b) why |= stream_bad_curve;
  stream_bad(bad, q, base + i, why);
  p[i].x = x;
  p[i].y = y;
}

// The G2 form (192 bytes: x.c1, x.c0, y.c1, y.c0, the flags in x.c1's top
// bits; y^2 = x^3 + 4(1 + u)).
__global__ void stream_decode_g2(g2_affine* p, uint64_t n, uint64_t base, uint32_t q, unsigned long long* bad) {
  const uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const uint32_t* w = reinterpret_cast<const uint32_t*>(p + i);
  const fp_t x1 = stream_be_fp(w), x0 = stream_be_fp(w + 12), y1 = stream_be_fp(w + 24), y0 = stream_be_fp(w + 36);
  unsigned why = x1.v[11] >> 29 ? stream_bad_flags : 0;
  fp2_t x, y;
  x.a1 = stream_mont(x1, why);
  x.a0 = stream_mont(x0, why);
  y.a1 = stream_mont(y1, why);
  y.a0 = stream_mont(y0, why);
  const fp_t four = fp_t::one().dbl().dbl();
  const fp2_t b = {four, four};
  if (y.sqr() != x.sqr() * x + b) why |= stream_bad_curve;
  stream_bad(bad, q, base + i, why);
  p[i].x = x;
  p[i].y = y;
}
