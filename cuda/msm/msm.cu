// The MSM host driver (msm.hpp) for G1, the scalar-only steps every MSM
// shares (digits, sort, bucket starts), and the C ABI's cuzk_msm and
// cuzk_msm_split.
#include <cub/cub.cuh>
#include <string>

#include "digits.cuh"
#include "driver.cuh"

uint64_t msm_resident_threads(int dev) { return msm_resident_threads_t<g1_affine, g1_xyzz>(dev); }

int msm_reserve(cuzk_ctx* ctx, const msm_scratch& s) {
  msm_buffers& b = ctx->msm_scratch;
  TRY(b.keys.ensure(s.pairs));
  TRY(b.vals.ensure(s.pairs));
  TRY(b.keys_sorted.ensure(s.pairs));
  TRY(b.vals_sorted.ensure(s.pairs));
  TRY(b.starts.ensure(s.starts));
  TRY(b.buckets.ensure(s.buckets));
  TRY(b.level1_weighted.ensure(s.seg1));
  TRY(b.level1_sums.ensure(s.seg1));
  TRY(b.level2_weighted.ensure(s.seg2));
  TRY(b.level2_sums.ensure(s.seg2));
  TRY(b.t1_rounds[0].ensure(s.red));
  TRY(b.t1_rounds[1].ensure(s.red));
  TRY(b.windows.ensure(s.win));
  TRY(b.chunk_head.ensure(s.chunks));
  TRY(b.chunk_tail.ensure(s.chunks));
  size_t tb = 0;
  CK(cub::DeviceRadixSort::SortPairs(nullptr, tb, b.keys.as<uint32_t>(), b.keys_sorted.as<uint32_t>(),
                                     b.vals.as<uint32_t>(), b.vals_sorted.as<uint32_t>(), (int)(s.pairs / 4), 0,
                                     32));
  TRY(b.sort_temp.ensure(tb));
  return 0;
}

int msm_sort_batch(cuzk_ctx* ctx, const msm_batch& bt, const fr_t* scalars, const uint32_t* idx, uint64_t n,
                   int brev_lg, cudaStream_t st, msm_marks& mark) {
  msm_buffers& b = ctx->msm_scratch;
  msm_digits<<<(n + 255) / 256, 256, 0, st>>>(scalars, idx, n, brev_lg, bt.p.c, bt.w0, bt.nb, b.keys.as<uint32_t>(),
                                              b.vals.as<uint32_t>());
  CKL();
  mark("1 digits");
  int end_bit = 1;
  while ((1u << end_bit) <= bt.nkeys) end_bit++;
  size_t tb = b.sort_temp.capacity();
  CK(cub::DeviceRadixSort::SortPairs(b.sort_temp.get(), tb, b.keys.as<uint32_t>(), b.keys_sorted.as<uint32_t>(),
                                     b.vals.as<uint32_t>(), b.vals_sorted.as<uint32_t>(), (int)bt.np, 0, end_bit,
                                     st));
  mark("2 sort");
  msm_starts<<<(bt.nkeys + 1 + 255) / 256, 256, 0, st>>>(b.keys_sorted.as<uint32_t>(), bt.np, bt.nkeys,
                                                        b.starts.as<uint32_t>());
  CKL();
  mark("3 starts");
  return 0;
}

int msm_dev(cuzk_ctx* ctx, const g1_affine* bases, const fr_t* scalars, const uint32_t* idx, uint64_t n,
            int brev_lg, const g1_xyzz* extra, g1_xyzz* out, cudaStream_t st, msm_win_acc* acc) {
  return msm_dev_t<g1_affine, g1_xyzz>(ctx, ctx->msm, bases, scalars, idx, n, brev_lg, extra, out, st, acc);
}

int msm_win_finish(msm_win_acc& acc, g1_xyzz* out, cudaStream_t st) { return msm_win_finish_t(acc, out, st); }

int batch_add_reserve(cuzk_ctx* ctx, uint64_t n, size_t point_bytes) {
  const uint64_t nch = batch_chunks(n);
  TRY(ctx->msm_scratch.batch_chunks.ensure(nch * point_bytes));
  TRY(ctx->msm_scratch.batch_rounds.ensure(((nch + 31) / 32 + 1) * point_bytes));
  return 0;
}

int batch_add_dev(cuzk_ctx* ctx, const g1_affine* bases, uint64_t n, const uint32_t* bits, g1_xyzz* out,
                  cudaStream_t st) {
  return batch_add_dev_t<g1_affine, g1_xyzz>(ctx, bases, n, bits, out, st);
}

extern "C" int cuzk_msm(cuzk_ctx* ctx, const void* bases, const void* scalars, uint64_t n, void* out) {
  return cuzk_msm_split(ctx, bases, n, nullptr, scalars, nullptr, n, out);
}

extern "C" int cuzk_msm_split(cuzk_ctx* ctx, const void* bases, uint64_t nbases, const uint32_t* ones,
                              const void* scalars, const uint32_t* idx, uint64_t ntail, void* out) {
  if (!ctx || !out || (nbases && !bases) || (ntail && !scalars))
    return set_err(CUZK_ERR_ARG, "msm: nil argument");
  if (ntail > nbases && idx) return set_err(CUZK_ERR_ARG, "msm: tail longer than the bases");
  if (!idx && ntail > nbases) return set_err(CUZK_ERR_ARG, "msm: more scalars than bases");
  CK(cudaSetDevice(ctx->dev));
  cudaStream_t st = ctx->main;
  msm_inputs& in = ctx->msm_in;
  const uint64_t nw = (nbases + 31) / 32;
  TRY(in.bases.ensure(nbases * sizeof(g1_affine) + 1));
  TRY(in.scalars.ensure(ntail * 32 + 1));
  TRY(in.idx.ensure(ntail * 4 + 1));
  TRY(in.ones.ensure(nw * 4 + 4));
  TRY(ctx->points.ensure(2 * sizeof(g1_xyzz)));
  if (nbases) CK(cudaMemcpyAsync(in.bases.get(), bases, nbases * sizeof(g1_affine), cudaMemcpyHostToDevice, st));
  if (ntail) CK(cudaMemcpyAsync(in.scalars.get(), scalars, ntail * 32, cudaMemcpyHostToDevice, st));
  if (ntail && idx) CK(cudaMemcpyAsync(in.idx.get(), idx, ntail * 4, cudaMemcpyHostToDevice, st));
  g1_xyzz* o = ctx->points.as<g1_xyzz>();
  const g1_xyzz* extra = nullptr;
  if (ones) {
    CK(cudaMemcpyAsync(in.ones.get(), ones, nw * 4, cudaMemcpyHostToDevice, st));
    TRY(batch_add_dev(ctx, in.bases.as<g1_affine>(), nbases, in.ones.as<uint32_t>(), o + 1, st));
    extra = o + 1;
  }
  TRY(msm_dev(ctx, in.bases.as<g1_affine>(), in.scalars.as<fr_t>(), idx ? in.idx.as<uint32_t>() : nullptr, ntail, 0,
              extra, o, st));
  CK(cudaMemcpyAsync(out, o, sizeof(g1_xyzz), cudaMemcpyDeviceToHost, st));
  CK(cudaStreamSynchronize(st));
  return 0;
}
