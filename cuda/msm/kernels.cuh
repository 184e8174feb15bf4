// G1 multi-scalar multiplication: Pippenger with signed c-bit digits,
// sort-based bucket accumulation (CUB radix sort of (bucket, point) pairs),
// XYZZ buckets, a segmented running-sum bucket reduction; and the batch
// addition of bases selected by a bitmap (the scalars equal to one).
#pragma once

#include "../ec/g1.cuh"
#include "../util/device.cuh"
#include "plan.hpp"

__device__ __forceinline__ g1_affine ldaff(const g1_affine* p) {
  g1_affine r;
  const uint4* q = reinterpret_cast<const uint4*>(p);
#pragma unroll
  for (int i = 0; i < 3; i++) {
    uint4 a = __ldg(q + i);
    r.x.v[4 * i] = a.x; r.x.v[4 * i + 1] = a.y; r.x.v[4 * i + 2] = a.z; r.x.v[4 * i + 3] = a.w;
  }
#pragma unroll
  for (int i = 0; i < 3; i++) {
    uint4 a = __ldg(q + 3 + i);
    r.y.v[4 * i] = a.x; r.y.v[4 * i + 1] = a.y; r.y.v[4 * i + 2] = a.z; r.y.v[4 * i + 3] = a.w;
  }
  return r;
}

// Digits of windows [w0, w0+nb) for every scalar. Key = (w-w0)*B + |d|-1,
// or the sentinel nb*B for a zero digit; value = base index | sign<<31.
__global__ void msm_digits(const fr_t* __restrict__ scalars, const uint32_t* __restrict__ idx,
                           uint64_t n, int brev_lg, uint32_t c, uint32_t w0, uint32_t nb,
                           uint32_t* keys, uint32_t* vals) {
  uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  uint32_t si = brev_lg > 0 ? brev((uint32_t)i, brev_lg) : (uint32_t)i;
  fr_t s = ldfr(scalars + si).from_mont();
  uint32_t bi = idx ? idx[i] : (uint32_t)i;
  const uint32_t B = 1u << (c - 1), mask = (1u << c) - 1;
  uint32_t carry = 0;
  uint32_t wend = w0 + nb;
  for (uint32_t w = 0; w < wend; w++) {
    uint32_t off = w * c, word = off >> 5, sh = off & 31;
    uint32_t d = 0;
    if (word < 8) {
      d = s.v[word] >> sh;
      if (sh != 0 && word + 1 < 8) d |= s.v[word + 1] << (32 - sh);
      d &= mask;
    }
    d += carry;
    uint32_t neg = 0;
    if (d > B) {
      d = (1u << c) - d;
      neg = 1;
      carry = 1;
    } else {
      carry = 0;
    }
    if (w >= w0) {
      uint64_t pos = (uint64_t)(w - w0) * n + i;
      if (d == 0) {
        keys[pos] = nb * B;
        vals[pos] = 0;
      } else {
        keys[pos] = (w - w0) * B + d - 1;
        vals[pos] = bi | (neg << 31);
      }
    }
  }
}

// starts[k] = first position with key >= k, k in [0, nkeys].
__global__ void msm_starts(const uint32_t* keys, uint64_t n, uint32_t nkeys, uint32_t* starts) {
  uint32_t k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k > nkeys) return;
  uint64_t lo = 0, hi = n;
  while (lo < hi) {
    uint64_t mid = (lo + hi) >> 1;
    if (keys[mid] < k)
      lo = mid + 1;
    else
      hi = mid;
  }
  starts[k] = (uint32_t)lo;
}

