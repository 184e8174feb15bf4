// Multi-scalar multiplication's point kernels, generic over the point
// types (A affine, P its XYZZ form: G1 over Fp, G2 over Fp2): sort-based
// bucket accumulation over the sorted (bucket, point) pairs of digits.cuh,
// XYZZ buckets, a segmented running-sum bucket reduction; and the batch
// addition of bases selected by a bitmap (the scalars equal to one).
// Templates only: msm.cu instantiates G1's, msm_g2.cu G2's, so each kernel
// is compiled once.
#pragma once

#include "../ec/g1.cuh"
#include "../ec/g2.cuh"
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

// A G2 affine point through the read-only data path, as twelve 16-byte loads.
__device__ __forceinline__ g2_affine ldaff(const g2_affine* p) {
  g2_affine r;
  const uint4* q = reinterpret_cast<const uint4*>(p);
  fp_t* f[4] = {&r.x.a0, &r.x.a1, &r.y.a0, &r.y.a1};
#pragma unroll
  for (int k = 0; k < 4; k++) {
#pragma unroll
    for (int i = 0; i < 3; i++) {
      uint4 a = __ldg(q + 3 * k + i);
      f[k]->v[4 * i] = a.x; f[k]->v[4 * i + 1] = a.y; f[k]->v[4 * i + 2] = a.z; f[k]->v[4 * i + 3] = a.w;
    }
  }
  return r;
}

// An accumulator of msm_acc_chunk: an XYZZ point, summed by mixed additions.
// Others (test/fp52_bench.cu's, over ec/xyzz52.cuh) keep the sum in another
// form and give it back as P.
template <class A, class P>
struct xyzz_acc {
  P acc;
  __device__ __forceinline__ static xyzz_acc inf() { return {P::inf()}; }
  // p: *src, its y negated where neg
  __device__ __forceinline__ void add(const A*, bool, const A& p) { acc.add_affine(p); }
  __device__ __forceinline__ P sum() const { return acc; }
};

// Bucket accumulation in two phases, balanced whatever the bucket sizes.
// Phase 1: thread j sums sorted entries [b, e) = [j*C, (j+1)*C) run by run;
// a run strictly inside the chunk is a whole bucket and is stored; the
// chunk's first run goes to head[j], its last (if another) to tail[j].
template <class A, class P, class Acc>
__device__ __forceinline__ void msm_acc_chunk(const A* __restrict__ bases, const uint32_t* __restrict__ keys,
                                              const uint32_t* __restrict__ vals, uint64_t j, uint64_t b,
                                              uint64_t e, P* head, P* tail, P* buckets) {
  uint32_t run = __ldg(keys + b);
  bool first = true;
  Acc acc = Acc::inf();
  // the next point is loaded while this one is added (the gathers are
  // random reads from the whole SRS vector)
  uint32_t v = __ldg(vals + b);
  A p = ldaff(bases + (v & 0x7fffffffu));
  for (uint64_t i = b; i < e; i++) {
    const uint64_t in = i + 1 < e ? i + 1 : i;
    const uint32_t vn = __ldg(vals + in);
    const A pn = ldaff(bases + (vn & 0x7fffffffu));
    uint32_t k = __ldg(keys + i);
    if (k != run) {
      if (first)
        head[j] = acc.sum();
      else
        buckets[run] = acc.sum();
      first = false;
      acc = Acc::inf();
      run = k;
    }
    if (v >> 31) p.y = p.y.neg();
    acc.add(bases + (v & 0x7fffffffu), v >> 31, p);
    v = vn;
    p = pn;
  }
  if (first) {
    head[j] = acc.sum();
    tail[j] = P::inf();
  } else {
    tail[j] = acc.sum();
  }
}

template <class A, class P>
__global__ void __launch_bounds__(128) msm_acc_chunks(const A* __restrict__ bases,
                                                      const uint32_t* __restrict__ keys,
                                                      const uint32_t* __restrict__ vals,
                                                      const uint32_t* __restrict__ starts,
                                                      uint32_t nkeys, uint32_t C, P* head,
                                                      P* tail, P* buckets) {
  uint64_t j = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  uint64_t nvalid = starts[nkeys];
  uint64_t b = j * C;
  if (b >= nvalid) return;
  uint64_t e = b + C < nvalid ? b + C : nvalid;
  msm_acc_chunk<A, P, xyzz_acc<A, P>>(bases, keys, vals, j, b, e, head, tail, buckets);
}

// Phase 2: each bucket not stored by phase 1 = its part of its first chunk
// plus the heads of the chunks it runs into.
template <class P>
__global__ void __launch_bounds__(128) msm_acc_merge(const uint32_t* __restrict__ starts,
                                                     uint32_t nkeys, uint32_t C,
                                                     const P* head, const P* tail,
                                                     P* buckets) {
  uint32_t k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= nkeys) return;
  uint64_t b = starts[k], e = starts[k + 1], nvalid = starts[nkeys];
  if (b == e) {
    buckets[k] = P::inf();
    return;
  }
  uint64_t c0 = b / C, c1 = (e - 1) / C;
  uint64_t end0 = (c0 + 1) * C < nvalid ? (c0 + 1) * C : nvalid;
  P acc;
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
template <class P>
__global__ void __launch_bounds__(128) msm_segments(const P* buckets, uint32_t nseg,
                                                    uint32_t L, P* T, P* S) {
  uint32_t sg = blockIdx.x * blockDim.x + threadIdx.x;
  if (sg >= nseg) return;
  const P* bk = buckets + (uint64_t)sg * L;
  P s = P::inf(), t = P::inf();
  for (int j = (int)L - 1; j >= 0; j--) {
    s.add(bk[j]);
    t.add(s);
  }
  T[sg] = t;
  S[sg] = s;
}

