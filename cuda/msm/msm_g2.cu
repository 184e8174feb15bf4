// The G2 MSM (msm.hpp): the driver and kernels of msm.cu instantiated over
// G2 points (Fp2 coordinates), the accumulation variants of acc_g2.cuh
// (CUZK_G2_ACC), and the C ABI's cuzk_msm_g2 and cuzk_msm_split_g2 on host
// data.
#include <stdlib.h>

#include "acc_g2.cuh"
#include "driver.cuh"

// CUZK_G2_ACC picks G2's accumulation kernel: 0 (or unset, or out of
// range) msm_acc_chunks and batch_add_chunks; 1..4 the variants of
// acc_g2.cuh (and g2_batch_add_regs for the batch addition). Read at every MSM,
// so that one process can time them all.
static int g2_acc_variant() {
  const char* s = getenv("CUZK_G2_ACC");
  const int v = s ? atoi(s) : 0;
  return v >= 0 && v <= 4 ? v : 0;
}

// A variant's kernel, block size and profile marks.
struct g2_acc_choice {
  msm_acc_kernel<g2_affine, g2_xyzz> k;
  int nt;
  const char *l4, *l5;
};

static g2_acc_choice g2_acc_choose(int v) {
  switch (v) {
    case 1: return {g2_acc_shared, g2_acc_nt, "4 acc chunks (g2 acc 1)", "5 acc merge (g2 acc 1)"};
    case 2: return {g2_acc_regs_async, 128, "4 acc chunks (g2 acc 2)", "5 acc merge (g2 acc 2)"};
    case 3: return {g2_acc_regs<false>, 128, "4 acc chunks (g2 acc 3)", "5 acc merge (g2 acc 3)"};
    default: return {g2_acc_regs<true>, 128, "4 acc chunks (g2 acc 4)", "5 acc merge (g2 acc 4)"};
  }
}

// G2's accumulation: the default, or the variant CUZK_G2_ACC names, its
// chunks in whole waves of its own resident threads where the scratch
// (planned for the default's) holds that many chunks.
template <>
struct msm_acc_step<g2_affine, g2_xyzz> {
  static int run(cuzk_ctx* ctx, const msm_batch& bt, const g2_affine* bases, uint64_t acc_slots, cudaStream_t st,
                 msm_marks& mark) {
    const int v = g2_acc_variant();
    if (v == 0) return msm_accumulate<g2_affine, g2_xyzz>(ctx, bt, bases, acc_slots, st, mark);
    const g2_acc_choice ch = g2_acc_choose(v);
    int blocks = 0, sms = 0;
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, ch.k, ch.nt, 0));
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, ctx->dev));
    uint64_t slots = (uint64_t)blocks * sms * ch.nt;
    const uint64_t C = msm_chunk(bt.np, slots);
    if ((bt.np + C - 1) / C * sizeof(g2_xyzz) > ctx->msm_scratch.chunk_head.capacity()) slots = acc_slots;
    return msm_accumulate_with<g2_affine, g2_xyzz>(ctx, bt, bases, ch.k, ch.nt, slots, st, mark, ch.l4, ch.l5);
  }
};

uint64_t msm_resident_threads_g2(int dev) { return msm_resident_threads_t<g2_affine, g2_xyzz>(dev); }

int msm_dev_g2(cuzk_ctx* ctx, const g2_affine* bases, const fr_t* scalars, const uint32_t* idx, uint64_t n,
               int brev_lg, const g2_xyzz* extra, g2_xyzz* out, cudaStream_t st) {
  return msm_dev_t<g2_affine, g2_xyzz>(ctx, msm_config_g2(ctx->msm), bases, scalars, idx, n, brev_lg, extra, out,
                                       st);
}

int batch_add_dev_g2(cuzk_ctx* ctx, const g2_affine* bases, uint64_t n, const uint32_t* bits, g2_xyzz* out,
                     cudaStream_t st) {
  if (g2_acc_variant() != 0)
    return batch_add_dev_t<g2_affine, g2_xyzz>(ctx, bases, n, bits, out, st, g2_batch_add_regs,
                                               "batch add g2 chunks (g2 acc regs)");
  return batch_add_dev_t<g2_affine, g2_xyzz>(ctx, bases, n, bits, out, st);
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
