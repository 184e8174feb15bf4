// G1 bucket accumulation with part of the warps on the FP64 pipe (build
// variant -DCUZK_ACC52, an experiment): msm_acc_chunks' phase 1 where the
// warps the mode picks sum their chunks with ec/xyzz52.cuh's accumulator
// (fp52 products: DFMA and integer adds) while the others use fp_t's (IMAD),
// so that an SM's schedulers can issue both pipes' work: msm_acc_chunk with
// another accumulator, the entries, chunks and outputs msm_acc_chunks'.
// CUZK_ACC52_MODE at run time: 0 fp_t's kernel, 1 half the warps fp52 (one
// of each kind on every scheduler; the default of this build), 2 every warp
// fp52.
#pragma once

#include <stdlib.h>

#include "../ec/xyzz52.cuh"
#include "driver.cuh"

// Which arithmetic a warp takes in mode 1: by its slot on the SM (%warpid),
// not its index in the block. Slots go to the four schedulers in turn, so
// slots 0-3 and 4-7 (two blocks of four warps, the occupancy at 255
// registers) give each scheduler one warp of each kind, and a block that
// finishes hands its slots to the next block with the same kind: the
// faster kind's slots simply take more blocks. Any answer is correct (only
// the speed depends on it).
__device__ __forceinline__ bool acc52_slot_odd() {
  uint32_t w;
  asm volatile("mov.u32 %0, %%warpid;" : "=r"(w));
  return (w >> 2) & 1;
}

template <int mode>
__global__ void __launch_bounds__(128) msm_acc_chunks52(const g1_affine* __restrict__ bases,
                                                        const uint32_t* __restrict__ keys,
                                                        const uint32_t* __restrict__ vals,
                                                        const uint32_t* __restrict__ starts, uint32_t nkeys,
                                                        uint32_t C, g1_xyzz* head, g1_xyzz* tail,
                                                        g1_xyzz* buckets) {
  const uint64_t j = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  const uint64_t nvalid = starts[nkeys];
  const uint64_t b = j * C;
  if (b >= nvalid) return;
  const uint64_t e = b + C < nvalid ? b + C : nvalid;
  if (mode == 2 || acc52_slot_odd())
    msm_acc_chunk<g1_affine, g1_xyzz, xyzz52_acc>(bases, keys, vals, j, b, e, head, tail, buckets);
  else
    msm_acc_chunk<g1_affine, g1_xyzz, xyzz_acc<g1_affine, g1_xyzz>>(bases, keys, vals, j, b, e, head, tail, buckets);
}

// CUZK_ACC52_MODE, read once.
static int acc52_mode() {
  static const int m = [] {
    const char* s = getenv("CUZK_ACC52_MODE");
    return s ? atoi(s) : 1;
  }();
  return m;
}

template <>
struct msm_acc_step<g1_affine, g1_xyzz> {
  static int run(cuzk_ctx* ctx, const msm_batch& bt, const g1_affine* bases, uint64_t acc_slots, cudaStream_t st,
                 msm_marks& mark) {
    switch (acc52_mode()) {
    case 1:
      return msm_accumulate_with<g1_affine, g1_xyzz>(ctx, bt, bases, msm_acc_chunks52<1>, 128, acc_slots, st, mark,
                                                     "4 acc chunks", "5 acc merge");
    case 2:
      return msm_accumulate_with<g1_affine, g1_xyzz>(ctx, bt, bases, msm_acc_chunks52<2>, 128, acc_slots, st, mark,
                                                     "4 acc chunks", "5 acc merge");
    default:
      return msm_accumulate<g1_affine, g1_xyzz>(ctx, bt, bases, acc_slots, st, mark);
    }
  }
};
