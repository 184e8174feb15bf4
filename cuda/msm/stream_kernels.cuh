// Kernels of the streamed MSMs (stream.cu): the chained sum's start and
// folds, the tail indices of a chunk rebased to it, chunk boundaries in a
// device tail.
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
