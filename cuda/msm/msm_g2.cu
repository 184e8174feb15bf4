// The G2 MSM (msm.hpp): the driver and kernels of msm.cu instantiated over
// G2 points (Fp2 coordinates), with acc_g2.cuh's accumulation and batch
// addition, and the C ABI's cuzk_msm_g2 and cuzk_msm_split_g2 on host
// data.
#include <stdlib.h>
#include <string.h>

#include "acc_g2.cuh"
#include "driver.cuh"

// CUZK_G2_ACC=0 runs the generic kernels (msm_acc_chunks, batch_add_chunks)
// for comparison; unset or any other value, acc_g2.cuh's. Read at every MSM,
// so that one process can time both.
static bool g2_acc_generic() {
  const char* s = getenv("CUZK_G2_ACC");
  return s && !strcmp(s, "0");
}

// G2's accumulation: g2_acc_regs, its chunks in whole waves of its own
// resident threads where the scratch (planned for the generic kernel's)
// holds that many chunks.
template <>
struct msm_acc_step<g2_affine, g2_xyzz> {
  static int run(cuzk_ctx* ctx, const msm_batch& bt, const g2_affine* bases, uint64_t acc_slots, cudaStream_t st,
                 msm_marks& mark) {
    if (g2_acc_generic()) return msm_accumulate<g2_affine, g2_xyzz>(ctx, bt, bases, acc_slots, st, mark);
    int blocks = 0, sms = 0;
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, g2_acc_regs, 128, 0));
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, ctx->dev));
    uint64_t slots = (uint64_t)blocks * sms * 128;
    const uint64_t C = msm_chunk(bt.np, slots);
    if ((bt.np + C - 1) / C * sizeof(g2_xyzz) > ctx->msm_scratch.chunk_head.capacity()) slots = acc_slots;
    return msm_accumulate_with<g2_affine, g2_xyzz>(ctx, bt, bases, g2_acc_regs, 128, slots, st, mark,
                                                   "4 acc chunks", "5 acc merge");
  }
};

uint64_t msm_resident_threads_g2(int dev) { return msm_resident_threads_t<g2_affine, g2_xyzz>(dev); }

int msm_dev_g2(cuzk_ctx* ctx, const g2_affine* bases, const fr_t* scalars, const uint32_t* idx, uint64_t n,
               int brev_lg, const g2_xyzz* extra, g2_xyzz* out, cudaStream_t st, msm_win_acc* acc) {
  return msm_dev_t<g2_affine, g2_xyzz>(ctx, msm_config_g2(ctx->msm), bases, scalars, idx, n, brev_lg, extra, out,
                                       st, acc);
}

int msm_win_finish(msm_win_acc& acc, g2_xyzz* out, cudaStream_t st) { return msm_win_finish_t(acc, out, st); }

int batch_add_dev_g2(cuzk_ctx* ctx, const g2_affine* bases, uint64_t n, const uint32_t* bits, g2_xyzz* out,
                     cudaStream_t st) {
  if (g2_acc_generic()) return batch_add_dev_t<g2_affine, g2_xyzz>(ctx, bases, n, bits, out, st);
  return batch_add_dev_t<g2_affine, g2_xyzz>(ctx, bases, n, bits, out, st, g2_batch_add_regs);
}

extern "C" int cuzk_msm_g2(cuzk_ctx* ctx, const void* bases, const void* scalars, uint64_t n, void* out384) {
  return cuzk_msm_split_g2(ctx, bases, n, nullptr, scalars, nullptr, n, out384);
}

extern "C" int cuzk_msm_split_g2(cuzk_ctx* ctx, const void* bases, uint64_t nbases, const uint32_t* ones,
                                 const void* scalars, const uint32_t* idx, uint64_t ntail, void* out384) {
  if (!ctx || !out384 || (nbases && !bases) || (ntail && !scalars))
    return set_err(CUZK_ERR_ARG, "msm g2: nil argument");
  if (ntail > nbases) return set_err(CUZK_ERR_ARG, "msm g2: %llu scalars for %llu bases", (unsigned long long)ntail,
                                     (unsigned long long)nbases);
  CK(cudaSetDevice(ctx->dev));
  cudaStream_t st = ctx->main;
  msm_inputs& in = ctx->msm_in;
  const uint64_t nw = (nbases + 31) / 32;
  TRY(in.bases.ensure(nbases * sizeof(g2_affine) + 1));
  TRY(in.scalars.ensure(ntail * 32 + 1));
  TRY(in.idx.ensure(ntail * 4 + 1));
  TRY(in.ones.ensure(nw * 4 + 4));
  TRY(ctx->points_g2.ensure(2 * sizeof(g2_xyzz)));
  if (nbases) CK(cudaMemcpyAsync(in.bases.get(), bases, nbases * sizeof(g2_affine), cudaMemcpyHostToDevice, st));
  if (ntail) CK(cudaMemcpyAsync(in.scalars.get(), scalars, ntail * 32, cudaMemcpyHostToDevice, st));
  if (ntail && idx) CK(cudaMemcpyAsync(in.idx.get(), idx, ntail * 4, cudaMemcpyHostToDevice, st));
  g2_xyzz* o = ctx->points_g2.as<g2_xyzz>();
  const g2_xyzz* extra = nullptr;
  if (ones) {
    CK(cudaMemcpyAsync(in.ones.get(), ones, nw * 4, cudaMemcpyHostToDevice, st));
    TRY(batch_add_dev_g2(ctx, in.bases.as<g2_affine>(), nbases, in.ones.as<uint32_t>(), o + 1, st));
    extra = o + 1;
  }
  TRY(msm_dev_g2(ctx, in.bases.as<g2_affine>(), in.scalars.as<fr_t>(), idx ? in.idx.as<uint32_t>() : nullptr, ntail,
                 0, extra, o, st));
  CK(cudaMemcpyAsync(out384, o, sizeof(g2_xyzz), cudaMemcpyDeviceToHost, st));
  CK(cudaStreamSynchronize(st));
  return 0;
}
