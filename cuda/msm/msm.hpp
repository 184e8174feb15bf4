// The MSM host driver: Pippenger MSMs and batch additions on device points,
// queued on a stream of a context, with the context's scratch.
#pragma once

#include <cuda_runtime.h>
#include <stdint.h>

#include "../ec/g1.cuh"
#include "../ec/g2.cuh"
#include "../util/buffers.hpp"
#include "plan.hpp"

struct cuzk_ctx;

// The scratch of a context's MSMs (msm_reserve sizes it) and batch additions.
struct msm_buffers {
  device_buffer keys, vals;                    // per (window, point): bucket key, signed base index
  device_buffer keys_sorted, vals_sorted;      // the same, sorted by key
  device_buffer sort_temp;                     // the radix sort's temporary storage
  device_buffer starts;                        // first sorted entry of each bucket
  device_buffer buckets;                       // bucket sums
  device_buffer chunk_head, chunk_tail;        // each accumulation chunk's first and last run
  device_buffer level1_weighted, level1_sums;  // T and S of each first-level segment
  device_buffer level2_weighted, level2_sums;  // T and S of each second-level segment
  device_buffer t1_rounds[2];                  // the rounds of the T1 reduction, alternately
  device_buffer windows;                       // each window's weighted bucket sum
  device_buffer batch_chunks, batch_rounds;    // batch addition: per-chunk sums, reduction rounds
};

// Threads of msm_acc_chunks resident at once on device dev (0 if unknown).
uint64_t msm_resident_threads(int dev);

// Allocates the scratch for s (and the sort's temporary storage) up front,
// so that MSMs queued on two streams never reallocate under each other.
int msm_reserve(cuzk_ctx* ctx, const msm_scratch& s);

// Weighted window sums kept across MSMs of one window size (the chunk MSMs
// of a streamed query): such an MSM adds its windows' sums into win where
// they are of its window c (or win holds none yet), and leaves the
// combination of the windows (c doublings a window, one thread) to
// msm_win_finish, once for all of them. An MSM of another window combines
// its own as usual.
struct msm_win_acc {
  void* win = nullptr;  // device: room for msm_win_max windows of the point type
  uint32_t c = 0;       // the window of the sums in win; 0: none yet
};
static constexpr uint32_t msm_win_max = 64;

// out = sum scalars[i] * bases[idx ? idx[i] : i] (+ *extra), on device; with
// brev_lg > 0 scalar i is read at bitrev(i) (the H sequence's order). With
// acc (msm_win_acc), out = *extra and the MSM's share may be left in acc.
int msm_dev(cuzk_ctx* ctx, const g1_affine* bases, const fr_t* scalars, const uint32_t* idx, uint64_t n,
            int brev_lg, const g1_xyzz* extra, g1_xyzz* out, cudaStream_t st, msm_win_acc* acc = nullptr);

// out += the combination of acc's window sums, if it holds any; acc is then empty.
int msm_win_finish(msm_win_acc& acc, g1_xyzz* out, cudaStream_t st);

// Allocates the batch addition's scratch for up to n bases (sums of
// point_bytes: G1 192, G2 384).
int batch_add_reserve(cuzk_ctx* ctx, uint64_t n, size_t point_bytes = sizeof(g1_xyzz));

// out = sum of the n bases whose bit is set in bits, on device.
int batch_add_dev(cuzk_ctx* ctx, const g1_affine* bases, uint64_t n, const uint32_t* bits, g1_xyzz* out,
                  cudaStream_t st);

// G2 (msm_g2.cu): the same MSM and batch addition over G2 points, with the
// same digits, sort, accumulation, segments and windows (the kernels are
// templates; ec/xyzz.cuh over Fp2). Their scratch: msm_scratch_for(n,
// msm_config_g2(ctx->msm), sizeof(g2_xyzz)) and batch_add_reserve(ctx, n,
// sizeof(g2_xyzz)).
uint64_t msm_resident_threads_g2(int dev);
int msm_dev_g2(cuzk_ctx* ctx, const g2_affine* bases, const fr_t* scalars, const uint32_t* idx, uint64_t n,
               int brev_lg, const g2_xyzz* extra, g2_xyzz* out, cudaStream_t st, msm_win_acc* acc = nullptr);
int msm_win_finish(msm_win_acc& acc, g2_xyzz* out, cudaStream_t st);
int batch_add_dev_g2(cuzk_ctx* ctx, const g2_affine* bases, uint64_t n, const uint32_t* bits, g2_xyzz* out,
                     cudaStream_t st);