// Bucket accumulation in two phases, balanced whatever the bucket sizes.
// Phase 1: thread j sums sorted entries [j*C, (j+1)*C) run by run; a run
// strictly inside the chunk is a whole bucket and is stored; the chunk's
// first run goes to head[j], its last (if another) to tail[j].
__global__ void __launch_bounds__(128) msm_acc_chunks(const g1_affine* __restrict__ bases,
                                                      const uint32_t* __restrict__ keys,
                                                      const uint32_t* __restrict__ vals,
                                                      const uint32_t* __restrict__ starts,
                                                      uint32_t nkeys, uint32_t C, g1_xyzz* head,
                                                      g1_xyzz* tail, g1_xyzz* buckets) {
  uint64_t j = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  uint64_t nvalid = starts[nkeys];
  uint64_t b = j * C;
  if (b >= nvalid) return;
  uint64_t e = b + C < nvalid ? b + C : nvalid;
  uint32_t run = __ldg(keys + b);
  bool first = true;
  g1_xyzz acc = g1_xyzz::inf();
  // the next point is loaded while this one is added (the gathers are
  // random reads from the whole SRS vector)
  uint32_t v = __ldg(vals + b);
  g1_affine p = ldaff(bases + (v & 0x7fffffffu));
  for (uint64_t i = b; i < e; i++) {
    const uint64_t in = i + 1 < e ? i + 1 : i;
    const uint32_t vn = __ldg(vals + in);
    const g1_affine pn = ldaff(bases + (vn & 0x7fffffffu));
    uint32_t k = __ldg(keys + i);
    if (k != run) {
      if (first)
        head[j] = acc;
      else
        buckets[run] = acc;
      first = false;
      acc = g1_xyzz::inf();
      run = k;
    }
    if (v >> 31) p.y = p.y.neg();
    acc.add_affine(p);
    v = vn;
    p = pn;
  }
  if (first) {
    head[j] = acc;
    tail[j] = g1_xyzz::inf();
  } else {
    tail[j] = acc;
  }
}

// Phase 2: each bucket not stored by phase 1 = its part of its first chunk
// plus the heads of the chunks it runs into.
__global__ void __launch_bounds__(128) msm_acc_merge(const uint32_t* __restrict__ starts,
                                                     uint32_t nkeys, uint32_t C,
                                                     const g1_xyzz* head, const g1_xyzz* tail,
                                                     g1_xyzz* buckets) {
  uint32_t k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= nkeys) return;
  uint64_t b = starts[k], e = starts[k + 1], nvalid = starts[nkeys];
  if (b == e) {
    buckets[k] = g1_xyzz::inf();
    return;
  }
  uint64_t c0 = b / C, c1 = (e - 1) / C;
  uint64_t end0 = (c0 + 1) * C < nvalid ? (c0 + 1) * C : nvalid;
  g1_xyzz acc;
  if (b == c0 * C)
    acc = head[c0];
  else if (e >= end0)
    acc = tail[c0];
  else
    return;  // inside one chunk: stored by phase 1
  for (uint64_t j = c0 + 1; j <= c1; j++) acc.add(head[j]);
  buckets[k] = acc;
}

// Per segment of L buckets (bucket j of a window weighs j+1): T = sum (j-j0+1)*B_j,
// S = sum B_j. Segment index = window*K + k.
__global__ void __launch_bounds__(128) msm_segments(const g1_xyzz* buckets, uint32_t nseg,
                                                    uint32_t L, g1_xyzz* T, g1_xyzz* S) {
  uint32_t sg = blockIdx.x * blockDim.x + threadIdx.x;
  if (sg >= nseg) return;
  const g1_xyzz* bk = buckets + (uint64_t)sg * L;
  g1_xyzz s = g1_xyzz::inf(), t = g1_xyzz::inf();
  for (int j = (int)L - 1; j >= 0; j--) {
    s.add(bk[j]);
    t.add(s);
  }
  T[sg] = t;
  S[sg] = s;
}

// p·e for a small e > 0 (double and add).
__device__ __forceinline__ g1_xyzz xyzz_mul_small(const g1_xyzz& p, uint32_t e) {
  g1_xyzz r = p;
  for (int b = 30 - __clz(e); b >= 0; b--) {
    r = r.dbl();
    if ((e >> b) & 1) r.add(p);
  }
  return r;
}

