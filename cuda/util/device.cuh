// Device-side helpers shared by the NTT and MSM kernels.
#pragma once

#include "../ff/field.cuh"

// An fr_t through the read-only data path, as two 16-byte loads.
__device__ __forceinline__ fr_t ldfr(const fr_t* p) {
  fr_t r;
  const uint4* q = reinterpret_cast<const uint4*>(p);
  uint4 a = __ldg(q), b = __ldg(q + 1);
  r.v[0] = a.x; r.v[1] = a.y; r.v[2] = a.z; r.v[3] = a.w;
  r.v[4] = b.x; r.v[5] = b.y; r.v[6] = b.z; r.v[7] = b.w;
  return r;
}

// The low `bits` bits of x reversed.
__device__ __forceinline__ uint32_t brev(uint32_t x, uint32_t bits) {
  return bits == 0 ? 0 : (__brev(x) >> (32 - bits));
}
