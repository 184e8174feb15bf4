// The MSM's digits and bucket starts: the part of Pippenger that knows only
// the scalars (shared by the G1 and G2 MSMs; included by msm.cu only).
// Keys (window, bucket) of signed c-bit digits, sorted with CUB radix sort
// per batch of windows, and each bucket's first sorted entry.
#pragma once

#include "../ff/field.cuh"
#include "../util/device.cuh"

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