// One block of K2 (<= msm_k2, a power of two) threads per window, from the
// two levels of segments (see msm_dev). With T1sum = sum_k T1_k, the
// window's weighted bucket sum is
//   T1sum + L1 * (sum_k' T2_k' + L2 * sum_k' k' S2_k' - sum_k' S2_k'):
// thread k' adds (L2 k' - 1) S2_k' + T2_k', a tree in shared memory sums
// the K2 terms, and thread 0 scales by L1 and adds T1sum. (One thread per
// window walking the K2 terms was a chain of ~4 K2 dependent additions.)
__global__ void __launch_bounds__(msm_k2) msm_windows(const g1_xyzz* T1sum, const g1_xyzz* T2, const g1_xyzz* S2,
                                                      uint32_t K2, uint32_t lgL1, uint32_t lgL2, g1_xyzz* win) {
  __shared__ uint4 buf[msm_k2 * sizeof(g1_xyzz) / 16];
  g1_xyzz* sh = reinterpret_cast<g1_xyzz*>(buf);
  const uint32_t w = blockIdx.x, k = threadIdx.x;
  const uint64_t i = (uint64_t)w * K2 + k;
  const uint32_t e = (k << lgL2) - 1;  // k = 0: -1
  g1_xyzz v = k == 0 ? S2[i].neg() : e == 0 ? g1_xyzz::inf() : xyzz_mul_small(S2[i], e);
  v.add(T2[i]);
  sh[k] = v;
  __syncthreads();
  for (uint32_t h = K2 >> 1; h > 0; h >>= 1) {
    if (k < h) {
      g1_xyzz a = sh[k];
      a.add(sh[k + h]);
      sh[k] = a;
    }
    __syncthreads();
  }
  if (k == 0) {
    g1_xyzz r = sh[0];
    for (uint32_t j = 0; j < lgL1; j++) r = r.dbl();
    r.add(T1sum[w]);
    win[w] = r;
  }
}

// out = sum_w 2^(c*w) win[w] (+ extra if non-null).
__global__ void msm_combine(const g1_xyzz* win, uint32_t W, uint32_t c, const g1_xyzz* extra,
                            g1_xyzz* out) {
  if (threadIdx.x != 0 || blockIdx.x != 0) return;
  g1_xyzz acc = g1_xyzz::inf();
  for (int w = (int)W - 1; w >= 0; w--) {
    for (uint32_t i = 0; i < c; i++) acc = acc.dbl();
    acc.add(win[w]);
  }
  if (extra) acc.add(*extra);
  *out = acc;
}

// Batch addition: partial[t] = sum of bases i in [t*chunk, (t+1)*chunk) whose bit is set.
__global__ void __launch_bounds__(128) batch_add_chunks(const g1_affine* __restrict__ bases,
                                                        uint64_t n, const uint32_t* __restrict__ bits,
                                                        uint32_t chunk, uint64_t nchunks,
                                                        g1_xyzz* partial) {
  uint64_t t = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= nchunks) return;
  uint64_t b = t * chunk, e = b + chunk;
  if (e > n) e = n;
  g1_xyzz acc = g1_xyzz::inf();
  for (uint64_t i = b; i < e; i += 32) {
    uint32_t word = __ldg(bits + (i >> 5));
    uint32_t lim = (uint32_t)((e - i) < 32 ? (e - i) : 32);
    if (lim < 32) word &= (1u << lim) - 1;
    while (word) {
      uint32_t j = __ffs(word) - 1;
      word &= word - 1;
      acc.add_affine(ldaff(bases + i + j));
    }
  }
  partial[t] = acc;
}

// out[t] = sum in[t*F .. t*F+F)
__global__ void __launch_bounds__(128) reduce_xyzz(const g1_xyzz* in, uint64_t n, uint32_t F,
                                                   g1_xyzz* out, uint64_t nout) {
  uint64_t t = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= nout) return;
  uint64_t b = t * F, e = b + F;
  if (e > n) e = n;
  g1_xyzz acc = g1_xyzz::inf();
  for (uint64_t i = b; i < e; i++) acc.add(in[i]);
  out[t] = acc;
}

__global__ void add_xyzz(g1_xyzz* a, const g1_xyzz* b) {
  if (threadIdx.x == 0 && blockIdx.x == 0) a->add(*b);
}
