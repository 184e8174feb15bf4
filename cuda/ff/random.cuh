// Random Fr elements on the device, for benchmarks.
#pragma once

#include "field.cuh"

// v[i] = an element < r from a xorshift stream of (i, seed) (any value < r is
// a valid Montgomery form).
__global__ void fill_rand_fr(fr_t* v, uint64_t n, uint64_t seed) {
  uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  uint64_t s = (i + 1) * 0x9e3779b97f4a7c15ull ^ seed;
  fr_t x;
  for (int k = 0; k < 8; k++) {
    s ^= s << 13;
    s ^= s >> 7;
    s ^= s << 17;
    x.v[k] = (uint32_t)(s >> 16);
  }
  x.v[7] %= 0x73eda753u;
  v[i] = x;
}
