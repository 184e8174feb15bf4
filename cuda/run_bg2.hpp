// B_G2 in a partition run: the G2 MSM over the B query's scalars (the B
// part's ones bitmap and tail, B_G1's), against the srs's B_G2, resident or
// streamed (msm/stream.hpp). cuzk_run calls it after B_G1 on its tails
// stream; a run that forms the scalars on the device (cuzk_run_witness)
// calls it the same way.
#pragma once

#include <cuda_runtime.h>
#include <stdint.h>

#include "context.hpp"
#include "msm/stream.hpp"
#include "srs/srs.hpp"

// Reserves what run_bg2 needs for a tail of ntail scalars over the srs's
// B_G2 (the MSM scratch, the batch addition's, the result slots in
// ctx->points_g2; streamed, for one chunk). Call it with the run's other
// reservations, before anything is queued.
int run_bg2_reserve(cuzk_ctx* ctx, const cuzk_srs* srs, uint64_t ntail);

// Queues on st: out = sum of the B_G2 bases whose bit is set in in.ones (may
// be NULL) + sum_j scalars[j] * B_G2[idx[j]] over in's tail (B_G1's, as
// srs_msm takes it; resident B_G2 needs the whole tail on the device); out
// on the device (ctx->points_g2 + 0 is the slot cuzk_run uses; slot 1 is
// scratch). The srs must have B_G2 (CUZK_ERR_ARG if not).
int run_bg2(cuzk_ctx* ctx, const cuzk_srs* srs, const srs_msm_in& in, cudaStream_t st, g2_xyzz* out);