// p·e for a small e > 0 (double and add).
template <class P>
__device__ __forceinline__ P xyzz_mul_small(const P& p, uint32_t e) {
  P r = p;
  for (int b = 30 - __clz(e); b >= 0; b--) {
    r = r.dbl();
    if ((e >> b) & 1) r.add(p);
  }
  return r;
}

// The entries of msm_windows' shared tree: msm_k2 of them where they fit in
// the 48 KB of static shared memory (G1's 192-byte points), else half as
// many (G2's 384-byte points: the upper half of the threads first folds
// into the lower half).
template <class P>
struct msm_win_slots {
  static constexpr uint32_t value = msm_k2 * sizeof(P) <= 49152 ? msm_k2 : (uint32_t)(49152 / sizeof(P));
};

// One block of K2 (<= msm_k2, a power of two) threads per window, from the
// two levels of segments (see msm_dev). With T1sum = sum_k T1_k, the
// window's weighted bucket sum is
//   T1sum + L1 * (sum_k' T2_k' + L2 * sum_k' k' S2_k' - sum_k' S2_k'):
// thread k' adds (L2 k' - 1) S2_k' + T2_k', a tree in shared memory sums
// the K2 terms, and thread 0 scales by L1 and adds T1sum. (One thread per
// window walking the K2 terms was a chain of ~4 K2 dependent additions.)
// With add, the window's sum is added to win[w] (a msm_win_acc's).
template <class P>
__global__ void __launch_bounds__(msm_k2) msm_windows(const P* T1sum, const P* T2, const P* S2,
                                                      uint32_t K2, uint32_t lgL1, uint32_t lgL2, P* win,
                                                      bool add) {
  constexpr uint32_t S = msm_win_slots<P>::value;
  __shared__ uint4 buf[S * sizeof(P) / 16];
  P* sh = reinterpret_cast<P*>(buf);
  const uint32_t w = blockIdx.x, k = threadIdx.x;
  const uint64_t i = (uint64_t)w * K2 + k;
  const uint32_t e = (k << lgL2) - 1;  // k = 0: -1
  P v = k == 0 ? S2[i].neg() : e == 0 ? P::inf() : xyzz_mul_small(S2[i], e);
  v.add(T2[i]);
  uint32_t live = K2;
  if constexpr (S < msm_k2) {
    // fold the upper half of the live terms into the lower half until they fit
    while (live > S) {
      const uint32_t h = live >> 1;
      if (k >= h && k < live) sh[k - h] = v;
      __syncthreads();
      if (k < h) v.add(sh[k]);
      __syncthreads();
      live = h;
    }
    if (k < live) sh[k] = v;
  } else {
    sh[k] = v;
  }
  __syncthreads();
  for (uint32_t h = live >> 1; h > 0; h >>= 1) {
    if (k < h) {
      P a = sh[k];
      a.add(sh[k + h]);
      sh[k] = a;
    }
    __syncthreads();
  }
  if (k == 0) {
    P r = sh[0];
    for (uint32_t j = 0; j < lgL1; j++) r = r.dbl();
    r.add(T1sum[w]);
    if (add) r.add(win[w]);
    win[w] = r;
  }
}

// out = sum_w 2^(c*w) win[w] (+ extra if non-null).
template <class P>
__global__ void msm_combine(const P* win, uint32_t W, uint32_t c, const P* extra, P* out) {
  if (threadIdx.x != 0 || blockIdx.x != 0) return;
  P acc = P::inf();
  for (int w = (int)W - 1; w >= 0; w--) {
    for (uint32_t i = 0; i < c; i++) acc = acc.dbl();
    acc.add(win[w]);
  }
  if (extra) acc.add(*extra);
  *out = acc;
}

// Batch addition: partial[t] = sum of bases i in [t*chunk, (t+1)*chunk) whose bit is set.
template <class A, class P>
__global__ void __launch_bounds__(128) batch_add_chunks(const A* __restrict__ bases,
                                                        uint64_t n, const uint32_t* __restrict__ bits,
                                                        uint32_t chunk, uint64_t nchunks,
                                                        P* partial) {
  uint64_t t = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= nchunks) return;
  uint64_t b = t * chunk, e = b + chunk;
  if (e > n) e = n;
  P acc = P::inf();
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
template <class P>
__global__ void __launch_bounds__(128) reduce_xyzz(const P* in, uint64_t n, uint32_t F,
                                                   P* out, uint64_t nout) {
  uint64_t t = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= nout) return;
  uint64_t b = t * F, e = b + F;
  if (e > n) e = n;
  P acc = P::inf();
  for (uint64_t i = b; i < e; i++) acc.add(in[i]);
  out[t] = acc;
}

template <class P>
__global__ void add_xyzz(P* a, const P* b) {
  if (threadIdx.x == 0 && blockIdx.x == 0) a->add(*b);
}

// *out = *extra, or infinity where extra is NULL: an MSM over no points.
template <class P>
__global__ void set_xyzz(P* out, const P* extra) {
  if (threadIdx.x == 0 && blockIdx.x == 0) *out = extra ? *extra : P::inf();
}
