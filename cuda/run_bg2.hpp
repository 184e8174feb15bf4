// B_G2 in a partition run: the G2 MSM over the B query's scalars (the B
// part's ones bitmap and tail, B_G1's), against the srs's resident B_G2.
// cuzk_run calls it after B_G1 on its tails stream; a run that forms the
// scalars on the device (cuzk_run_witness) calls it the same way.
#pragma once

#include <cuda_runtime.h>
#include <stdint.h>

#include "context.hpp"
#include "srs/srs.hpp"

// Reserves what run_bg2 needs for a tail of ntail scalars over the srs's
// B_G2 (the MSM scratch, the batch addition's, the result slots in
// ctx->points_g2). Call it with the run's other reservations, before
// anything is queued.
int run_bg2_reserve(cuzk_ctx* ctx, const cuzk_srs* srs, uint64_t ntail);

// Queues on st: out = sum of the B_G2 bases whose bit is set in ones (may be
// NULL) + sum_j scalars[j] * B_G2[idx[j]]; all pointers on the device, out
// included (ctx->points_g2 + 0 is the slot cuzk_run uses; slot 1 holds the
// ones' sum). The srs must hold B_G2 (CUZK_ERR_ARG if not).
int run_bg2(cuzk_ctx* ctx, const cuzk_srs* srs, const uint32_t* ones, const fr_t* scalars, const uint32_t* idx,
            uint64_t ntail, cudaStream_t st, g2_xyzz* out);
