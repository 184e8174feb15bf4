// G1 bucket accumulation with part of the warps on the FP64 pipe (build
// variant -DCUZK_ACC52, an experiment): msm_acc_chunks' phase 1 where the
// warps the mode picks sum their chunks with ec/xyzz52.cuh's accumulator
// (fp52 products: DFMA and integer adds) while the others use fp_t's (IMAD),
// so that an SM's schedulers can issue both pipes' work. The entries, the
// chunks and the head, tail and bucket outputs are msm_acc_chunks'.
// CUZK_ACC52_MODE at run time: 0 fp_t's kernel, 1 half the warps fp52 (one
// of each kind on every scheduler; the default of this build), 2 every warp
// fp52.
#pragma once

#include <stdlib.h>

#include <type_traits>

#include "../ec/xyzz52.cuh"
#include "driver.cuh"

template <bool fp52>
__device__ __forceinline__ void acc52_chunk(const g1_affine* __restrict__ bases, const uint32_t* __restrict__ keys,
                                            const uint32_t* __restrict__ vals, uint64_t j, uint64_t b, uint64_t e,
                                            g1_xyzz* head, g1_xyzz* tail, g1_xyzz* buckets) {
  uint32_t run = __ldg(keys + b);
  bool first = true;
  typename std::conditional<fp52, xyzz52_t, g1_xyzz>::type acc;
  if constexpr (fp52)
    acc = xyzz52_t::infinity();
  else
    acc = g1_xyzz::inf();
  auto sum = [&]() -> g1_xyzz {
    if constexpr (fp52)
      return acc.xyzz();
    else
      return acc;
  };
  uint32_t v = __ldg(vals + b);
  g1_affine p = ldaff(bases + (v & 0x7fffffffu));
  for (uint64_t i = b; i < e; i++) {
    const uint64_t in = i + 1 < e ? i + 1 : i;
    const uint32_t vn = __ldg(vals + in);
    const g1_affine pn = ldaff(bases + (vn & 0x7fffffffu));
    const uint32_t k = __ldg(keys + i);
    if (k != run) {
      const g1_xyzz s = sum();
      if (first)
        head[j] = s;
      else
        buckets[run] = s;
      first = false;
      if constexpr (fp52)
        acc = xyzz52_t::infinity();
      else
        acc = g1_xyzz::inf();
      run = k;
    }
    if (v >> 31) p.y = p.y.neg();
    if constexpr (fp52) {
      if (!p.is_inf())
        acc.add_affine(bases + (v & 0x7fffffffu), v >> 31, fp52_t::from_words(p.x.v), fp52_t::from_words(p.y.v));
    } else {
      acc.add_affine(p);
    }
    v = vn;
    p = pn;
  }
  if (first) {
    head[j] = sum();
    tail[j] = g1_xyzz::inf();
  } else {
    tail[j] = sum();
  }
}

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
    acc52_chunk<true>(bases, keys, vals, j, b, e, head, tail, buckets);
  else
    acc52_chunk<false>(bases, keys, vals, j, b, e, head, tail, buckets);
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
